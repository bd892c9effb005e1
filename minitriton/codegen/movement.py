"""Moving elements between threads: layout conversions, shape ops, reductions and scans.

Each move first asks whether it stays inside every thread: if the destination layout's lanes and
warps index the same elements as the source's (`passes.geometry.register_map`), the op is a
renumbering of registers and costs nothing. Otherwise the elements go through shared memory
(`codegen/shared.py`). A conversion to a tensor-core operand goes its own way (`operands.py`).
Reductions fold inside a thread, then across lanes with `shfl.sync.bfly`, then across warps through
shared memory; scans go through shared memory. Chapter: 08-llvm.
"""
from __future__ import annotations

from llvmlite import ir as ll

from .. import ir
from ..passes.geometry import (component_offsets, components, drop, index_map, ldmatrix_operand, reduce_partials,
                               register_map, row_major)
from .elementwise import apply
from .lowering import Lowering, f32, f64, i32, i64
from .operands import to_mma_operand
from .shared import dotted, element_ptrs, read, shared_at, through_shared, write


def _move(lw: Lowering, op, x):
    """An op that only moves elements (`passes.geometry.MOVES`): registers renumbered where every
    thread holds what it needs, else the round trip through shared memory."""
    src, dst = op.operands[0], op.result
    to_src = index_map(op)
    mapping = register_map(src.layout, src.shape, dst.layout, dst.shape, to_src)
    if mapping is not None:
        return [x[r] for r in mapping]
    return through_shared(lw, op, x, src, dst.layout, dst.shape, to_src)


def _convert_layout(lw: Lowering, op, x):
    if ldmatrix_operand(op) is not None:
        return to_mma_operand(lw, op, x)
    return _move(lw, op, x)


# --8<-- [start:pairs]
def _pair_registers(op) -> list[int]:
    """For each register of a join's result (a split's operand), the register of the same thread
    that holds its element in a half: the layout pass lays pairs out so that there always is one."""
    joined, half = (op.result, op.operands[0]) if op.name == "join" else (op.operands[0], op.results[0])
    mapping = register_map(half.layout, half.shape, joined.layout, joined.shape, drop(len(half.shape)))
    assert mapping is not None, f"{op.name}: a pair is divided between threads"
    return mapping


def _join(lw: Lowering, op, a, b):
    """Each register of the result is a register of `a` or `b` (by its last index): no
    instruction."""
    offsets = op.result.layout.register_offsets(op.result.shape)
    return [(b if offset[-1] else a)[r] for r, offset in zip(_pair_registers(op), offsets)]


def _split(lw: Lowering, op, x):
    """join's inverse: each half's registers are some of the operand's."""
    joined, half = op.operands[0], op.results[0]
    _pair_registers(op)
    where = {}
    for r, offset in enumerate(joined.layout.register_offsets(joined.shape)):
        where.setdefault(tuple(offset), r)
    return [[x[where[tuple(offset) + (k,)]] for offset in half.layout.register_offsets(half.shape)]
            for k in (0, 1)]
# --8<-- [end:pairs]


# The elementwise op that combines two partial results of each kind of reduction and scan.
COMBINE_OPS = {"sum": "add", "prod": "mul", "max": "maximum", "min": "minimum", "xor": "xor", "and": "and",
               "or": "or"}


def _combine(lw: Lowering, kind: str, dtypes: list[ir.DType], a: tuple, b: tuple,
             region: ir.Block | None = None) -> tuple:
    """Combine two partial results, each a tuple of components (`passes.geometry.components`): for
    argmax/argmin a (value, index) pair whose ties keep the lower index (a NaN loses, as in `max`);
    for "combine" the user's function, lowered again wherever two partials meet, on the left's
    components then the right's."""
    B = lw.b
    if kind == "combine":
        for arg, value in zip(region.args, a + b):
            lw.set(arg, [value])
        lw.block(ir.Block(region.args, region.ops[:-1]))
        return tuple(lw.get(v)[0] for v in region.ops[-1].operands)
    if kind in ("argmax", "argmin"):
        (va, ia), (vb, ib), dtype = a, b, dtypes[0]
        fa, fb = lw.to_f32(va, dtype) if dtype.is_floating() else va, lw.to_f32(vb, dtype) if dtype.is_floating() else vb
        if dtype.is_floating():
            better = B.fcmp_ordered(">" if kind == "argmax" else "<", fb, fa)
            equal = B.fcmp_ordered("==", fb, fa)
        else:
            cmp = B.icmp_signed if dtype.is_int_signed() else B.icmp_unsigned
            better = cmp(">" if kind == "argmax" else "<", fb, fa)
            equal = cmp("==", fb, fa)
        take_b = B.or_(better, B.and_(equal, B.icmp_signed("<", ib, ia)))
        if dtype.is_floating():  # a NaN loses to every number; between two NaN the lower index
            nan_a, nan_b = B.fcmp_unordered("uno", fa, fa), B.fcmp_unordered("uno", fb, fb)
            take_b = B.or_(take_b, B.and_(nan_a, B.or_(B.not_(nan_b), B.icmp_signed("<", ib, ia))))
        return B.select(take_b, vb, va), B.select(take_b, ib, ia)
    return (apply(lw, COMBINE_OPS[kind], None, dtypes[0], a[0], b[0]),)


