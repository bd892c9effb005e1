"""Per-thread LLVM IR from tile IR with layouts (llvmlite.ir).

A tile value becomes the list of this thread's registers, in the order its layout numbers them
(`layouts.DistributedLayout.register_offsets`); a scalar is one register every thread holds. Each
op is lowered by one rule in `RULES` (op name -> function), tinygrad-style: elementwise ops zip
registers, loads and stores become predicated vector accesses, control flow becomes basic blocks
with phi nodes. Ops that move data between threads (conversions, reductions, scans, dot) live in
`codegen/tiles.py`. The output is the text of an LLVM module with one `ptx_kernel` function, which
`codegen/ptx.py` turns into PTX. Chapter: 08-llvm.
"""
from __future__ import annotations

import struct

from llvmlite import ir as ll

from .. import ir
from ..layouts import BlockedLayout

i1, i8, i16, i32, i64 = (ll.IntType(n) for n in (1, 8, 16, 32, 64))
f16, f32, f64 = ll.HalfType(), ll.FloatType(), ll.DoubleType()
GLOBAL_PTR = ll.PointerType(addrspace=1)
SHARED_PTR = ll.PointerType(addrspace=3)
GENERIC_PTR = ll.PointerType()

# --8<-- [start:types]
# bf16 has no LLVM type in llvmlite: its values travel as their 16-bit patterns, and arithmetic on
# them is done in f32 and rounded back, as the interpreter does.
LL_TYPES = {"int1": i1, "int8": i8, "int16": i16, "int32": i32, "int64": i64, "uint8": i8,
            "uint16": i16, "uint32": i32, "uint64": i64, "fp16": f16, "bf16": i16, "fp32": f32,
            "fp64": f64}


def ll_type(dtype: ir.DType) -> ll.Type:
    return GLOBAL_PTR if dtype.is_ptr() else LL_TYPES[dtype.name]
# --8<-- [end:types]


def const(dtype: ir.DType, value) -> ll.Constant:
    if dtype.is_bf16():
        return ll.Constant(i16, struct.unpack("<I", struct.pack("<f", value))[0] >> 16)
    if dtype.is_floating():
        return ll.Constant(ll_type(dtype), float(value))
    if dtype.is_ptr():
        return ll.Constant(GLOBAL_PTR, None)
    return ll.Constant(ll_type(dtype), int(value) & ((1 << dtype.bits) - 1))


