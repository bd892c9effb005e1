"""Shared-memory layouts: a tile in shared memory, and the swizzles that keep its reads conflict-free.

A `SharedLayout` is row-major storage whose 16-byte chunks are permuted (swizzled) row by row, so
that the rows one instruction reads together fall in different banks. `mma_operand_swizzle` is
Triton's choice for an operand read by `ldmatrix`; `fma_operand_swizzle` for one read by a dot on
CUDA cores from a pipeline ring. Chapter: 06-shared-memory.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .base import DistributedLayout, Index, _check_pow2, _delinearize, _fmt, _tuple_fields


@dataclass(frozen=True)
class SharedLayout:
    """A tile in shared memory, row-major in `order` (`order[0]` contiguous), with Triton's
    swizzle: in row `row` the `vec`-element chunks of a row are permuted by xor with
    `phase = (row // per_phase) % max_phase`, so the rows an `ldmatrix` reads together land in
    different banks. `SharedLayout(1, 1, 1, order)` is plain, unswizzled storage."""

    vec: int
    per_phase: int
    max_phase: int
    order: tuple[int, ...]

    def __post_init__(self):
        _tuple_fields(self, "order")
        for name in ("vec", "per_phase", "max_phase"):
            _check_pow2("SharedLayout", name, [getattr(self, name)])

    def __str__(self) -> str:
        return (f"#shared<{{vec={self.vec}, perPhase={self.per_phase}, maxPhase={self.max_phase}, "
                f"order={_fmt(self.order)}}}>")

    def _check(self, shape: Sequence[int]) -> tuple[int, ...]:
        shape = tuple(int(s) for s in shape)
        if len(shape) != len(self.order):
            raise ValueError(f"{self} is a layout of rank {len(self.order)}; "
                             f"shape {_fmt(shape)} has rank {len(shape)}")
        row = shape[self.order[0]]
        if self.max_phase > 1 and (row % self.vec or (row // self.vec) % self.max_phase):
            raise ValueError(f"{self} needs rows of a multiple of vec*maxPhase = {self.vec * self.max_phase} "
                             f"elements, shape {_fmt(shape)} has rows of {row}")
        return shape

    # --8<-- [start:swizzle]
    def _swizzle(self, coords: list[int]) -> list[int]:
        # The xor only permutes whole chunks of `vec` and depends on the row alone, so applying
        # it twice gives the column back: the same function stores and loads.
        row = coords[self.order[1]] if len(self.order) > 1 else 0
        phase = (row // self.per_phase) % self.max_phase
        col = coords[self.order[0]]
        coords = list(coords)
        coords[self.order[0]] = ((col // self.vec) ^ phase) * self.vec + col % self.vec
        return coords

    def offset(self, index: Sequence[int], shape: Sequence[int]) -> int:
        """The element offset of `index` in the buffer."""
        shape = self._check(shape)
        coords = self._swizzle(list(index))
        offset, stride = 0, 1
        for d in self.order:
            offset += coords[d] * stride
            stride *= shape[d]
        return offset

    def index_of(self, offset: int, shape: Sequence[int]) -> Index:
        """The index stored at element `offset`: the inverse of `offset`."""
        shape = self._check(shape)
        return tuple(self._swizzle(_delinearize(offset, shape, self.order)))
    # --8<-- [end:swizzle]


# --8<-- [start:mma-swizzle]
def mma_operand_swizzle(row_length: int, element_bits: int, op_idx: int = 0,
                        order: Sequence[int] = (1, 0)) -> SharedLayout:
    """Triton's swizzle for an `mma.sync` operand in shared memory (rank 2, row = `order[0]`).

    `ldmatrix` reads 8 rows of 16 bytes at once; shared memory serves 128 bytes (32 banks) per
    cycle, 8 chunks of 16 bytes. A chunk is `vec` elements. Rows shorter than 128 bytes pack
    `per_phase` to a 128-byte line and share a phase; `max_phase` phases cover the 8 rows, so
    the 8 chunks of one read fall in 8 distinct bank groups."""
    k_width = 32 // element_bits  # elements per 32-bit register: the instruction's K is 4x that
    m, n, k = 8, 8, 4 * k_width
    per_phase = max(1, 128 // (row_length * element_bits // 8))
    k_contiguous = order[0] == (1 if op_idx == 0 else 0)
    if element_bits == 8 and not k_contiguous:
        return SharedLayout(1, 1, 1, order)  # transposed 8-bit operands are not swizzled
    if op_idx == 0:
        vec, stride = (k, m) if order[0] == 1 else (m, k)
    else:
        vec, stride = (n, k) if order[0] == 1 else (k, n)
    return SharedLayout(vec, per_phase, max(1, stride // per_phase), order)
# --8<-- [end:mma-swizzle]


# --8<-- [start:fma-swizzle]
def fma_operand_swizzle(op_idx: int, shape: Sequence[int], element_bits: int,
                        acc: DistributedLayout, acc_shape: Sequence[int]) -> SharedLayout:
    """How an operand of a dot on CUDA cores sits in a pipeline ring: row-major in chunks of 16
    bytes, as `cp.async` copies them. A thread reads A's rows 16 bytes (4 steps of k) at a time;
    the lanes of a warp read rows `per_phase` apart, which would all fall in the same banks, so
    A's chunks are swizzled by those row bits: bits of the accumulator's lanes and warps, never
    of its registers, so a thread's phase is the same for all its rows. B is read along its rows
    (the accumulator's columns), which the lanes already spread over the banks."""
    vec = max(1, 128 // element_bits)
    if op_idx == 1:
        return SharedLayout(vec, 1, 1, (1, 0))
    thread = 0
    for basis in acc.lane_bases(acc_shape) + acc.warp_bases(acc_shape):
        thread |= basis[0]
    register = 0
    for offsets in acc.register_offsets(acc_shape):
        register |= offsets[0]
    usable = thread & ~register
    if not usable:
        return SharedLayout(vec, 1, 1, (1, 0))
    per_phase, max_phase = usable & -usable, 1
    while usable & (per_phase * max_phase) and 2 * max_phase * vec <= shape[1]:
        max_phase *= 2
    return SharedLayout(vec, per_phase, max_phase, (1, 0))
# --8<-- [end:fma-swizzle]
