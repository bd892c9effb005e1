"""The rules that make tiles and change their shape: `tl.arange`, `tl.full`, `expand_dims`,
`reshape` and `trans`, each checked as Triton checks it (a power-of-two range that fits in int32,
the same number of elements, a permutation of the axes) before it emits its op. What every rule
shares (the builder, casts, broadcasting, the tile-size limit) is in `semantic`. Chapter:
02-frontend.
"""
from __future__ import annotations

from .. import ir
from ..ir import DType, Value
from .semantic import SemanticError, broadcast_to, cast, constant, emit, tile_shape


def arange(start: int, end: int) -> Value:
    """[start, ..., end - 1] as an int32 tile, checked as Triton checks it."""
    if not -2**31 <= start or end > 2**31:  # its elements are int32s
        raise SemanticError(f"tl.arange({start}, {end}): arange must fit in int32",
                            "offset a smaller range instead: base + tl.arange(0, BLOCK), base an int64")
    n = end - start
    if n <= 0:
        raise SemanticError(f"tl.arange({start}, {end}): arange's end argument must be greater than the start "
                            "argument", "tl.arange(start, end) counts up from start to end - 1")
    if n & (n - 1):
        raise SemanticError(f"tl.arange({start}, {end}) has {n} elements: its range must be a power of 2",
                            "round the block size up with triton.next_power_of_2 and mask the tail")
    tile_shape((n,))
    result = emit("arange", [], start=0, end=n)
    if start:
        result = emit("add", [result, emit("splat", [constant(start, ir.int32)], shape=(n,))])
    return result


def full(shape: tuple[int, ...], value, dtype: DType) -> Value:
    tile_shape(shape)
    if isinstance(value, Value):
        if value.type.is_tile and value.type.numel != 1:
            raise SemanticError(f"tl.full's value must be a scalar, got a tile of shape {list(value.shape)} "
                                "(only accepts size-1 tensor)",
                                "to repeat a tile, use tl.broadcast_to(x, shape)")
        v = cast(value, dtype)
    else:
        v = constant(value, dtype)
    return broadcast_to(v, tuple(shape)) if shape else v


def expand_dims(x: Value, axis: int) -> Value:
    rank = len(x.shape) + 1
    if not -rank <= axis < rank:
        raise SemanticError(f"invalid axis {axis}. Expected {-rank} <= axis < {rank}",
                            f"expand_dims of a tile of rank {rank - 1} inserts an axis at 0 to {rank - 1}")
    if not x.type.is_tile:
        return emit("splat", [x], shape=(1,))
    return emit("expand_dims", [x], axis=axis % rank)


def reshape(x: Value, shape: tuple[int, ...]) -> Value:
    shape = tuple(shape)
    numel = 1
    for s in shape:
        numel *= s
    if shape:
        tile_shape(shape)
    if numel != x.type.numel:
        raise SemanticError(f"cannot reshape {list(x.shape)} ({x.type.numel} elements) to {list(shape)}: "
                            "reshape() cannot change total number of elements in tensor",
                            "the new shape's sizes must multiply to the same number of elements")
    if not x.type.is_tile:
        return broadcast_to(x, shape)
    return emit("reshape", [x], shape=shape)


def trans(x: Value, perm: tuple[int, ...] | None) -> Value:
    """Axes in the order `perm` gives; without it, the last two swapped (a batched transpose)."""
    rank = len(x.shape)
    if not perm and rank < 2:
        raise SemanticError("tl.trans invoked with a 0- or 1-dimensional tensor", "a transpose needs two axes")
    perm = (*range(rank - 2), rank - 1, rank - 2) if not perm else tuple(perm)
    if sorted(perm) != list(range(rank)):
        raise SemanticError(f"permute dims must be a permutation of 0, 1, ..., n-1, but were {list(perm)}",
                            f"name each of the {rank} axes once: e.g. {list(reversed(range(rank)))}")
    return emit("trans", [x], perm=perm)
