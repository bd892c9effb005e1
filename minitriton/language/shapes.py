"""Tile manipulation in the language: `tl.join`, `tl.split`, `tl.cat`, `tl.gather`, `tl.histogram`.

`join` puts two tiles side by side along a new last dimension of size 2 and `split` takes them
apart again; `cat` (1-D, Triton's `can_reorder=True` form) is a join read the other way round.
`gather` picks elements along one axis by runtime indices; `histogram` counts values into bins of
width 1 from 0 (a value outside every bin is not counted, as in Triton's interpreter). The checks
and messages are Triton 3.6's; each builtin emits one op of tile IR. `tl.interleave` is in
`standard.py`, written with `join`. Chapter: 02-frontend.
"""
from __future__ import annotations

from .. import ir
from .core import _const, _const_int, _unwrap, _value, builtin, tensor
from .semantic import SemanticError, broadcast_pair, broadcast_to, builder, emit, reshape, trans, unsplat


# --8<-- [start:join]
@builtin
def join(a, b) -> tensor:
    """a and b (broadcast to one shape) side by side along a new last dimension: shape + [2]."""
    a, b = broadcast_pair(_value(a), _value(b))
    if a.dtype != b.dtype:
        raise SemanticError(f"join needs two tensors of one dtype, got {a.dtype} and {b.dtype}",
                            "convert one of them with .to(...)")
    if not a.type.is_tile:  # two scalars make a tile of shape [2]
        pair = emit("join", [broadcast_to(a, (1,)), broadcast_to(b, (1,))])
        return tensor(reshape(pair, (2,)))
    return tensor(emit("join", [a, b]))


@builtin(method=True)
def split(a) -> tuple[tensor, tensor]:
    """The two halves of a tile along its last dimension, which must have size 2 (join's inverse);
    a tile of shape [2] splits into two scalars."""
    x = _value(a)
    if not x.type.is_tile or x.shape[-1] != 2:
        raise SemanticError(f"split needs a tensor whose last dimension has size 2, got shape {list(x.shape)}",
                            "join two tensors first, or reshape so that the last dimension is 2")
    if len(x.shape) == 1:
        left, right = builder().create("split", [reshape(x, (1, 2))]).results
        return tensor(unsplat(left)), tensor(unsplat(right))
    left, right = builder().create("split", [x]).results
    return tensor(left), tensor(right)
# --8<-- [end:join]


@builtin
def cat(input, other, can_reorder=False) -> tensor:
    """Two 1-D tiles of one type, one after the other. Triton accepts only can_reorder=True (the
    compiler may then order the elements as it likes); minitriton keeps `input` then `other`."""
    if not _const(can_reorder, "cat's can_reorder"):
        raise SemanticError("current implementation of `cat` always may reorder elements",
                            "pass can_reorder=True (the result's order is then input, other)")
    a, b = _value(input), _value(other)
    if len(a.shape) != 1 or a.type != b.type:
        raise SemanticError(f"cat takes two 1-D tensors of one shape and dtype, got {a.type} and {b.type}")
    pairs = trans(emit("join", [a, b]), (1, 0))  # [2, n]: input's row, then other's
    return tensor(reshape(pairs, (2 * a.shape[0],)))


# --8<-- [start:gather]
@builtin(method=True)
def gather(src, index, axis) -> tensor:
    """result[i] = src[i with i[axis] replaced by index[i]]: the result has the index's shape."""
    s, i = _value(src), _value(index)
    axis = _const_int(axis, "gather's axis")
    if not i.dtype.is_int() or i.dtype.is_bool():
        raise SemanticError(f"index must be an integer tensor, got {i.dtype}")
    rank = len(s.shape)
    if not s.type.is_tile or len(i.shape) != rank:
        raise SemanticError(f"source and index tensors must have the same rank, got shapes {list(s.shape)} "
                            f"and {list(i.shape)}")
    if not -rank <= axis < rank:
        raise SemanticError(f"gather axis {axis} must be < source rank ({rank})")
    axis %= rank
    for d in range(rank):
        if d != axis and i.shape[d] != s.shape[d]:
            raise SemanticError(f"index dim {d} must match the corresponding source dim: index shape "
                                f"{list(i.shape)}, source shape {list(s.shape)}",
                                "outside the gather axis, index and source have the same sizes")
    return tensor(emit("gather", [s, i], axis=axis))
# --8<-- [end:gather]


@builtin(method=True)
def histogram(input, num_bins, mask=None) -> tensor:
    """An int32 tile of `num_bins` counts: bin b counts the elements equal to b (where `mask` is
    true). Values outside [0, num_bins) are not counted."""
    x, bins = _value(input), _const_int(num_bins, "histogram's num_bins")
    if len(x.shape) != 1:
        raise SemanticError(f"histogram only supports 1D input, got shape {list(x.shape)}")
    if not x.dtype.is_int():
        raise SemanticError(f"histogram only supports integer input, got {x.dtype}")
    if bins <= 0 or bins & (bins - 1):
        raise SemanticError(f"histogram's num_bins must be a power of two, got {bins}",
                            "round it up with triton.next_power_of_2 and ignore the extra bins")
    operands = [x]
    if _unwrap(mask) is not None:
        m = broadcast_to(_value(mask), x.shape)
        if m.dtype != ir.int1:
            raise SemanticError(f"Mask must have boolean scalar type, got {m.dtype}", "compare it: mask = x < n")
        operands.append(m)
    return tensor(emit("histogram", operands, bins=bins))
