"""The lowering core: one thread's LLVM IR, built with llvmlite, from tile IR with layouts.

A tile value becomes the list of this thread's registers, in the order its layout numbers them
(`layouts.DistributedLayout.register_offsets`); a scalar is one register every thread holds.
`Lowering` holds the LLVM builder and the registers of every IR value, and walks the kernel's
blocks, lowering each op by its rule: a function from the op and its operands' registers to its
results' registers. The rules live in the modules beside this one, one idea each (elementwise,
global memory, shared memory, moves between threads, dot, control flow); `codegen/llvm.py` puts
their tables together. Here are the helpers every rule uses: LLVM types and constants, intrinsics
and inline PTX, each register's index in its tile, and the owner of a replicated element.
Chapter: 08-llvm.
"""
from __future__ import annotations

import functools
from typing import Callable

from llvmlite import ir as ll

from .. import ir
from ..floats import float_bits
from ..passes.coalesce import AxisAnalysis

i1, i8, i16, i32, i64 = (ll.IntType(n) for n in (1, 8, 16, 32, 64))
f16, f32, f64 = ll.HalfType(), ll.FloatType(), ll.DoubleType()
GLOBAL_PTR = ll.PointerType(addrspace=1)
SHARED_PTR = ll.PointerType(addrspace=3)
GENERIC_PTR = ll.PointerType()
TENSORMAP = ll.PointerType(ll.ArrayType(ll.IntType(8), 128))  # a CUtensorMap, passed by value

# --8<-- [start:types]
# The LLVM type of each dtype's registers is a column of the dtype table (`dtypes.TABLE`): bf16 and
# the fp8s have no LLVM type in llvmlite, so their values travel as their bit patterns; arithmetic
# on bf16 is done in f32 and rounded back (see `elementwise.apply`), as the interpreter does, and
# the frontend computes fp8 in fp32 (see `codegen/fp8.py`).
LLVM_TYPES = {"i1": i1, "i8": i8, "i16": i16, "i32": i32, "i64": i64, "half": f16, "float": f32,
              "double": f64, "ptr addrspace(1)": GLOBAL_PTR}


def ll_type(dtype: ir.DType) -> ll.Type:
    return LLVM_TYPES[dtype.facts.llvm]


def const(dtype: ir.DType, value) -> ll.Constant:
    """A constant register of `dtype` (a bf16 or fp8 rounded to its nearest, as the interpreter
    rounds)."""
    if dtype.stored_as_bits:
        return ll.Constant(ll_type(dtype), int(float_bits(value, dtype)))
    if dtype.is_floating():
        return ll.Constant(ll_type(dtype), float(value))
    if dtype.is_ptr():
        return ll.Constant(GLOBAL_PTR, None)
    return ll.Constant(ll_type(dtype), int(value) & ((1 << dtype.bits) - 1))
# --8<-- [end:types]


Rule = Callable[..., list]  # (lowering, op, *operand registers) -> result registers


