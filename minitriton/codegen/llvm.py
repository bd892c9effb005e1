"""Per-thread LLVM IR from tile IR with layouts: the rule tables put together, and `lower`.

Each op is lowered by one rule (tinygrad-style: a table from op name to a function, no if-chain),
and the rules live by idea, one module each:

- `elementwise`: arithmetic, math, comparisons, conversions, register by register (with 16-bit
  floats legalized to f32 in one place), and the ops that make a tile from nothing;
- `memory`: global loads and stores (predicated, vectorized) and atomics;
- `movement`: layout conversions and shape ops, join and split, reductions and scans (through
  `shared`, the shared-memory round trip, where elements change threads);
- `indexed`: the moves that runtime values choose, gather and histogram;
- `operands` and `dot`: the tensor cores' operands in shared memory, and dot itself;
- `inline`: the author's own code per element, inline PTX and mapped scalar functions;
- `control`: loops and branches, printing, assertions, barriers.

`lowering.Lowering` walks the kernel with this table. The output is the text of an LLVM module
with one `ptx_kernel` function, which `codegen/ptx.py` turns into PTX. Chapter: 08-llvm.
"""
from __future__ import annotations

from llvmlite import ir as ll

from .. import ir
from . import control, dot, elementwise, indexed, inline, memory, movement, operands, tma
from .lowering import Lowering

# --8<-- [start:rules]
RULES = {**elementwise.RULES, **memory.RULES, **movement.RULES, **indexed.RULES, **operands.RULES,
         **tma.RULES, **dot.RULES,
         **inline.RULES, **control.RULES}
# --8<-- [end:rules]
assert set(RULES) == set(ir.OPS) - set(ir.TERMINATORS), "one lowering rule per op"


def lower(fn: ir.Function, num_warps: int, arch: str, maxnreg: int | None = None) -> str:
    """The LLVM module (text) for a kernel whose values all have layouts."""
    lowering = Lowering(fn, num_warps, arch, RULES)
    bound_threads(lowering.module, lowering.kernel, 32 * num_warps)
    tma.grid_constants(lowering)
    if maxnreg is not None:
        limit_registers(lowering.module, lowering.kernel, maxnreg)
    return lowering.lower()


# --8<-- [start:maxntid]
def bound_threads(module: ll.Module, kernel: ll.Function, threads: int) -> None:
    """Tell ptxas that `kernel` runs at most `threads` threads per block (PTX `.maxntid`; Triton
    gives the exact count, `.reqntid`). ptxas then keeps each thread within the registers that many
    threads can share (65536 / threads: 128 at 16 warps), spilling the rest; without the bound it
    may take up to 255, and a launch of 512 threads is refused ("too many resources requested")."""
    module.add_named_metadata("nvvm.annotations", [kernel, ll.MetaDataString(module, "maxntidx"),
                                                   ll.Constant(ll.IntType(32), threads)])
# --8<-- [end:maxntid]


# --8<-- [start:maxnreg]
def limit_registers(module: ll.Module, kernel: ll.Function, maxnreg: int) -> None:
    """Allow `kernel` at most `maxnreg` registers per thread (Triton's `maxnreg` option).

    The limit is an annotation, not code: NVPTX writes it as `.maxnreg` on the kernel's entry, and
    ptxas (or the driver, loading PTX) then allocates within it, spilling what does not fit to
    local memory. The instructions LLVM emits stay the same; only register allocation changes."""
    module.add_named_metadata("nvvm.annotations", [kernel, ll.MetaDataString(module, "maxnreg"),
                                                   ll.Constant(ll.IntType(32), maxnreg)])
# --8<-- [end:maxnreg]
