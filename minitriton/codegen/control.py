"""Control flow and the rest: loops and branches as basic blocks, printing, assertions, barriers.

A region op's blocks become LLVM basic blocks; the values that flow between them (a loop's carried
values, an if's results) become phi nodes, one per register. A 32-bit loop index is counted in 64
bits, so stepping past the bound near 2**31 cannot wrap around. `print` calls the CUDA runtime's
`vprintf` once per register, `assert` traps after printing where it failed. Chapter: 08-llvm.
"""
from __future__ import annotations

from llvmlite import ir as ll

from .. import ir
from .lowering import GENERIC_PTR, GLOBAL_PTR, Lowering, f64, i1, i8, i32, i64


def _flatten(lw: Lowering, values: list) -> list:
    return [r for v in values for r in lw.get(v)]


# --8<-- [start:for]
def _for(lw: Lowering, op, lb, ub, step, *inits):
    """for iv in range(lb, ub, step): header phis carry iv and the loop's values. A 32-bit index is
    counted in 64 bits, so that stepping past the bound near 2**31 cannot wrap around."""
    b = lw.b
    parts = ir.loop_parts(op)
    signed = op.operands[0].dtype.is_int_signed()
    narrow = lb[0].type.width < 64
    widen = (lambda v: b.sext(v, i64) if signed else b.zext(v, i64)) if narrow else (lambda v: v)
    flat_init = [r for regs in inits for r in regs]
    pre = b.block
    header = b.append_basic_block("for.header")
    loop = b.append_basic_block("for.body")
    exit_ = b.append_basic_block("for.exit")
    start, stop, stride = widen(lb[0]), widen(ub[0]), widen(step[0])
    b.branch(header)
    b.position_at_end(header)
    counter = b.phi(start.type, name="iv")
    counter.add_incoming(start, pre)
    phis = [b.phi(r.type) for r in flat_init]
    for phi, r in zip(phis, flat_init):
        phi.add_incoming(r, pre)
    zero = ll.Constant(stride.type, 0)
    less = b.icmp_signed("<", counter, stop) if signed or narrow else b.icmp_unsigned("<", counter, stop)
    greater = b.icmp_signed(">", counter, stop)
    going_up = b.icmp_signed(">", stride, zero)
    b.cbranch(b.select(going_up, less, greater), loop, exit_)
    b.position_at_end(loop)
    lw.set(parts.induction, [b.trunc(counter, lb[0].type) if narrow else counter])
    for arg, regs in zip(parts.carried, _split_by_counts([len(r) for r in inits], phis)):
        lw.set(arg, regs)
    lw.block(_without_terminator(parts.body))
    yielded = _flatten(lw, parts.yielded)
    latch = b.block
    counter.add_incoming(b.add(counter, stride), latch)
    for phi, r in zip(phis, yielded):
        phi.add_incoming(r, latch)
    b.branch(header)
    b.position_at_end(exit_)
    return _split_by_counts([len(r) for r in inits], phis)
# --8<-- [end:for]


def _split_by_counts(counts: list[int], flat: list) -> list[list]:
    out, i = [], 0
    for n in counts:
        out.append(list(flat[i:i + n]))
        i += n
    return out


def _without_terminator(block: ir.Block) -> ir.Block:
    return ir.Block(block.args, block.ops[:-1])


def _if(lw: Lowering, op, cond):
    b = lw.b
    then_bb = b.append_basic_block("if.then")
    else_bb = b.append_basic_block("if.else")
    merge = b.append_basic_block("if.end")
    b.cbranch(cond[0], then_bb, else_bb)
    incoming = []
    for region, bb in zip(op.regions, (then_bb, else_bb)):
        b.position_at_end(bb)
        lw.block(_without_terminator(region))
        incoming.append((_flatten(lw, region.terminator.operands), b.block))
        b.branch(merge)
    b.position_at_end(merge)
    results = []
    for i, value in enumerate(incoming[0][0]):
        phi = b.phi(value.type)
        for values, block in incoming:
            phi.add_incoming(values[i], block)
        results.append(phi)
    counts = [len(lw.get(v)) for v in op.regions[0].terminator.operands]
    return _split_by_counts(counts, results)


