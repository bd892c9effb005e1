"""Blocks of an array: block pointers and tensor descriptors, and the tiles of pointers they become.

`tl.make_block_ptr(base, shape, strides, offsets, block_shape, order)` and
`tl.make_tensor_descriptor(base, shape, strides, block_shape)` (or a `TensorDescriptor` argument)
name an array by its base pointer, shape and strides, and a block of it. Both are aggregates
(`aggregate.py`): a kernel holds and carries a handful of scalars, and the block's shape is fixed
at compile time. Nothing below the language ever sees one: a load or store through a block
(`memory.py`) is an ordinary load or store of the tile of pointers `block_tile` computes, masked
where the block may cross the array's edge, so coalescing, layouts and pipelining treat it as
they treat a tutorial's pointer arithmetic. Chapter: 05-coalesce.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .. import ir
from ..ir import Value
from .aggregate import aggregate, static
from .core import _const_int, _unwrap, builtin, tensor
from .semantic import SemanticError, binary, cast, compare, constant
from .tiles import arange, expand_dims


# --8<-- [start:block-tile]
def block_tile(base: tensor, shape, strides, offsets, block_shape: tuple[int, ...],
               checked: tuple[int, ...], rows: Value | None = None) -> tuple[Value, Value | None]:
    """The pointers to the elements of the block of `block_shape` at `offsets` of an array (`base`,
    `shape`, `strides`: scalars, one per dimension), and the mask of those inside the array along
    the `checked` dimensions (None if none is). The pointers are the block's first element, a
    scalar (`base` plus each offset times its stride, in 64 bits), plus the tile of each element's
    distance from it (`arange(0, size) * stride` per dimension), which does not depend on the
    offsets: in a loop that moves the block, only the scalar changes, and the tile is computed once,
    before the loop. `0 <= offset + i < size` is one unsigned comparison. `rows`, a 1-D tile of
    indices, replaces the first dimension's run (a gather's or a scatter's rows; then `offsets[0]`
    is not read)."""
    rank, corner, distance, mask = len(block_shape), base.handle, None, None
    for d, size in enumerate(block_shape):
        step = cast(arange(0, size), ir.int64)
        if d == 0 and rows is not None:
            step = index = cast(rows, ir.int64)
        else:
            start = cast(offsets[d].handle, ir.int64)
            corner = binary("add", corner, binary("mul", start, strides[d].handle))
            index = binary("add", step, start) if d in checked else None
        inside = None
        if d in checked:
            inside = compare("lt", cast(index, ir.uint64), cast(shape[d].handle, ir.uint64))
        for axis in range(rank):  # along dimension d, the other dimensions of size 1
            if axis != d:
                step = expand_dims(step, axis)
                inside = None if inside is None else expand_dims(inside, axis)
        term = binary("mul", step, strides[d].handle)
        distance = term if distance is None else binary("add", distance, term)
        if inside is not None:
            mask = inside if mask is None else binary("and", mask, inside)
    return binary("add", corner, distance), mask
# --8<-- [end:block-tile]


# --8<-- [start:block-ptr]
@dataclass(frozen=True)
class block_ptr(aggregate):
    """`tl.make_block_ptr(...)`: the block of `block_shape` at `offsets` of an array of `shape` and
    `strides`. A kernel carries its base and three scalars per dimension."""

    base: tensor
    shape: tuple  # int64 scalars
    strides: tuple  # int64 scalars, in elements
    offsets: tuple  # int32 scalars: the block's first element
    block_shape: tuple = static()
    order: tuple = static()  # the dimensions from the fastest-varying in memory: checked, not needed

    def tile(self, boundary_check) -> tuple[Value, Value | None]:
        """The block's pointers, masked along the dimensions of `boundary_check`."""
        checked = boundary_dims(boundary_check, len(self.block_shape))
        return block_tile(self.base, self.shape, self.strides, self.offsets, self.block_shape, checked)