def _shuffle_xor(lw: Lowering, value, mask: int):
    """The value lane `lane ^ mask` holds (every type goes through 32-bit shuffles)."""
    B = lw.b
    full = ll.Constant(i32, 0xFFFFFFFF)
    t = value.type
    if t == i64 or t == f64:
        bits = B.bitcast(value, i64) if t == f64 else value
        lo, hi = B.trunc(bits, i32), B.trunc(B.lshr(bits, ll.Constant(i64, 32)), i32)
        lo, hi = (lw.call("llvm.nvvm.shfl.sync.bfly.i32", i32, [full, v, ll.Constant(i32, mask), ll.Constant(i32, 31)])
                  for v in (lo, hi))
        joined = B.or_(B.zext(lo, i64), B.shl(B.zext(hi, i64), ll.Constant(i64, 32)))
        return B.bitcast(joined, f64) if t == f64 else joined
    if t == f32:
        return lw.call("llvm.nvvm.shfl.sync.bfly.f32", f32, [full, value, ll.Constant(i32, mask), ll.Constant(i32, 31)])
    if t == i32:
        return lw.call("llvm.nvvm.shfl.sync.bfly.i32", i32, [full, value, ll.Constant(i32, mask), ll.Constant(i32, 31)])
    bits = B.bitcast(value, ll.IntType(t.width if isinstance(t, ll.IntType) else 16)) \
        if not isinstance(t, ll.IntType) else value
    wide = B.zext(bits, i32)
    out = B.trunc(lw.call("llvm.nvvm.shfl.sync.bfly.i32", i32, [full, wide, ll.Constant(i32, mask),
                                                               ll.Constant(i32, 31)]), bits.type)
    return out if isinstance(t, ll.IntType) else B.bitcast(out, t)


# --8<-- [start:reduce]
def _reduce(lw: Lowering, op, *xs):
    """Fold in each thread, then across lanes by butterfly shuffles, then across warps in shared
    memory. A partial result is a tuple of components: one per operand, or an argmax's (value,
    index)."""
    src = op.operands[0]
    axis, kind = op.attrs["axis"], op.attrs["kind"]
    region = op.regions[0] if op.regions else None
    dtypes = components(op)
    layout, shape = src.layout, src.shape
    offsets = layout.register_offsets(shape)
    indices = lw.indices(layout, shape) if kind in ("argmax", "argmin") else None
    # 1. In-thread: registers that differ only along the axis fold together.
    groups: dict[tuple, tuple] = {}
    for r in lw.unique_registers(layout, shape):
        key = drop(axis)(offsets[r])
        value = (xs[0][r], indices[r][axis]) if indices else tuple(x[r] for x in xs)
        groups[key] = value if key not in groups else _combine(lw, kind, dtypes, groups[key], value,
                                                               region)
    # 2. Across lanes: one butterfly step per lane bit that moves along the axis.
    for mask in layout.lane_masks_along(axis, shape):
        groups = {k: _combine(lw, kind, dtypes, v, tuple(_shuffle_xor(lw, c, mask) for c in v), region)
                  for k, v in groups.items()}
    # 3. Across warps: partial results meet in shared memory.
    warp_masks = layout.warp_masks_along(axis, shape)
    if warp_masks:
        groups = _across_warps(lw, op, groups, warp_masks, dtypes, layout, shape, axis, region)
    # 4. Registers in the order of the result's (slice) layout: an argmax keeps only its index.
    result = op.results[0]
    picked = list(groups.values()) if not result.type.is_tile else \
        [groups[tuple(o)] for o in result.layout.register_offsets(result.shape)]
    if indices:
        return [v[1] for v in picked]
    per_result = [[v[c] for v in picked] for c in range(len(xs))]
    return per_result if len(xs) > 1 else per_result[0]