class Lowering:
    """Lowers one kernel; holds the LLVM builder, the registers of every IR value, and helpers."""

    # --8<-- [start:lowering]
    def __init__(self, fn: ir.Function, num_warps: int, arch: str):
        self.fn, self.num_warps, self.arch = fn, num_warps, arch
        self.module = ll.Module(name=fn.name)
        self.module.triple = "nvptx64-nvidia-cuda"
        self.regs: dict[int, list] = {}
        self.intrinsics: dict[str, ll.Function] = {}
        self.thread_parts: dict = {}
        self.strings = 0
        args = [ll_type(a.dtype) for a in fn.args]
        kernel = ll.Function(self.module, ll.FunctionType(ll.VoidType(), args), fn.name)
        kernel.calling_convention = "ptx_kernel"
        for arg, value in zip(kernel.args, fn.args):
            arg.name = value.name
            self.regs[id(value)] = [arg]
        self.kernel = kernel
        self.b = ll.IRBuilder(kernel.append_basic_block("entry"))
        self.smem = ll.GlobalVariable(self.module, ll.ArrayType(i8, 0), "smem", addrspace=3)
        self.smem.linkage = "external"
        self.smem.align = 1024  # so that offsets aligned to 1 KB are aligned in the shared window
        self.smem.type = SHARED_PTR  # an opaque pointer, so any type can be stored through it
        tid = self.sreg("tid.x")
        self.lane = self.b.and_(tid, ll.Constant(i32, 31), name="lane")
        self.warp = self.b.lshr(tid, ll.Constant(i32, 5), name="warp")
        self.tid = tid
        body = kernel.append_basic_block("body")
        self.prologue_end = self.b.branch(body)  # values every block may use are computed before it
        self.b.position_at_end(body)
    # --8<-- [end:lowering]

    def in_prologue(self, make):
        """Emit `make()` in the entry block, so that its values dominate every later block."""
        if getattr(self, "_in_prologue", False):  # already there (a nested call)
            return make()
        here = self.b.block
        self.b.position_before(self.prologue_end)
        self._in_prologue = True
        try:
            return make()
        finally:
            self._in_prologue = False
            self.b.position_at_end(here)

    # -- small helpers ----------------------------------------------------------------------------
    def intrinsic(self, name: str, ret: ll.Type, args: list[ll.Type]) -> ll.Function:
        if name not in self.intrinsics:
            self.intrinsics[name] = ll.Function(self.module, ll.FunctionType(ret, args), name)
        return self.intrinsics[name]

    def call(self, name: str, ret: ll.Type, args: list):
        return self.b.call(self.intrinsic(name, ret, [a.type for a in args]), args)

    def sreg(self, name: str):
        return self.call(f"llvm.nvvm.read.ptx.sreg.{name}", i32, [])

    def asm(self, ret: ll.Type, text: str, constraints: str, args: list, side_effect: bool = True):
        fnty = ll.FunctionType(ret, [a.type for a in args])
        return self.b.call(ll.InlineAsm(fnty, text, constraints, side_effect=side_effect), args)

    def barrier(self):
        self.call("llvm.nvvm.barrier0", ll.VoidType(), [])

    def shared_ptr(self, byte_offset):
        """A pointer `byte_offset` bytes into this kernel's dynamic shared memory."""
        return self.b.gep(self.smem, [byte_offset], source_etype=i8)

    def get(self, v: ir.Value) -> list:
        return self.regs[id(v)]

    def set(self, v: ir.Value, registers: list) -> None:
        self.regs[id(v)] = list(registers)

    # -- indices: where this thread's registers sit in the tile ------------------------------------
    # --8<-- [start:indices]
    def thread_part(self, layout, shape) -> list:
        """Per dimension, the index contribution of this thread's lane and warp (runtime i32)."""
        key = (layout, tuple(shape))
        if key not in self.thread_parts:
            self.thread_parts[key] = self.in_prologue(lambda: self._thread_part(layout, shape))
        return self.thread_parts[key]

    def _thread_part(self, layout, shape) -> list:
        parts = [ll.Constant(i32, 0)] * len(shape)
        for ident, fields in ((self.lane, layout.lane_fields(shape)), (self.warp, layout.warp_fields(shape))):
            for f in fields:
                bits = self.b.and_(self.b.lshr(ident, ll.Constant(i32, f.shift)),
                                   ll.Constant(i32, (1 << f.width) - 1))
                parts[f.dim] = self.b.or_(parts[f.dim], self.b.mul(bits, ll.Constant(i32, f.scale)))
        return parts

    def indices(self, layout, shape) -> list[list]:
        """For each register, its index in the tile (per dimension, runtime i32)."""
        parts = self.thread_part(layout, shape)
        return [[self.b.or_(p, ll.Constant(i32, o)) if o else p for p, o in zip(parts, offsets)]
                for offsets in layout.register_offsets(shape)]
    # --8<-- [end:indices]

    def owner_predicate(self, layout, shape):
        """True in the one thread (of the replicas) that owns each of its elements."""
        replica = 0
        for bit, basis in enumerate(layout.lane_bases(shape)):
            if not any(basis):
                replica |= 1 << bit
        warp_replica = 0
        for bit, basis in enumerate(layout.warp_bases(shape)):
            if not any(basis):
                warp_replica |= 1 << bit
        ok = ll.Constant(i1, 1)
        if replica:
            ok = self.b.and_(ok, self.b.icmp_unsigned("==", self.b.and_(self.lane, ll.Constant(i32, replica)),
                                                       ll.Constant(i32, 0)))
        if warp_replica:
            ok = self.b.and_(ok, self.b.icmp_unsigned("==", self.b.and_(self.warp, ll.Constant(i32, warp_replica)),
                                                       ll.Constant(i32, 0)))
        return ok

    def unique_registers(self, layout, shape) -> list[int]:
        """Register numbers of a thread that hold distinct elements (the first of each duplicate)."""
        seen, result = set(), []
        for r, offsets in enumerate(layout.register_offsets(shape)):
            if offsets not in seen:
                seen.add(offsets)
                result.append(r)
        return result

    # -- values of a type --------------------------------------------------------------------------
    def to_f32(self, x, dtype: ir.DType):
        if dtype.is_bf16():
            return self.b.bitcast(self.b.shl(self.b.zext(x, i32), ll.Constant(i32, 16)), f32)
        if dtype == ir.float16:
            return self.b.fpext(x, f32)
        return x

    def from_f32(self, x, dtype: ir.DType):
        if dtype.is_bf16():
            return self.asm(i16, "cvt.rn.bf16.f32 $0, $1;", "=h,f", [x], side_effect=False)
        if dtype == ir.float16:
            return self.b.fptrunc(x, f16)
        return x

    # -- the walk ----------------------------------------------------------------------------------
    def lower(self) -> str:
        self.block(self.fn.body)
        self.b.ret_void()
        return str(self.module)

    def block(self, block: ir.Block) -> None:
        for op in block.ops:
            rule = RULES.get(op.name)
            if rule is None:
                from . import tiles
                rule = tiles.RULES.get(op.name)
            assert rule is not None, f"no lowering rule for op {op.name!r}"
            results = rule(self, op, *[self.get(v) for v in op.operands])
            if op.results:
                if len(op.results) == 1 and op.name not in ("for", "while", "if"):
                    results = [results]
                for value, registers in zip(op.results, results):
                    self.set(value, registers)

    # --8<-- [start:counted_loop]
    def counted_loop(self, start, stop: int, step: int, carried: list, body) -> list:
        """`for i in range(start, stop, step): carried = body(i, carried)` as basic blocks with phi
        nodes (i32 `i`, a runtime start, constant stop and step); returns the final `carried`."""
        b = self.b
        before = b.block
        head, loop, done = (b.append_basic_block(name) for name in ("loop.head", "loop.body", "loop.done"))
        b.branch(head)
        b.position_at_end(head)
        i = b.phi(i32)
        i.add_incoming(start, before)
        phis = []
        for value in carried:
            phi = b.phi(value.type)
            phi.add_incoming(value, before)
            phis.append(phi)
        b.cbranch(b.icmp_unsigned("<", i, ll.Constant(i32, stop)), loop, done)
        b.position_at_end(loop)
        updated = body(i, phis)
        i.add_incoming(b.add(i, ll.Constant(i32, step)), b.block)
        for phi, value in zip(phis, updated):
            phi.add_incoming(value, b.block)
        b.branch(head)
        b.position_at_end(done)
        return phis
    # --8<-- [end:counted_loop]

    def n_regs(self, v: ir.Value) -> int:
        return v.layout.registers_per_thread(v.shape) if v.type.is_tile else 1