@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order) -> block_ptr:
    """A pointer to the block of `block_shape` at `offsets` of the array at `base` (its `shape` and
    `strides` in elements); `order` lists the dimensions from the fastest-varying in memory."""
    base = _base(base, "tl.make_block_ptr")
    block_shape = _block_shape(block_shape)
    order = _unwrap(order)
    order = tuple(_const_int(d, "order") for d in (order if isinstance(order, (tuple, list)) else (order,)))
    if sorted(order) != list(range(len(order))):
        raise SemanticError(f"Expected a permutation of (0, 1, ..., len(order)-1) in order, got {order}",
                            "order lists the block's dimensions, fastest first: (1, 0) for a row-major 2-D block")
    shape = _scalars(shape, ir.int64, "shape")
    strides = _scalars(strides, ir.int64, "strides")
    offsets = _scalars(offsets, ir.int32, "offsets", _OFFSETS_HINT)
    if not len(shape) == len(strides) == len(offsets) == len(block_shape) == len(order):
        raise SemanticError("Expected shape/strides/offsets/block_shape to have the same length, got "
                            f"{len(shape)}, {len(strides)}, {len(offsets)} and {len(block_shape)} "
                            f"(and an order of {len(order)})", "give one of each for every dimension of the block")
    return block_ptr(base, shape, strides, offsets, block_shape, order)


@builtin
def advance(base, offsets) -> block_ptr:
    """The block pointer `base` moved by `offsets` (in elements, one per dimension)."""
    base = _unwrap(base)
    if not isinstance(base, block_ptr):
        raise SemanticError(f"tl.advance needs a block pointer (made by tl.make_block_ptr), got {base!r}",
                            "move a tile of pointers with +")
    offsets = _unwrap(offsets)
    offsets = offsets if isinstance(offsets, (tuple, list)) else (offsets,)
    steps = _scalars(offsets, ir.int32, "offsets", _OFFSETS_HINT)
    if len(steps) != len(base.offsets):
        raise SemanticError(f"tl.advance: the block pointer has {len(base.offsets)} dimensions, got "
                            f"{len(steps)} offsets",
                            "give one offset per dimension of the block")
    moved = tuple(o if type(_unwrap(by)) is int and _unwrap(by) == 0 else tensor(binary("add", o.handle, s.handle))
                  for o, s, by in zip(base.offsets, steps, offsets))  # a literal 0 leaves its offset as it is
    return block_ptr(base.base, base.shape, base.strides, moved, base.block_shape, base.order)
# --8<-- [end:block-ptr]


