"""Moves chosen by values, not by layouts: `gather` and `histogram`, through shared memory.

Where an element goes depends on data only known when the kernel runs, so no register renumbering
can do it: both ops go through the op's buffer in shared memory (`passes.geometry.scratch_bytes`
sizes it). `gather` writes the whole source there and reads each result element at its index;
`histogram` counts into one int32 per bin with shared-memory atomics. Chapter: 08-llvm.
"""
from __future__ import annotations

from llvmlite import ir as ll

from .. import ir
from ..passes.geometry import row_major
from .lowering import Lowering, i32, i64
from .shared import dotted, element_ptrs, read, shared_at, write


def _as_i32(lw: Lowering, value, dtype: ir.DType):
    """An integer register as i32 (wider ones are truncated: only the low bits are used)."""
    width = value.type.width
    if width > 32:
        return lw.b.trunc(value, i32)
    if width < 32:
        return lw.b.sext(value, i32) if dtype.is_int_signed() else lw.b.zext(value, i32)
    return value


# --8<-- [start:gather]
def _gather(lw: Lowering, op, src_registers, index_registers):
    """Write the source at its row-major places, wait, then read each result element at its own
    index with the axis's coordinate replaced by the gathered index (masked into the axis: an index
    outside it reads some element rather than outside the buffer; the interpreter refuses it)."""
    src, index = op.operands
    axis, dtype, strides = op.attrs["axis"], src.dtype, row_major(src.shape)
    written = element_ptrs(lw, op, src.layout, src.shape, strides, dtype)
    for r in lw.unique_registers(src.layout, src.shape):
        write(lw, written[r], src_registers[r], dtype)
    lw.barrier()
    result = []
    for position, i in zip(lw.indices(op.result.layout, op.result.shape), index_registers):
        at = list(position)
        at[axis] = lw.b.and_(_as_i32(lw, i, index.dtype), ll.Constant(i32, src.shape[axis] - 1))
        result.append(read(lw, shared_at(lw, op, dotted(lw, at, strides), dtype), dtype))
    return result
# --8<-- [end:gather]


# --8<-- [start:histogram]
def _histogram(lw: Lowering, op, values, mask=None):
    """Zero one counter per bin, wait; each element's owner adds one to its bin (when it is in
    [0, bins) and its mask holds), wait; then every thread reads the bins it holds."""
    B = lw.b
    x, bins = op.operands[0], op.attrs["bins"]
    threads = 32 * lw.num_warps
    for first in range(0, bins, threads):
        at = B.add(lw.tid, ll.Constant(i32, first))
        with B.if_then(B.icmp_unsigned("<", at, ll.Constant(i32, bins))):
            write(lw, shared_at(lw, op, at, ir.int32), ll.Constant(i32, 0), ir.int32)
    lw.barrier()
    owner = lw.owner_predicate(x.layout, x.shape)
    wide = i64 if x.dtype.bits == 64 else i32
    for r in lw.unique_registers(x.layout, x.shape):
        value = values[r]
        if value.type != wide:
            value = B.sext(value, wide) if x.dtype.is_int_signed() else B.zext(value, wide)
        # negatives are huge
        counted = B.and_(owner, B.icmp_unsigned("<", value, ll.Constant(wide, bins)))
        if mask is not None:
            counted = B.and_(counted, mask[r])
        with B.if_then(counted):
            bin_ = B.trunc(value, i32) if wide == i64 else value
            B.atomic_rmw("add", shared_at(lw, op, bin_, ir.int32), ll.Constant(i32, 1), "monotonic")
    lw.barrier()
    bins_held = lw.indices(op.result.layout, op.result.shape)
    return [read(lw, shared_at(lw, op, index[0], ir.int32), ir.int32) for index in bins_held]
# --8<-- [end:histogram]


RULES = {"gather": _gather, "histogram": _histogram}