# ---------------------------------------------------------------------------------------------------
# Rules: op -> this thread's result registers.
# ---------------------------------------------------------------------------------------------------

def _constant(lw: Lowering, op):
    return [const(op.attrs["dtype"], op.attrs["value"])]


def _program_id(lw: Lowering, op):
    return [lw.sreg("ctaid." + "xyz"[op.attrs["axis"]])]


def _num_programs(lw: Lowering, op):
    return [lw.sreg("nctaid." + "xyz"[op.attrs["axis"]])]


def _arange(lw: Lowering, op):
    v = op.result
    return [index[0] for index in lw.indices(v.layout, v.shape)]


def _splat(lw: Lowering, op, x):
    return x * lw.n_regs(op.result)


def _hint(lw: Lowering, op, x):
    return x


# --8<-- [start:elementwise]
def _binary(int_op: str, uint_op: str | None, float_op: str | None):
    """A rule applying one LLVM instruction per register, chosen by the element kind."""
    def rule(lw: Lowering, op, a, b):
        dtype = op.operands[0].dtype
        if dtype.is_floating():
            return [lw.from_f32(getattr(lw.b, float_op)(lw.to_f32(x, dtype), lw.to_f32(y, dtype)), dtype)
                    if dtype.is_bf16() else getattr(lw.b, float_op)(x, y) for x, y in zip(a, b)]
        name = uint_op if dtype.kind == "uint" or dtype.is_bool() else int_op
        return [getattr(lw.b, name)(x, y) for x, y in zip(a, b)]
    return rule
# --8<-- [end:elementwise]


def _minmax(pick: str):
    def rule(lw: Lowering, op, a, b):
        dtype = op.operands[0].dtype
        if dtype.is_floating():
            t = f32 if dtype.is_bf16() or dtype == ir.float16 else ll_type(dtype)
            name = f"llvm.{pick}imum.{'f64' if t is f64 else 'f32'}"
            return [lw.from_f32(lw.call(name, t, [lw.to_f32(x, dtype), lw.to_f32(y, dtype)]), dtype)
                    for x, y in zip(a, b)]
        signed = dtype.kind == "int" and not dtype.is_bool()
        cmp = lw.b.icmp_signed if signed else lw.b.icmp_unsigned
        return [lw.b.select(cmp("<" if pick == "min" else ">", x, y), x, y) for x, y in zip(a, b)]
    return rule


def _div(lw: Lowering, op, a, b):
    """Division: fp32 `/` is div.full.f32 (2 ulp, Triton's choice), `div_rn` the IEEE division."""
    dtype = op.operands[0].dtype
    if dtype == ir.float32 and op.attrs.get("rounding") != "rn":
        return [lw.asm(f32, "div.full.f32 $0, $1, $2;", "=f,f,f", [x, y], side_effect=False) for x, y in zip(a, b)]
    return _binary("sdiv", "udiv", "fdiv")(lw, op, a, b)


def _umulhi(lw: Lowering, op, a, b):
    dtype = op.operands[0].dtype
    wide = ll.IntType(2 * dtype.bits)
    return [lw.b.trunc(lw.b.lshr(lw.b.mul(lw.b.zext(x, wide), lw.b.zext(y, wide)),
                                 ll.Constant(wide, dtype.bits)), ll_type(dtype)) for x, y in zip(a, b)]


def _neg(lw: Lowering, op, a):
    dtype = op.operands[0].dtype
    if dtype.is_floating():
        return [lw.from_f32(lw.b.fneg(lw.to_f32(x, dtype)), dtype) if dtype.is_bf16() else lw.b.fneg(x)
                for x in a]
    return [lw.b.neg(x) for x in a]


def _not(lw: Lowering, op, a):
    return [lw.b.not_(x) for x in a]


def _abs(lw: Lowering, op, a):
    dtype = op.operands[0].dtype
    if dtype.is_floating():
        return [lw.from_f32(lw.call("llvm.fabs.f32", f32, [lw.to_f32(x, dtype)]), dtype)
                if dtype != ir.float64 else lw.call("llvm.fabs.f64", f64, [x]) for x in a]
    zero = ll.Constant(ll_type(dtype), 0)
    return [lw.b.select(lw.b.icmp_signed("<", x, zero), lw.b.neg(x), x) for x in a]


