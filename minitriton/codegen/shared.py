"""Shared-memory access: where each register's element sits in an op's buffer, and the round trip.

An op that moves elements between threads has a buffer in shared memory (`attrs["smem_offset"]`,
placed by `passes/shared`). Every thread writes what it holds at the element's place, waits at a
barrier, and reads what it needs. This module computes those places: row-major by default, at one
runtime term per thread plus one constant per register wherever the layout allows it (`_places`),
else with the index arithmetic in full; and it does the round trip itself (`through_shared`,
`through_shared_from_owners`). Chapter: 08-llvm.
"""
from __future__ import annotations

from llvmlite import ir as ll

from .. import ir
from ..passes.geometry import conversion_rounds, conversion_strides, row_major
from .lowering import Lowering, i8, i32, ll_type


def storage_type(dtype: ir.DType) -> ll.Type:
    """How a register of `dtype` is stored: as itself, but a boolean as a byte."""
    return i8 if dtype.is_bool() else ll_type(dtype)


def dotted(lw: Lowering, index: list, strides) -> ll.Value:
    """sum(index[d] * strides[d]) of a runtime index."""
    total = ll.Constant(i32, 0)
    for i, stride in zip(index, strides):
        total = lw.b.add(total, lw.b.mul(i, ll.Constant(i32, stride)) if stride != 1 else i)
    return total


def shared_at(lw: Lowering, op, element: ll.Value, dtype: ir.DType, base: int = 0):
    """A pointer to element `element` (runtime) of `dtype` in `op`'s buffer, `base` bytes in."""
    size = dtype.itemsize
    offset = lw.b.add(ll.Constant(i32, op.attrs.get("smem_offset", 0) + base),
                      lw.b.mul(element, ll.Constant(i32, size)))
    return lw.shared_ptr(offset)


def write(lw, ptr, value, dtype):
    lw.b.store(lw.b.zext(value, i8) if dtype.is_bool() else value, ptr)


def read(lw, ptr, dtype):
    v = lw.b.load(ptr, typ=storage_type(dtype))
    return lw.b.icmp_unsigned("!=", v, ll.Constant(i8, 0)) if dtype.is_bool() else v


def index_map(lw: Lowering, to_src, index: list, src_rank: int, dst_shape) -> list:
    """Apply a bit-linear index map (`passes.geometry.index_map`) to a runtime index: each bit of
    each dimension maps on its own."""
    result = [ll.Constant(i32, 0)] * src_rank
    for d, (value, size) in enumerate(zip(index, dst_shape)):
        for bit in range(size.bit_length() - 1):
            unit = [0] * len(dst_shape)
            unit[d] = 1 << bit
            image = to_src(tuple(unit))
            on = lw.b.and_(lw.b.lshr(value, ll.Constant(i32, bit)), ll.Constant(i32, 1))
            for sd, amount in enumerate(image):
                if amount:
                    result[sd] = lw.b.or_(result[sd], lw.b.mul(on, ll.Constant(i32, amount)))
    return result


# --8<-- [start:places]
def _image(to_src, index, shape, src_rank: int) -> list[int]:
    """`index_map` on a compile-time index: the OR of the images of its set bits."""
    out = [0] * src_rank
    for d, (value, size) in enumerate(zip(index, shape)):
        for bit in range(size.bit_length() - 1):
            if value >> bit & 1:
                unit = [0] * len(shape)
                unit[d] = 1 << bit
                out = [o | a for o, a in zip(out, to_src(tuple(unit)))]
    return out


def _places(lw: Lowering, layout, shape, strides, to_src=None, src_rank=None):
    """Where each register's element goes in a buffer with `strides` (over the source index that
    `to_src` maps it to): one runtime term per thread plus one constant per register. A layout
    builds an index by OR-ing lane, warp and register bits; where the thread's bits and the
    registers' bits never meet in a dimension, OR is addition and the position splits. Returns
    (thread term, constants), or None where the bits meet."""
    src_rank = len(shape) if src_rank is None else src_rank
    if to_src is None:
        image = lambda index: list(index)  # noqa: E731
    else:
        image = lambda index: _image(to_src, index, shape, src_rank)  # noqa: E731
    thread_bits, register_bits = [0] * src_rank, [0] * src_rank
    for basis in layout.lane_bases(shape) + layout.warp_bases(shape):
        thread_bits = [t | b for t, b in zip(thread_bits, image(basis))]
    constants = [image(offset) for offset in layout.register_offsets(shape)]
    for c in constants:
        register_bits = [r | b for r, b in zip(register_bits, c)]
    if any(t & r for t, r in zip(thread_bits, register_bits)):
        return None
    parts = lw.thread_part(layout, shape)
    if to_src is not None:
        parts = index_map(lw, to_src, parts, src_rank, shape)
    thread = dotted(lw, parts, strides)
    return thread, [sum(i * s for i, s in zip(c, strides)) for c in constants]