def _while(lw: Lowering, op, *inits):
    b = lw.b
    before, after = op.regions
    counts = [len(r) for r in inits]
    flat_init = [r for regs in inits for r in regs]
    pre = b.block
    header = b.append_basic_block("while.before")
    body = b.append_basic_block("while.after")
    exit_ = b.append_basic_block("while.exit")
    b.branch(header)
    b.position_at_end(header)
    phis = [b.phi(r.type) for r in flat_init]
    for phi, r in zip(phis, flat_init):
        phi.add_incoming(r, pre)
    for arg, regs in zip(before.args, _split_by_counts(counts, phis)):
        lw.set(arg, regs)
    condition = before.ops[-1]
    lw.block(ir.Block(before.args, before.ops[:-1]))
    cond = lw.get(condition.operands[0])[0]
    passed = _flatten(lw, condition.operands[1:])
    b.cbranch(cond, body, exit_)
    b.position_at_end(body)
    for arg, regs in zip(after.args, _split_by_counts(counts, passed)):
        lw.set(arg, regs)
    lw.block(_without_terminator(after))
    yielded = _flatten(lw, after.terminator.operands)
    for phi, r in zip(phis, yielded):
        phi.add_incoming(r, b.block)
    b.branch(header)
    b.position_at_end(exit_)
    return _split_by_counts(counts, passed)


# --8<-- [start:print]
def _print(lw: Lowering, op, *values):
    """`pid (x, y, z) idx (i, j) prefix value` through vprintf, one line per register."""
    pids = [lw.sreg(f"ctaid.{a}") for a in "xyz"]
    for v, regs in zip(op.operands, values):
        indices = lw.indices(v.layout, v.shape) if v.type.is_tile else [[]]
        for index, reg in zip(indices, regs):
            spec, arg = _printf_value(lw, reg, v.dtype, op.attrs.get("hex", False))
            idx = ", ".join(["%d"] * len(index))
            fmt = f"pid (%d, %d, %d) idx ({idx}) {op.attrs['prefix']}{spec}\n"
            _vprintf(lw, fmt, pids + list(index) + [arg])
# --8<-- [end:print]


def _printf_value(lw: Lowering, reg, dtype: ir.DType, hex_: bool):
    b = lw.b
    if dtype.is_ptr():
        return "%p", b.ptrtoint(reg, i64)
    if dtype.is_floating():
        if hex_:
            bits = b.bitcast(reg, ll.IntType(dtype.bits)) if not dtype.is_bf16() else reg
            return "0x%llx", b.zext(bits, i64) if dtype.bits < 64 else bits
        return "%f", b.fpext(lw.to_f32(reg, dtype), f64) if dtype != ir.float64 else reg
    if hex_:
        return "0x%llx", b.zext(reg, i64) if dtype.bits < 64 else reg
    if dtype.bits == 64:
        return ("%lld" if dtype.is_int_signed() else "%llu"), reg
    widened = b.sext(reg, i32) if dtype.is_int_signed() else b.zext(reg, i32)
    return ("%d" if dtype.is_int_signed() else "%u"), widened if dtype.bits < 32 else reg


def _vprintf(lw: Lowering, fmt: str, args: list) -> None:
    b = lw.b
    data = bytearray(fmt.encode()) + b"\0"
    text = ll.GlobalVariable(lw.module, ll.ArrayType(i8, len(data)), f"fmt{lw.strings}", addrspace=1)
    lw.strings += 1
    text.initializer = ll.Constant(ll.ArrayType(i8, len(data)), data)
    text.global_constant = True
    text.linkage = "internal"
    text.type = GLOBAL_PTR
    packed = ll.LiteralStructType([a.type for a in args])
    buffer = lw.in_prologue(lambda: b.alloca(packed))
    buffer.type = GENERIC_PTR  # opaque, like every pointer here
    for i, a in enumerate(args):
        b.store(a, b.gep(buffer, [ll.Constant(i32, 0), ll.Constant(i32, i)], source_etype=packed))
    vprintf = lw.module.globals.get("vprintf") or ll.Function(
        lw.module, ll.FunctionType(i32, [GENERIC_PTR, GENERIC_PTR]), "vprintf")
    b.call(vprintf, [b.addrspacecast(text, GENERIC_PTR), buffer])


def _assert(lw: Lowering, op, cond):
    b = lw.b
    failed = ll.Constant(i1, 0)
    for c in cond:
        failed = b.or_(failed, b.not_(c))
    with b.if_then(failed, likely=False):
        loc = op.loc
        where = f"{loc.file}:{loc.line}" if loc else "kernel"
        _vprintf(lw, f"{where}: device assertion failed: {op.attrs.get('message', '')}\n", [ll.Constant(i32, 0)])
        lw.call("llvm.trap", ll.VoidType(), [])


def _barrier(lw: Lowering, op):
    lw.barrier()


def _griddepcontrol(lw: Lowering, op):
    """Programmatic dependent launch (Hopper and later): wait for the grid this one depends on, or let
    the next one start. Without such a launch both do nothing, so before sm_90, which lacks the
    instruction, nothing is emitted."""
    if lw.capability >= 90:
        lw.asm(ll.VoidType(), f"griddepcontrol.{op.attrs['control']};", "", [])


RULES = {"for": _for, "if": _if, "while": _while, "print": _print, "assert": _assert, "barrier": _barrier,
         "griddepcontrol": _griddepcontrol}