# --8<-- [start:math]
LOG2E, LN2 = 1.4426950408889634, 0.6931471805599453


def _exp2(lw, x):
    return lw.call("llvm.nvvm.ex2.approx.f", f32, [x])


def _log2(lw, x):
    return lw.call("llvm.nvvm.lg2.approx.f", f32, [x])


def _erf(lw, x):
    """erf by Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7)."""
    b = lw.b
    c = lambda v: ll.Constant(f32, v)
    ax = lw.call("llvm.fabs.f32", f32, [x])
    t = b.fdiv(c(1.0), b.fadd(c(1.0), b.fmul(c(0.3275911), ax)))
    poly = c(1.061405429)
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly = b.fadd(b.fmul(poly, t), c(coefficient))
    y = b.fsub(c(1.0), b.fmul(b.fmul(poly, t), _exp2(lw, b.fmul(b.fmul(b.fneg(ax), ax), c(LOG2E)))))
    return b.select(b.fcmp_ordered("<", x, c(0.0)), b.fneg(y), y)


# Each function of an f32 register; fp16/bf16 are widened to f32 first, fp64 narrowed (documented).
MATH_F32 = {
    "exp": lambda lw, x: _exp2(lw, lw.b.fmul(x, ll.Constant(f32, LOG2E))),
    "exp2": _exp2,
    "log": lambda lw, x: lw.b.fmul(_log2(lw, x), ll.Constant(f32, LN2)),
    "log2": _log2,
    "sqrt": lambda lw, x: lw.call("llvm.sqrt.f32", f32, [x]),
    "rsqrt": lambda lw, x: lw.call("llvm.nvvm.rsqrt.approx.f", f32, [x]),
    "sin": lambda lw, x: lw.call("llvm.nvvm.sin.approx.f", f32, [x]),
    "cos": lambda lw, x: lw.call("llvm.nvvm.cos.approx.f", f32, [x]),
    "floor": lambda lw, x: lw.call("llvm.floor.f32", f32, [x]),
    "ceil": lambda lw, x: lw.call("llvm.ceil.f32", f32, [x]),
    "tanh": lambda lw, x: lw.asm(f32, "tanh.approx.f32 $0, $1;", "=f,f", [x], side_effect=False),
    "erf": _erf,
}
MATH_F64 = {"sqrt": "llvm.sqrt.f64", "floor": "llvm.floor.f64", "ceil": "llvm.ceil.f64"}
# --8<-- [end:math]


def _math(lw: Lowering, op, a):
    dtype = op.operands[0].dtype
    if dtype == ir.float64 and op.name in MATH_F64:
        return [lw.call(MATH_F64[op.name], f64, [x]) for x in a]
    fn = MATH_F32[op.name]
    if dtype == ir.float64:
        return [lw.b.fpext(fn(lw, lw.b.fptrunc(x, f32)), f64) for x in a]
    return [lw.from_f32(fn(lw, lw.to_f32(x, dtype)), dtype) for x in a]


def _pow(lw: Lowering, op, a, b):
    """x**y = 2**(y*log2|x|), negated for a negative x and an odd integer y (NaN if y is not an integer)."""
    dtype = op.operands[0].dtype
    B = lw.b
    c = lambda v: ll.Constant(f32, v)
    out = []
    for x, y in zip(a, b):
        xf, yf = (B.fptrunc(v, f32) for v in (x, y)) if dtype == ir.float64 else \
            (lw.to_f32(x, dtype), lw.to_f32(y, dtype))
        magnitude = _exp2(lw, B.fmul(yf, _log2(lw, lw.call("llvm.fabs.f32", f32, [xf]))))
        integral = B.fcmp_ordered("==", lw.call("llvm.floor.f32", f32, [yf]), yf)
        half = B.fmul(yf, c(0.5))
        odd = B.and_(integral, B.fcmp_unordered("!=", lw.call("llvm.floor.f32", f32, [half]), half))
        negative = B.fcmp_ordered("<", xf, c(0.0))
        signed = B.select(odd, B.fneg(magnitude), magnitude)
        r = B.select(negative, B.select(integral, signed, c(float("nan"))), magnitude)
        r = B.select(B.fcmp_ordered("==", yf, c(0.0)), c(1.0), r)
        out.append(B.fpext(r, f64) if dtype == ir.float64 else lw.from_f32(r, dtype))
    return out