def element_ptrs(lw: Lowering, op, layout, shape, strides, dtype, base: int = 0, to_src=None,
                 src_rank=None):
    """A shared-memory pointer per register of (`layout`, `shape`), into the op's buffer + `base`
    bytes, at the element's place under `strides`: two instructions a register where `_places`
    splits, else the index arithmetic in full."""
    size = dtype.itemsize
    start = op.attrs.get("smem_offset", 0) + base
    split = _places(lw, layout, shape, strides, to_src, src_rank)
    if split is not None:
        thread, constants = split
        first = lw.b.add(ll.Constant(i32, start), lw.b.mul(thread, ll.Constant(i32, size)))
        return [lw.shared_ptr(lw.b.add(first, ll.Constant(i32, c * size)) if c else first)
                for c in constants]
    indices = lw.indices(layout, shape)
    if to_src is not None:
        indices = [index_map(lw, to_src, index, src_rank, shape) for index in indices]
    return [shared_at(lw, op, dotted(lw, index, strides), dtype, base) for index in indices]
# --8<-- [end:places]


# --8<-- [start:through_shared]
def through_shared(lw: Lowering, op, registers, src: ir.Value, dst_layout, dst_shape, to_src) -> list:
    """Move elements between threads: write every held element at its row-major place in the
    source shape, wait at a barrier, read each needed element from `to_src(index)`. A big
    conversion goes in rounds (`conversion_rounds`), a band of rows at a time through a buffer
    of one band: each register's band is known at compile time."""
    dtype, strides = src.dtype, conversion_strides(op)
    rounds = conversion_rounds(op)  # more than 1 only for a convert_layout: to_src is the identity
    band = src.shape[0] // rounds
    written_band, read_band = [[o[0] // band if rounds > 1 else 0 for o in layout.register_offsets(shape)]
                               for layout, shape in ((src.layout, src.shape), (dst_layout, dst_shape))]
    out = [None] * len(read_band)
    for c in range(rounds):
        shift = -c * band * strides[0] * dtype.itemsize  # band c at the buffer's start
        if c:
            lw.barrier()  # the band before has been read
        written = element_ptrs(lw, op, src.layout, src.shape, strides, dtype, base=shift)
        for r in lw.unique_registers(src.layout, src.shape):
            if written_band[r] == c:
                write(lw, written[r], registers[r], dtype)
        lw.barrier()
        read_at = element_ptrs(lw, op, dst_layout, dst_shape, strides, dtype, base=shift,
                               to_src=to_src, src_rank=len(src.shape))
        for r, ptr in enumerate(read_at):
            if read_band[r] == c:
                out[r] = read(lw, ptr, dtype)
    return out
# --8<-- [end:through_shared]


def through_shared_from_owners(lw: Lowering, op, registers: list) -> list:
    """Each element's owner writes it; after a barrier every thread holding the element reads it
    (the old values of an atomic, which only the thread that made the access knows)."""
    value = op.result
    dtype = value.dtype
    if not value.type.is_tile:
        with lw.b.if_then(lw.b.icmp_unsigned("==", lw.tid, ll.Constant(i32, 0))):
            write(lw, shared_at(lw, op, ll.Constant(i32, 0), dtype), registers[0], dtype)
        lw.barrier()
        return [read(lw, shared_at(lw, op, ll.Constant(i32, 0), dtype), dtype)]
    owner = lw.owner_predicate(value.layout, value.shape)
    ptrs = element_ptrs(lw, op, value.layout, value.shape, row_major(value.shape), dtype)
    for r in lw.unique_registers(value.layout, value.shape):
        with lw.b.if_then(owner):
            write(lw, ptrs[r], registers[r], dtype)
    lw.barrier()
    return [read(lw, ptr, dtype) for ptr in ptrs]