# --8<-- [start:descriptor]
@dataclass(frozen=True)
class tensor_descriptor(aggregate):
    """`tl.make_tensor_descriptor(...)`, or a `TensorDescriptor` argument: an array (its base, shape
    and strides, the last stride 1) read and written in blocks of `block_shape`; the elements of a
    block outside the array read as `padding` and are not written. `desc.load(offsets)` and
    `desc.store(offsets, value)` are in memory.py."""

    base: tensor
    shape: tuple  # int32 scalars
    strides: tuple  # int64 scalars, in elements
    block_shape: tuple = static()
    padding: str = static(default="zero")
    # the kernel parameter it came from (a host `TensorDescriptor`), else "": such a descriptor may
    # also be passed as a TMA tensor map, and its loads say so (`memory.load_tensor_descriptor`)
    argument: str = static(default="")

    @property
    def dtype(self) -> ir.DType:
        return self.base.dtype.pointee

    def tile(self, offsets) -> tuple[Value, Value, list[Value]]:
        """The pointers of the block at `offsets`, masked to the array in every dimension, and the
        offsets themselves (int32 scalars)."""
        offsets = _scalars(offsets, ir.int32, "offsets", _OFFSETS_HINT)
        if len(offsets) != len(self.block_shape):
            raise SemanticError(f"expected {len(self.block_shape)} offsets, but got {len(offsets)}",
                                "give one offset for every dimension of the block")
        ptrs, mask = block_tile(self.base, self.shape, self.strides, offsets, self.block_shape,
                                tuple(range(len(self.block_shape))))
        return ptrs, mask, [o.handle for o in offsets]

    # --8<-- [start:rows-tile]
    def rows_tile(self, what: str, x_offsets, y_offset) -> tuple[Value, Value]:
        """The pointers of the rows `x_offsets` (a 1-D tile of row indices), each one block wide
        from column `y_offset` on, masked to the array: what `gather` reads and `scatter` writes.
        The restrictions are Triton's, which moves such rows with Blackwell's TMA gather: a 2-D
        descriptor whose blocks are one row, at least 8 rows, at least 32 bytes of columns."""
        x_offsets = _unwrap(x_offsets)
        if len(self.block_shape) != 2:
            raise SemanticError(f"descriptor must be 2D, but got {list(self.block_shape)}",
                                "gather and scatter take a 2-D descriptor of one row per block")
        if self.block_shape[0] != 1:
            raise SemanticError(f"descriptor block must have 1 row, but got {list(self.block_shape)}",
                                "make the descriptor with block_shape=[1, columns]")
        if not isinstance(x_offsets, tensor) or len(x_offsets.shape) != 1 or not x_offsets.dtype.is_int():
            shape = list(x_offsets.shape) if isinstance(x_offsets, tensor) else x_offsets
            raise SemanticError(f"x offsets must be 1D, but got {shape}",
                                "pass a 1-D tile of int32 row indices, e.g. tl.arange(0, 8) + row")
        if x_offsets.dtype.bits > 32:
            raise SemanticError(f"x offsets must be 32-bit integers, got {x_offsets.dtype}", _OFFSETS_HINT)
        count = x_offsets.shape[0]
        if count < 8:
            raise SemanticError(f"descriptor {what} must have at least 8 rows, but got "
                                f"{list(x_offsets.shape)}", "give at least 8 row offsets")
        columns = 32 // self.dtype.primitive_bitwidth * 8
        if self.block_shape[1] < columns:
            raise SemanticError(f"descriptor {what} of {self.dtype} must have at least {columns} "
                                f"columns, but got {self.block_shape[1]}", "widen the descriptor's block")
        column = _scalars((y_offset,), ir.int32, "y offset", _OFFSETS_HINT)
        return block_tile(self.base, self.shape, self.strides, (None, *column), (count, self.block_shape[1]),
                          (0, 1), rows=x_offsets.handle)
    # --8<-- [end:rows-tile]


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero") -> tensor_descriptor:
    """A descriptor of the array at `base` (its `shape` and `strides`, the last 1), read and written
    in blocks of `block_shape`; a load reads `padding_option` ("zero" or "nan") outside the array."""
    base = _base(base, "tl.make_tensor_descriptor")
    shape, strides, padding = _unwrap(shape), _unwrap(strides), _unwrap(padding_option)
    ndim = len(shape)
    if not 1 <= ndim <= 5:
        raise SemanticError(f"Expected 1 <= ndim <= 5 but got {ndim} dimensions",
                            "a tensor descriptor has 1 to 5 dimensions")
    if len(strides) != ndim:
        raise SemanticError(f"Expected {ndim} strides but got {len(strides)}",
                            "give one stride per dimension of shape")
    block_shape = _block_shape(block_shape)
    if len(block_shape) != ndim:
        raise SemanticError(f"Expected block_shape to have {ndim} dimensions but got {len(block_shape)}",
                            "give one block size per dimension of shape")
    dtype = base.dtype.pointee
    if block_shape[-1] * dtype.itemsize < 16:
        raise SemanticError(f"Descriptor block shape must have at least 16 bytes in the last dimension, but got "
                            f"{block_shape[-1]} * {dtype.itemsize} = {block_shape[-1] * dtype.itemsize} bytes",
                            "make the block's last dimension at least 16 bytes wide")
    last = _unwrap(strides[-1])
    if not (type(last) is int and last == 1):
        raise SemanticError(f"Tensor descriptor last dim must be 1 but got {last!r}",
                            "the last dimension must be contiguous, its stride the constant 1")
    if padding_value(padding) is not None and not dtype.is_floating():
        raise SemanticError("Padding option `nan` is not supported for integer blocks",
                            'pad integer blocks with zeros (padding_option="zero")')
    return tensor_descriptor(base, _scalars(shape, ir.int32, "shape"), _scalars(strides, ir.int64, "strides"),
                             block_shape, padding or "zero")