def _rem(lw: Lowering, op, a, b):
    """`%`: C's remainder for integers; for floats fmod, computed in f64 so that it is exact while
    the quotient stays below 2**29 (far beyond what kernels use it for)."""
    dtype = op.operands[0].dtype
    B = lw.b
    if not dtype.is_floating():
        name = "urem" if dtype.kind == "uint" or dtype.is_bool() else "srem"
        return [getattr(B, name)(x, y) for x, y in zip(a, b)]
    out = []
    for x, y in zip(a, b):
        xd, yd = (v if dtype == ir.float64 else B.fpext(lw.to_f32(v, dtype), f64) for v in (x, y))
        quotient = lw.call("llvm.trunc.f64", f64, [B.fdiv(xd, yd)])
        r = lw.call("llvm.fma.f64", f64, [B.fneg(quotient), yd, xd])
        wrong_sign = B.fcmp_ordered("<", B.fmul(r, xd), ll.Constant(f64, 0.0))
        ay = lw.call("llvm.fabs.f64", f64, [yd])
        fix = B.select(B.fcmp_ordered("<", xd, ll.Constant(f64, 0.0)), B.fneg(ay), ay)
        r = B.select(wrong_sign, B.fadd(r, fix), r)
        out.append(r if dtype == ir.float64 else lw.from_f32(B.fptrunc(r, f32), dtype))
    return out


def _fma(lw: Lowering, op, a, b, c):
    dtype = op.operands[0].dtype
    if dtype in (ir.float32, ir.float64):
        name = "llvm.fma.f64" if dtype == ir.float64 else "llvm.fma.f32"
        return [lw.call(name, ll_type(dtype), [x, y, z]) for x, y, z in zip(a, b, c)]
    return [lw.from_f32(lw.call("llvm.fma.f32", f32, [lw.to_f32(x, dtype), lw.to_f32(y, dtype),
                                                      lw.to_f32(z, dtype)]), dtype) for x, y, z in zip(a, b, c)]


_PREDICATES = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def _cmp(lw: Lowering, op, a, b):
    dtype = op.operands[0].dtype
    pred = _PREDICATES[op.attrs["predicate"]]
    if dtype.is_floating():
        cmp = lw.b.fcmp_unordered if pred == "!=" else lw.b.fcmp_ordered
        return [cmp(pred, lw.to_f32(x, dtype), lw.to_f32(y, dtype)) if dtype.is_bf16() else cmp(pred, x, y)
                for x, y in zip(a, b)]
    if dtype.is_ptr():
        return [lw.b.icmp_unsigned(pred, lw.b.ptrtoint(x, i64), lw.b.ptrtoint(y, i64)) for x, y in zip(a, b)]
    cmp = lw.b.icmp_signed if dtype.kind == "int" and not dtype.is_bool() else lw.b.icmp_unsigned
    return [cmp(pred, x, y) for x, y in zip(a, b)]


def _select(lw: Lowering, op, c, a, b):
    return [lw.b.select(p, x, y) for p, x, y in zip(c, a, b)]


# --8<-- [start:cast]
def cast_register(lw: Lowering, x, src: ir.DType, dst: ir.DType):
    """One register converted from `src` to `dst`, with the interpreter's semantics."""
    b = lw.b
    if src == dst:
        return x
    if src.is_ptr() or dst.is_ptr():
        if src.is_ptr() and dst.is_ptr():
            return x
        if src.is_ptr():
            return b.ptrtoint(x, ll_type(dst))
        return b.inttoptr(b.sext(x, i64) if src.bits < 64 else x, GLOBAL_PTR)
    if dst.is_bool():
        if src.is_floating():
            return b.fcmp_unordered("!=", lw.to_f32(x, src), ll.Constant(f32 if src != ir.float64 else f64, 0.0))
        return b.icmp_unsigned("!=", x, ll.Constant(x.type, 0))
    if src.is_floating() and dst.is_floating():
        if src.is_bf16() or dst.is_bf16():
            wide = lw.to_f32(x, src) if src != ir.float64 else b.fptrunc(x, f32)
            return lw.from_f32(wide, dst) if dst != ir.float64 else b.fpext(wide, f64)
        return b.fpext(x, ll_type(dst)) if dst.bits > src.bits else b.fptrunc(x, ll_type(dst))
    if src.is_floating():  # to an integer: round toward zero, saturating, NaN -> 0 (cvt.rzi)
        wide = lw.to_f32(x, src)
        kind = "fptosi" if dst.kind == "int" else "fptoui"
        name = f"llvm.{kind}.sat.i{dst.bits}.{'f64' if wide.type is f64 else 'f32'}"
        return lw.call(name, ll_type(dst), [wide])
    if dst.is_floating():
        signed = src.kind == "int" and not src.is_bool()
        target = f32 if dst.is_bf16() else ll_type(dst)
        wide = b.sitofp(x, target) if signed else b.uitofp(x, target)
        return lw.from_f32(wide, dst) if dst.is_bf16() else wide
    if dst.bits < src.bits:
        return b.trunc(x, ll_type(dst))
    if dst.bits > src.bits:
        return b.sext(x, ll_type(dst)) if src.kind == "int" and not src.is_bool() else b.zext(x, ll_type(dst))
    return x
# --8<-- [end:cast]


def _cast(lw: Lowering, op, a):
    src, dst = op.operands[0].dtype, op.result.dtype
    return [cast_register(lw, x, src, dst) for x in a]