# --8<-- [end:reduce]


def _across_warps(lw: Lowering, op, groups, warp_masks, dtypes, layout, shape, axis, region=None):
    """Each warp writes its partials (every component in its own part of the buffer), then every
    thread folds the partials of the elements it holds."""
    B = lw.b
    out_shape = drop(axis)(shape)
    count = 1
    for s in out_shape:
        count *= s
    slot = ll.Constant(i32, 0)  # this warp's position among the warps along the axis
    for k, mask in enumerate(warp_masks):
        on = B.and_(B.lshr(lw.warp, ll.Constant(i32, mask.bit_length() - 1)), ll.Constant(i32, 1))
        slot = B.or_(slot, B.shl(on, ll.Constant(i32, k)))
    parts = lw.thread_part(layout, shape)
    bases, _ = component_offsets(op, reduce_partials(op))
    positions = {}
    for key, value in groups.items():
        element_index = [B.or_(p, ll.Constant(i32, o)) if o else p for p, o in zip(drop(axis)(parts), key)]
        position = dotted(lw, element_index, row_major(out_shape)) if out_shape else ll.Constant(i32, 0)
        positions[key] = position
        at = B.add(B.mul(slot, ll.Constant(i32, count)), position)
        for component, dtype, base in zip(value, dtypes, bases):
            write(lw, shared_at(lw, op, at, dtype, base), component, dtype)
    lw.barrier()
    kind = op.attrs["kind"]
    result = {}
    for key, position in positions.items():
        acc = None
        for w in range(1 << len(warp_masks)):
            at = B.add(ll.Constant(i32, w * count), position)
            value = tuple(read(lw, shared_at(lw, op, at, dtype, base), dtype) for dtype, base in zip(dtypes, bases))
            acc = value if acc is None else _combine(lw, kind, dtypes, acc, value, region)
        result[key] = acc
    return result


def _scan(lw: Lowering, op, *xs):
    """In shared memory, one thread per line along the axis (simple and exact): every thread writes
    what it holds, then each line is scanned by one thread, then every thread reads its elements.
    Each component (one per operand) has its own part of the buffer."""
    B = lw.b
    src = op.operands[0]
    shape, axis, kind = src.shape, op.attrs["axis"], op.attrs["kind"]
    region = op.regions[0] if op.regions else None
    dtypes = components(op)
    bases, _ = component_offsets(op, src.type.numel)
    for x, dtype, base in zip(xs, dtypes, bases):
        written = element_ptrs(lw, op, src.layout, shape, row_major(shape), dtype, base)
        for r in lw.unique_registers(src.layout, shape):
            write(lw, written[r], x[r], dtype)
    lw.barrier()
    length = shape[axis]
    stride = 1
    for s in shape[axis + 1:]:
        stride *= s
    lines = src.type.numel // length
    # for line in range(tid, lines, threads): scan the `length` elements of that line

    def scan_line(line, _):
        outer, inner = B.udiv(line, ll.Constant(i32, stride)), B.urem(line, ll.Constant(i32, stride))
        start = B.add(B.mul(outer, ll.Constant(i32, length * stride)), inner)
        acc = None
        for k in (range(length - 1, -1, -1) if op.attrs.get("reverse") else range(length)):
            at = B.add(start, ll.Constant(i32, k * stride))
            ptrs = [shared_at(lw, op, at, dtype, base) for dtype, base in zip(dtypes, bases)]
            value = tuple(read(lw, ptr, dtype) for ptr, dtype in zip(ptrs, dtypes))
            acc = value if acc is None else _combine(lw, kind, dtypes, acc, value, region)
            for ptr, component, dtype in zip(ptrs, acc, dtypes):
                write(lw, ptr, component, dtype)
        return []

    lw.counted_loop(lw.tid, lines, 32 * lw.num_warps, [], scan_line)
    lw.barrier()
    results = [[read(lw, ptr, dtype) for ptr in element_ptrs(lw, op, op.results[0].layout, shape,
                                                             row_major(shape), dtype, base)]
               for dtype, base in zip(dtypes, bases)]
    return results if len(xs) > 1 else results[0]


RULES = {"convert_layout": _convert_layout, "broadcast": _move, "expand_dims": _move, "trans": _move,
         "reshape": _move, "reduce": _reduce, "scan": _scan, "join": _join, "split": _split}