# --8<-- [end:descriptor]


# -- the arguments' rules ---------------------------------------------------------------------------

def padding_value(option) -> float | None:
    """What a load through a block reads outside the array: None (zero), or NaN."""
    option = _unwrap(option)
    if option in ("", None, "zero"):
        return None
    if option == "nan":
        return math.nan
    raise SemanticError(f"Padding option {option!r} not supported", 'use padding_option="zero" or "nan"')


def boundary_dims(dims, rank: int) -> tuple[int, ...]:
    """`boundary_check` as sorted dimensions, each checked against the block's rank."""
    dims = _unwrap(dims)
    dims = dims if isinstance(dims, (tuple, list)) else () if dims is None else (dims,)
    dims = [_const_int(d, "boundary_check's dimensions") for d in dims]
    for d in dims:
        if not 0 <= d < rank:
            raise SemanticError(f"boundary_check dimension {d} is out of range for a block of rank {rank}",
                                f"name dimensions from 0 to {rank - 1}")
    if len(set(dims)) != len(dims):
        raise SemanticError("Duplicate dimension in `boundary_check`",
                            "name each dimension once")
    return tuple(sorted(dims))


_OFFSETS_HINT = "Block pointers only support 32 bit `offsets`: add a `.to(tl.int32)` or index with pointers"


def _scalars(values, dtype: ir.DType, what: str, hint: str | None = None) -> tuple[tensor, ...]:
    """`values` (ints or integer scalars, one per dimension) as scalars of `dtype`."""
    values = _unwrap(values)
    values = values if isinstance(values, (tuple, list)) else (values,)
    result = []
    for v in values:
        v = _unwrap(v)
        if isinstance(v, tensor) and not v.type.is_tile and v.dtype.is_int():
            if v.dtype.bits > dtype.bits:
                raise SemanticError(f"{what} must be {dtype.bits}-bit integers, got {v.dtype}", hint)
            result.append(tensor(cast(v.handle, dtype)))
        elif isinstance(v, int) and not isinstance(v, bool):
            if not -2 ** (dtype.bits - 1) <= v < 2 ** (dtype.bits - 1):
                raise SemanticError(f"{what} must be {dtype.bits}-bit integers, got {v}", hint)
            result.append(tensor(constant(v, dtype)))
        else:
            raise SemanticError(f"{what} must be integer scalars, got {v!r}",
                                "give Python ints or integer scalars")
    return tuple(result)


def _block_shape(block_shape) -> tuple[int, ...]:
    block_shape = _unwrap(block_shape)
    block_shape = block_shape if isinstance(block_shape, (tuple, list)) else (block_shape,)
    shape = tuple(_const_int(s, "block_shape") for s in block_shape)
    for i, s in enumerate(shape):
        if s <= 0 or s & (s - 1):
            raise SemanticError(f"Shape element {i} of block_shape must be a power of 2, got {s}",
                                "use powers of two, and boundary_check to mask the array's edges")
    return shape


def _base(base, what: str) -> tensor:
    base = _unwrap(base)
    if not isinstance(base, tensor) or base.type.is_tile or not base.dtype.is_ptr():
        raise SemanticError("Expected `base` to be a pointer type (but not a block pointer type or others), "
                            f"got {getattr(base, 'type', base)}", f"give {what} the array's pointer argument")
    return base