def _bitcast(lw: Lowering, op, a):
    src, dst = op.operands[0].dtype, op.result.dtype
    if src.is_ptr() or dst.is_ptr():
        return [cast_register(lw, x, src, dst) for x in a]
    return [lw.b.bitcast(x, ll_type(dst)) for x in a]


def _addptr(lw: Lowering, op, p, offsets):
    pointee = ll_type(op.operands[0].dtype.pointee)
    if op.operands[0].dtype.pointee.is_bool():
        pointee = i8
    odt = op.operands[1].dtype
    wide = [o if odt.bits == 64 else (lw.b.sext(o, i64) if odt.kind == "int" else lw.b.zext(o, i64))
            for o in offsets]
    return [lw.b.gep(x, [o], source_etype=pointee) for x, o in zip(p, wide)]


def _barrier(lw: Lowering, op):
    lw.barrier()


# ---------------------------------------------------------------------------------------------------
# Memory: predicated, vectorized global loads and stores through inline PTX.
# ---------------------------------------------------------------------------------------------------

_CONSTRAINT = {16: "h", 32: "r", 64: "l"}


# --8<-- [start:words]
def _words(elem_bits: int, vec: int) -> tuple[int, int, str]:
    """How `vec` elements travel: (number of registers, bits per register, PTX type of the access)."""
    if elem_bits >= 32:
        return vec, elem_bits, f"b{elem_bits}"
    total = elem_bits * vec
    if total >= 32:
        return total // 32, 32, "b32"
    return 1, 16, "b16" if total == 16 else "u8"  # a byte travels in a 16-bit register
# --8<-- [end:words]


def _element_bits(lw: Lowering, v, dtype: ir.DType):
    """A register as the integer holding its bytes in memory (booleans are bytes)."""
    if dtype.is_bool():
        return lw.b.zext(v, i8)
    return v if isinstance(v.type, ll.IntType) else lw.b.bitcast(v, ll.IntType(dtype.bits))


def _pack(lw: Lowering, values: list, dtype: ir.DType, words: int, word_bits: int) -> list:
    """Element registers -> `words` integer registers of `word_bits` (the bytes in memory order)."""
    word = ll.IntType(word_bits)
    per_word = len(values) // words
    elem_bits = max(dtype.bits, 8)
    out = []
    for w in range(words):
        acc = None
        for k in range(per_word):
            bits = _element_bits(lw, values[w * per_word + k], dtype)
            bits = lw.b.zext(bits, word) if elem_bits < word_bits else bits
            acc = bits if acc is None else lw.b.or_(acc, lw.b.shl(bits, ll.Constant(word, k * elem_bits)))
        out.append(acc)
    return out


def _unpack(lw: Lowering, words: list, dtype: ir.DType, word_bits: int, vec: int) -> list:
    """The inverse of `_pack`."""
    elem_bits = max(dtype.bits, 8)
    per_word = vec // len(words)
    out = []
    for w in words:
        for k in range(per_word):
            bits = w if elem_bits == word_bits else \
                lw.b.trunc(lw.b.lshr(w, ll.Constant(w.type, k * elem_bits)), ll.IntType(elem_bits))
            if dtype.is_bool():
                out.append(lw.b.icmp_unsigned("!=", bits, ll.Constant(i8, 0)))
            elif isinstance(ll_type(dtype), ll.IntType):
                out.append(bits)
            else:
                out.append(lw.b.bitcast(bits, ll_type(dtype)))
    return out


# --8<-- [start:vector-width]
def vector_width(op, value) -> int:
    """How many elements one access of `op` moves: the width coalescing chose, cut down to what
    `value`'s layout keeps in consecutive registers along the same (contiguous) dimension."""
    width = op.attrs.get("vector", 1)
    layout = value.layout
    if width <= 1 or not isinstance(layout, BlockedLayout) or layout.order[0] != op.attrs.get("contig_dim"):
        return 1
    run = layout.contig_per_thread(value.shape)
    width = 1 << (width.bit_length() - 1)
    while run % width:
        width //= 2
    return width
# --8<-- [end:vector-width]


# --8<-- [start:load]
def _load(lw: Lowering, op, ptrs, mask=None, other=None):
    """Each group of `vector` consecutive registers is one predicated `ld.global` of up to 16 bytes."""
    dtype = op.result.dtype
    vec = vector_width(op, op.operands[0])
    n = len(ptrs)
    words, word_bits, width = _words(max(dtype.bits, 8), vec)
    out = []
    for start in range(0, n, vec):
        zero = [const(dtype, 0) if not dtype.is_bool() else ll.Constant(i1, 0)] * vec
        fallback = other[start:start + vec] if other is not None else zero
        fallback = _pack(lw, fallback, dtype, words, word_bits)
        pred = mask[start] if mask is not None else ll.Constant(i1, 1)
        letter = _CONSTRAINT[word_bits]
        dests = ", ".join(f"${i}" for i in range(words))
        vector = f".v{words}" if words > 1 else ""
        text = (f"@${words + 1} ld.global{vector}.{width} {{{dests}}}, [${words}];" if words > 1 else
                f"@${words + 1} ld.global.{width} ${0}, [${words}];")
        constraints = ",".join([f"={letter}"] * words + ["l", "b"] + [str(i) for i in range(words)])
        ret = ll.LiteralStructType([ll.IntType(word_bits)] * words) if words > 1 else ll.IntType(word_bits)
        result = lw.asm(ret, text, constraints, [ptrs[start], pred] + fallback)
        loaded = [lw.b.extract_value(result, i) for i in range(words)] if words > 1 else [result]
        out.extend(_unpack(lw, loaded, dtype, word_bits, vec))
    return out