class Lowering:
    """Lowers one kernel; holds the LLVM builder, the registers of every IR value, and helpers."""

    # --8<-- [start:lowering]
    def __init__(self, fn: ir.Function, num_warps: int, arch: str, rules: dict[str, Rule]):
        self.fn, self.num_warps, self.arch, self.rules = fn, num_warps, arch, rules
        self.capability = int(arch[3:].rstrip("a"))  # "sm_90a" -> 90: which instructions exist
        self.module = ll.Module(name=fn.name)
        self.module.triple = "nvptx64-nvidia-cuda"
        self.regs: dict[int, list] = {}
        self.intrinsics: dict[str, ll.Function] = {}
        self.thread_parts: dict = {}
        self.equal_runs: dict = {}  # (layout, shape, constancy) -> `equal_registers`
        self.strings = 0
        self.rounded_from: dict[int, tuple] = {}  # id of a 16-bit register -> (its f32, its dtype)
        # after the arguments, the tensor maps of the descriptors TMA copies read (`codegen/tma`)
        maps = list(fn.attrs.get("tensormaps", ()))
        args = [ll_type(a.dtype) for a in fn.args] + [TENSORMAP] * len(maps)
        kernel = ll.Function(self.module, ll.FunctionType(ll.VoidType(), args), fn.name)
        kernel.calling_convention = "ptx_kernel"
        for arg, value in zip(kernel.args, fn.args):
            arg.name = value.name
            self.regs[id(value)] = [arg]
        self.tensormaps = dict(zip(maps, kernel.args[len(fn.args):]))
        for name, arg in self.tensormaps.items():
            arg.name = name
            arg.attributes.add("byval")  # 128 bytes in the parameter space, where TMA reads them
            arg.attributes.align = 64
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
        self._in_prologue = False
    # --8<-- [end:lowering]

    @functools.cached_property
    def uniform_warp(self):
        """The warp's number read from lane 0 by a shuffle. Every lane has it already; after the
        shuffle ptxas knows they agree, and keeps what is computed from it alone (a warpgroup's
        wgmma descriptors) in uniform registers, once a warp. Index arithmetic keeps `warp`,
        which LLVM can fold with the lane (`tid >> 5` and `tid & 31` make `tid` again)."""
        return self.in_prologue(lambda: self.b.call(
            self.intrinsic("llvm.nvvm.shfl.sync.idx.i32", i32, [i32] * 4),
            [ll.Constant(i32, -1), self.warp, ll.Constant(i32, 0), ll.Constant(i32, 31)], name="uniform_warp"))

    def in_prologue(self, make):
        """Emit `make()` in the entry block, so that its values dominate every later block."""
        if self._in_prologue:  # already there (a nested call)
            return make()
        here = self.b.block
        self.b.position_before(self.prologue_end)
        self._in_prologue = True
        try:
            return make()
        finally:
            self._in_prologue = False
            self.b.position_at_end(here)

    # -- the walk ----------------------------------------------------------------------------------
    def lower(self) -> str:
        self.block(self.fn.body)
        self.b.ret_void()
        return str(self.module)

    def block(self, block: ir.Block) -> None:
        """Lower each op of `block` by its rule; a region op's rule returns a list per result."""
        for op in block.ops:
            rule = self.rules.get(op.name)
            assert rule is not None, f"no lowering rule for op {op.name!r}"
            try:
                results = rule(self, op, *[self.get(v) for v in op.operands])
            except Exception as error:  # where it failed, for the error the backend reports
                if not hasattr(error, "minitriton_loc"):
                    error.minitriton_loc = op.loc
                raise
            if op.results:
                if len(op.results) == 1 and op.name not in ir.REGION_OPS:
                    results = [results]
                for value, registers in zip(op.results, results):
                    self.set(value, registers)

    def get(self, v: ir.Value) -> list:
        return self.regs[id(v)]

    def set(self, v: ir.Value, registers: list) -> None:
        self.regs[id(v)] = list(registers)

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

    def to_f32(self, x, dtype: ir.DType):
        """A 16-bit float register widened to f32 (bf16: its bits are f32's top half)."""
        if dtype.is_bf16():
            return self.b.bitcast(self.b.shl(self.b.zext(x, i32), ll.Constant(i32, 16)), f32)
        if dtype == ir.float16:
            return self.b.fpext(x, f32)
        return x

    def from_f32(self, x, dtype: ir.DType):
        """An f32 register rounded to a 16-bit float (to nearest, ties to even). Which f32 each
        rounded register came from is remembered, so that two of them packed into one word
        (`pack_pair`) can be rounded by one instruction."""
        if dtype.is_bf16():
            rounded = self.asm(i16, "cvt.rn.bf16.f32 $0, $1;", "=h,f", [x], side_effect=False)
        elif dtype == ir.float16:
            rounded = self.b.fptrunc(x, f16)
        else:
            return x
        self.rounded_from[id(rounded)] = (x, dtype)
        return rounded

    # --8<-- [start:pack-pair]
    def pack_pair(self, low, high):
        """Two 16-bit registers in one 32-bit word, `low` in the low bits. Where both were rounded
        from f32 to the same type, one `cvt.rn.f16x2.f32` (or `.bf16x2`) rounds and packs them: one
        instruction where there were four (Triton packs attention's P this way)."""
        (lo, lo_type), (hi, hi_type) = (self.rounded_from.get(id(r), (None, None))
                                        for r in (low, high))
        if lo is not None and hi is not None and lo_type == hi_type and self.capability >= 80:
            kind = "bf16x2" if lo_type.is_bf16() else "f16x2"
            return self.asm(i32, f"cvt.rn.{kind}.f32 $0, $1, $2;", "=r,f,f", [hi, lo],
                            side_effect=False)
        bits = [self.b.zext(r if isinstance(r.type, ll.IntType) else self.b.bitcast(r, i16), i32)
                for r in (low, high)]
        return self.b.or_(bits[0], self.b.shl(bits[1], ll.Constant(i32, 16)))
    # --8<-- [end:pack-pair]

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

    def n_regs(self, v: ir.Value) -> int:
        return v.layout.registers_per_thread(v.shape) if v.type.is_tile else 1

    # -- owners: which copy of a replicated element acts ---------------------------------------------
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

    # --8<-- [start:equal-registers]
    def equal_registers(self, value: ir.Value) -> list[int] | None:
        """For each register of `value`, the first of this thread's registers certain to hold the
        same element value: those in one aligned run of equal elements along every dimension (the
        axis facts' constancy, chapter 5). An elementwise op computes the first and copies it.
        None where no two are known equal."""
        facts = self.axis_facts.facts.get(id(value))
        if not value.type.is_tile or facts is None or max(facts.constancy) == 1:
            return None
        constancy = facts.constancy
        key = (value.layout, tuple(value.shape), constancy)
        if key not in self.equal_runs:
            first: dict[tuple, int] = {}  # run -> its first register
            runs = [tuple(i // c for i, c in zip(offsets, constancy))
                    for offsets in value.layout.register_offsets(value.shape)]
            self.equal_runs[key] = [first.setdefault(run, r) for r, run in enumerate(runs)]
        return self.equal_runs[key]

    @functools.cached_property
    def axis_facts(self) -> AxisAnalysis:
        return AxisAnalysis(self.fn)
    # --8<-- [end:equal-registers]

    def owners(self, value: ir.Value):
        """(predicate, registers): which thread and registers perform an effect once per element
        of `value` (a scalar's: thread 0)."""
        if value.type.is_tile:
            return self.owner_predicate(value.layout, value.shape), set(self.unique_registers(value.layout, value.shape))
        return self.b.icmp_unsigned("==", self.tid, ll.Constant(i32, 0)), {0}
