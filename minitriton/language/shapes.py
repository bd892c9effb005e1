"""Tile manipulation in the language: `tl.join`, `tl.split`, `tl.cat`, `tl.gather`, `tl.histogram`,
and the views of a tile's shape (`reshape`, `trans`, `permute`, `broadcast_to`, `expand_dims`).

`join` puts two tiles side by side along a new last dimension of size 2 and `split` takes them
apart again; `cat` (1-D, Triton's `can_reorder=True` form) is a join read the other way round.
`gather` picks elements along one axis by runtime indices; `histogram` counts values into bins of
width 1 from 0 (a value outside every bin is not counted, as in Triton's interpreter). The checks
and messages are Triton 3.6's; each builtin emits one op of tile IR. `tl.interleave` is in
`standard.py`, written with `join`. Chapter: 02-frontend.
"""
from __future__ import annotations

from .. import ir
from . import semantic, tiles
from .core import _const, _const_int, _shape, _unwrap, _value, builtin, tensor
from .semantic import SemanticError, broadcast_pair, builder, emit, unsplat


# --8<-- [start:join]
@builtin
def join(a, b) -> tensor:
    """a and b (broadcast to one shape) side by side along a new last dimension: shape + [2]."""
    a, b = broadcast_pair(_value(a), _value(b))
    if a.dtype != b.dtype:
        raise SemanticError(f"join needs two tensors of one dtype, got {a.dtype} and {b.dtype}",
                            "convert one of them with .to(...)")
    if not a.type.is_tile:  # two scalars make a tile of shape [2]
        pair = emit("join", [semantic.broadcast_to(a, (1,)), semantic.broadcast_to(b, (1,))])
        return tensor(tiles.reshape(pair, (2,)))
    return tensor(emit("join", [a, b]))


@builtin(method=True)
def split(a) -> tuple[tensor, tensor]:
    """The two halves of a tile along its last dimension, which must have size 2 (join's inverse);
    a tile of shape [2] splits into two scalars."""
    x = _value(a)
    if not x.type.is_tile or x.shape[-1] != 2:
        raise SemanticError(f"split needs a tensor whose last dimension has size 2, got shape "
                            f"{list(x.shape)}",
                            "join two tensors first, or reshape so that the last dimension is 2")
    if len(x.shape) == 1:
        left, right = builder().create("split", [tiles.reshape(x, (1, 2))]).results
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
        raise SemanticError(f"cat takes two 1-D tensors of one shape and dtype, got {a.type} and {b.type}",
                            "for other shapes, use tl.join (a new last axis) and reshape")
    pairs = tiles.trans(emit("join", [a, b]), (1, 0))  # [2, n]: input's row, then other's
    return tensor(tiles.reshape(pairs, (2 * a.shape[0],)))


# --8<-- [start:gather]
@builtin(method=True)
def gather(src, index, axis) -> tensor:
    """result[i] = src[i with i[axis] replaced by index[i]]: the result has the index's shape."""
    s, i = _value(src), _value(index)
    axis = _const_int(axis, "gather's axis")
    if not i.dtype.is_int() or i.dtype.is_bool():
        raise SemanticError(f"index must be an integer tensor, got {i.dtype}",
                            "convert it: index.to(tl.int32)")
    rank = len(s.shape)
    if not s.type.is_tile or len(i.shape) != rank:
        raise SemanticError(f"source and index tensors must have the same rank, got shapes "
                            f"{list(s.shape)} and {list(i.shape)}",
                            "reshape the index to the source's rank")
    if not -rank <= axis < rank:
        raise SemanticError(f"gather axis {axis} must be < source rank ({rank})",
                            f"the source has axes 0 to {rank - 1}")
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
        raise SemanticError(f"histogram only supports 1D input, got shape {list(x.shape)}",
                            "flatten it first: tl.reshape(x, [x.numel])")
    if not x.dtype.is_int():
        raise SemanticError(f"histogram only supports integer input, got {x.dtype}",
                            "convert the values to bin numbers: x.to(tl.int32)")
    if bins <= 0 or bins & (bins - 1):
        raise SemanticError(f"histogram's num_bins must be a power of two, got {bins}",
                            "round it up with triton.next_power_of_2 and ignore the extra bins")
    operands = [x]
    if _unwrap(mask) is not None:
        m = semantic.broadcast_to(_value(mask), x.shape)
        if m.dtype != ir.int1:
            raise SemanticError(f"Mask must have boolean scalar type, got {m.dtype}", "compare it: mask = x < n")
        operands.append(m)
    return tensor(emit("histogram", operands, bins=bins))


# --8<-- [start:views]
@builtin(method=True)
def trans(input, *dims) -> tensor:
    dims = tuple(_const_int(d, "trans's dims") for d in (_unwrap(dims[0]) if len(dims) == 1 and
                                                            isinstance(_unwrap(dims[0]), (tuple, list)) else dims))
    return tensor(tiles.trans(_value(input), dims))


@builtin(method=True)
def permute(input, *dims) -> tensor:
    """Like `trans`, but the permutation must be given (`trans` alone swaps a 2-D tile's axes)."""
    dims = _unwrap(dims[0]) if len(dims) == 1 and isinstance(_unwrap(dims[0]), (tuple, list)) else dims
    x = _value(input)
    if len(dims) != len(x.shape):
        raise SemanticError(f"permute dims must have the same length as input shape: {list(dims)} for a "
                            f"tile of shape {list(x.shape)}", "give one entry per dimension: permute(x, 1, 0)")
    return trans(input, *dims)


@builtin(method=True)
def reshape(input, *shape, can_reorder=False) -> tensor:
    shape = _shape(shape[0] if len(shape) == 1 else shape)
    return tensor(tiles.reshape(_value(input), shape))


view = reshape


@builtin(method=True)
def ravel(x) -> tensor:
    return reshape(x, [x.numel])


@builtin(method=True)
def broadcast_to(input, *shape) -> tensor:
    shape = _shape(shape[0] if len(shape) == 1 else shape)
    return tensor(semantic.broadcast_to(_value(input), shape))


@builtin
def broadcast(input, other):
    a, b = semantic.broadcast_pair(_value(input), _value(other))
    return tensor(a), tensor(b)


@builtin(method=True)
def expand_dims(input, axis) -> tensor:
    axis = _unwrap(axis)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    result = _value(input)
    rank = len(result.shape) + len(axes)
    axes = [_const_int(a, "expand_dims's axis") for a in axes]
    for a in axes:
        if not -rank <= a < rank:
            raise SemanticError(f"invalid axis {a}. Expected {-rank} <= axis < {rank}",
                                f"expand_dims of a tile of rank {rank - len(axes)} to rank {rank} takes axes "
                                f"{-rank} to {rank - 1}")
    normalized = [a % rank for a in axes]
    if len(set(normalized)) < len(normalized):
        raise SemanticError(f"expand_dims received duplicate axes, normalized axes = {normalized}",
                            "give each new axis once")
    for a in sorted(normalized):
        result = tiles.expand_dims(result, a)
    return tensor(result)
# --8<-- [end:views]