# --8<-- [end:load]


def _store(lw: Lowering, op, ptrs, values, mask=None):
    """Predicated `st.global`, vectorized like loads; replicated elements are stored once."""
    value = op.operands[1]
    dtype = value.dtype
    vec = vector_width(op, op.operands[0])
    words, word_bits, width = _words(max(dtype.bits, 8), vec)
    if value.type.is_tile:
        owner = lw.owner_predicate(value.layout, value.shape)
        registers = set(lw.unique_registers(value.layout, value.shape))
    else:
        owner, registers = lw.b.icmp_unsigned("==", lw.tid, ll.Constant(i32, 0)), {0}
    letter = _CONSTRAINT[word_bits]
    for start in range(0, len(ptrs), vec):
        if start not in registers:
            continue
        pred = owner if mask is None else lw.b.and_(owner, mask[start])
        packed = _pack(lw, values[start:start + vec], dtype, words, word_bits)
        if words > 1:
            text = f"@${words + 1} st.global.v{words}.{width} [$0], {{{', '.join(f'${i + 1}' for i in range(words))}}};"
        else:
            text = f"@$2 st.global.{width} [$0], $1;"
        constraints = ",".join(["l"] + [letter] * words + ["b"])
        lw.asm(ll.VoidType(), text, constraints, [ptrs[start]] + packed + [pred])


# --8<-- [start:atomic]
_ATOM_OPS = {"add": "add", "max": "max", "min": "min", "xchg": "exch", "and": "and", "or": "or", "xor": "xor"}


def _atom_type(kind: str, dtype: ir.DType) -> str:
    if kind in ("xchg", "and", "or", "xor"):
        return f"b{dtype.bits}"
    if dtype.is_floating():
        return {"fp16": "noftz.f16", "bf16": "noftz.bf16", "fp32": "f32", "fp64": "f64"}[dtype.name]
    if kind == "add":
        return f"u{dtype.bits}" if dtype.bits != 32 or dtype.kind == "uint" else "s32"
    return f"{'s' if dtype.kind == 'int' else 'u'}{dtype.bits}"


def _ordering(op) -> str:
    return f".{op.attrs.get('sem', 'acq_rel')}.{op.attrs.get('scope', 'gpu')}"


def _owners(lw: Lowering, value: ir.Value):
    """(predicate, registers): which thread and registers perform an effect once per element."""
    if value.type.is_tile:
        return lw.owner_predicate(value.layout, value.shape), set(lw.unique_registers(value.layout, value.shape))
    return lw.b.icmp_unsigned("==", lw.tid, ll.Constant(i32, 0)), {0}


def _atomic(lw: Lowering, op, ptrs, values, mask=None):
    """One `atom.global` per element, in the thread that owns it; float max/min go through integer
    atomics; the old values then reach every thread that holds the element."""
    value = op.operands[1]
    dtype, kind = value.dtype, op.attrs["kind"]
    owner, registers = _owners(lw, value)
    bits = max(dtype.bits, 16)
    letter = _CONSTRAINT[bits] if not dtype.is_floating() or dtype.bits == 16 else {32: "f", 64: "d"}[bits]
    out = []
    for r, (p, v) in enumerate(zip(ptrs, values)):
        pred = owner if mask is None else lw.b.and_(owner, mask[r])
        if r not in registers:
            pred = ll.Constant(i1, 0)
        if dtype.is_floating() and kind in ("max", "min"):
            out.append(_float_minmax_atomic(lw, op, kind, dtype, p, v, pred))
            continue
        operand = lw.b.bitcast(v, i16) if dtype == ir.float16 else v
        text = f"@$3 atom{_ordering(op)}.global.{_ATOM_OPS[kind]}.{_atom_type(kind, dtype)} $0, [$1], $2;"
        zero = ll.Constant(operand.type, 0.0 if isinstance(operand.type, (ll.FloatType, ll.DoubleType)) else 0)
        old = lw.asm(operand.type, text, f"={letter},l,{letter},b,0", [p, operand, pred, zero])
        out.append(lw.b.bitcast(old, f16) if dtype == ir.float16 else old)
    return _share_results(lw, op, out)
# --8<-- [end:atomic]


def _share_results(lw: Lowering, op, registers: list) -> list:
    """Old values of an atomic are known in the owning thread; replicas read them from shared memory."""
    if "smem_offset" not in op.attrs:
        return registers
    from .tiles import through_shared_from_owners
    return through_shared_from_owners(lw, op, registers)


def _float_minmax_atomic(lw: Lowering, op, kind: str, dtype: ir.DType, p, v, pred):
    """max on floats: signed-int max of the bits for values >= 0, unsigned-int min for negatives."""
    if dtype.bits not in (32, 64):
        raise NotImplementedError(f"atomic_{kind} on {dtype}")
    it = ll.IntType(dtype.bits)
    bits = lw.b.bitcast(v, it)
    nonneg = lw.b.icmp_signed(">=", bits, ll.Constant(it, 0))
    letter = _CONSTRAINT[dtype.bits]
    first, second = ("max.s", "min.u") if kind == "max" else ("min.s", "max.u")
    results = []
    for ops, cond in ((first, nonneg), (second, lw.b.not_(nonneg))):
        text = f"@$3 atom{_ordering(op)}.global.{ops}{dtype.bits} $0, [$1], $2;"
        results.append(lw.asm(it, text, f"={letter},l,{letter},b,0",
                              [p, bits, lw.b.and_(pred, cond), ll.Constant(it, 0)]))
    return lw.b.bitcast(lw.b.select(nonneg, results[0], results[1]), ll_type(dtype))


def _atomic_cas(lw: Lowering, op, ptrs, cmps, values):
    value = op.operands[2]
    dtype = value.dtype
    owner, registers = _owners(lw, value)
    it = ll.IntType(max(dtype.bits, 16))
    letter = _CONSTRAINT[it.width]
    out = []
    for r, (p, c, v) in enumerate(zip(ptrs, cmps, values)):
        pred = owner if r in registers else ll.Constant(i1, 0)
        cb, vb = (lw.b.bitcast(x, it) if not isinstance(x.type, ll.IntType) else x for x in (c, v))
        text = f"@$4 atom{_ordering(op)}.global.cas.b{it.width} $0, [$1], $2, $3;"
        old = lw.asm(it, text, f"={letter},l,{letter},{letter},b,0", [p, cb, vb, pred, ll.Constant(it, 0)])
        out.append(old if isinstance(ll_type(dtype), ll.IntType) else lw.b.bitcast(old, ll_type(dtype)))
    return _share_results(lw, op, out)


# ---------------------------------------------------------------------------------------------------
# Control flow: regions become basic blocks; values that flow between them become phi nodes.
# ---------------------------------------------------------------------------------------------------

def _flatten(lw: Lowering, values: list) -> list:
    return [r for v in values for r in lw.get(v)]


def _split(lw: Lowering, like: list, flat: list) -> list[list]:
    out, i = [], 0
    for v in like:
        n = len(lw.get(v)) if id(v) in lw.regs else lw.n_regs(v)
        out.append(flat[i:i + n])
        i += n
    return out


# --8<-- [start:for]
def _for(lw: Lowering, op, lb, ub, step, *inits):
    """for iv in range(lb, ub, step): header phis carry iv and the loop's values. A 32-bit index is
    counted in 64 bits, so that stepping past the bound near 2**31 cannot wrap around."""
    b = lw.b
    body = op.regions[0]
    signed = op.operands[0].dtype.kind == "int"
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
    lw.set(body.args[0], [b.trunc(counter, lb[0].type) if narrow else counter])
    for arg, regs in zip(body.args[1:], _split_by_counts([len(r) for r in inits], phis)):
        lw.set(arg, regs)
    lw.block(_without_terminator(body))
    yielded = _flatten(lw, body.terminator.operands)
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
        return ("%lld" if dtype.kind == "int" else "%llu"), reg
    widened = b.sext(reg, i32) if dtype.kind == "int" and not dtype.is_bool() else b.zext(reg, i32)
    return ("%d" if dtype.kind == "int" and not dtype.is_bool() else "%u"), widened if dtype.bits < 32 else reg


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


# --8<-- [start:rules]
RULES = {
    "constant": _constant, "program_id": _program_id, "num_programs": _num_programs, "arange": _arange,
    "splat": _splat, "hint": _hint,
    "add": _binary("add", "add", "fadd"), "sub": _binary("sub", "sub", "fsub"),
    "mul": _binary("mul", "mul", "fmul"), "div": _div,
    "rem": _rem, "and": _binary("and_", "and_", None),
    "or": _binary("or_", "or_", None), "xor": _binary("xor", "xor", None),
    "shl": _binary("shl", "shl", None), "shr": _binary("ashr", "lshr", None),
    "minimum": _minmax("min"), "maximum": _minmax("max"), "umulhi": _umulhi,
    "neg": _neg, "not": _not, "abs": _abs, "fma": _fma, "pow": _pow,
    **{name: _math for name in MATH_F32},
    "cmp": _cmp, "select": _select, "cast": _cast, "bitcast": _bitcast, "addptr": _addptr,
    "load": _load, "store": _store, "atomic": _atomic, "atomic_cas": _atomic_cas,
    "for": _for, "if": _if, "while": _while, "print": _print, "assert": _assert, "barrier": _barrier,
}
# --8<-- [end:rules]


def lower(fn: ir.Function, num_warps: int, arch: str) -> str:
    """The LLVM module (text) for a kernel whose values all have layouts."""
    return Lowering(fn, num_warps, arch).lower()
