"""Blocked and slice layouts: how loads, stores and elementwise ops spread a tile, and a reduction's result.

A `BlockedLayout` gives each thread a block of `size_per_thread` elements, `threads_per_warp` blocks
side by side make a warp's tile and `warps_per_cta` of those the CTA's; `default_blocked` is
Triton's choice of one for a shape. A `SliceLayout` is its parent with one dimension removed: the
layout of a reduction's result along that dimension. Chapter: 04-layouts.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from ..exercise_hooks import replaceable
from .base import DerivedLayout, DistributedLayout, Index, _bits, _check_pow2, _delinearize, _fmt, _tuple_fields


# --8<-- [start:blocked]
@dataclass(frozen=True)
class BlockedLayout(DistributedLayout):
    """Each thread holds a `size_per_thread` block; `threads_per_warp` blocks side by side make a
    warp's tile, `warps_per_cta` of those make the CTA tile; `order` lists dims fastest first."""

    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]
# --8<-- [end:blocked]

    def __post_init__(self):
        names = ("size_per_thread", "threads_per_warp", "warps_per_cta", "order")
        _tuple_fields(self, *names)
        if len({len(getattr(self, n)) for n in names}) != 1:
            raise ValueError(f"BlockedLayout fields must have one entry per dimension, got {self!r}")
        if sorted(self.order) != list(range(len(self.order))):
            raise ValueError(f"BlockedLayout.order must be a permutation of the dimensions, "
                             f"got {_fmt(self.order)}")
        for name in names[:3]:
            _check_pow2("BlockedLayout", name, getattr(self, name))

    def __str__(self) -> str:
        return (f"#blocked<{{sizePerThread={_fmt(self.size_per_thread)}, "
                f"threadsPerWarp={_fmt(self.threads_per_warp)}, "
                f"warpsPerCTA={_fmt(self.warps_per_cta)}, order={_fmt(self.order)}}}>")

    def _tile_register_bases(self) -> list[Index]:
        return [b for d in self.order for b in _bits(self.rank, d, self.size_per_thread[d], 1)]

    def _lane_bases(self) -> list[Index]:
        return [b for d in self.order
                for b in _bits(self.rank, d, self.threads_per_warp[d], self.size_per_thread[d])]

    def _warp_bases(self) -> list[Index]:
        warp_tile = [s * t for s, t in zip(self.size_per_thread, self.threads_per_warp)]
        return [b for d in self.order for b in _bits(self.rank, d, self.warps_per_cta[d], warp_tile[d])]

    # --8<-- [start:blocked-elements]
    def elements(self, warp: int, lane: int, shape: Sequence[int]) -> list[Index]:
        shape = self.check_shape(shape)
        spt, order = self.size_per_thread, self.order
        lane_at = _delinearize(lane, self.threads_per_warp, order)
        warp_at = _delinearize(warp, self.warps_per_cta, order)
        tile = [s * t * w for s, t, w in zip(spt, self.threads_per_warp, self.warps_per_cta)]
        repeats = [max(1, s // t) for s, t in zip(shape, tile)]  # tile copies over a larger shape
        block = math.prod(spt)
        result = []
        for register in range(block * math.prod(repeats)):
            repeat, within = divmod(register, block)  # which copy of the tile, where in my block
            repeat_at = _delinearize(repeat, repeats, order)
            within_at = _delinearize(within, spt, order)
            result.append(tuple(
                (repeat_at[d] * tile[d] + (warp_at[d] * self.threads_per_warp[d] + lane_at[d]) * spt[d]
                 + within_at[d]) % shape[d]  # a shape smaller than the tile wraps: replication
                for d in range(self.rank)))
        return result
    # --8<-- [end:blocked-elements]

    # `DistributedLayout.owner`, which exercise 4.1 writes from the four fields: the figures call it.
    owner = replaceable("layouts.blocked_owner")(DistributedLayout.owner)


# --8<-- [start:slice]
@dataclass(frozen=True)
class SliceLayout(DerivedLayout):
    """The layout of a reduction along `dim` of a `parent`-laid tile: the shape loses `dim`, the
    lanes and warps that spanned it now hold copies of the same result."""

    dim: int
    parent: DistributedLayout

    def __post_init__(self):
        if not isinstance(self.parent, DistributedLayout):
            raise ValueError(f"SliceLayout.parent must be a distributed layout, got {self.parent}")
        if not 0 <= self.dim < self.parent.rank:
            raise ValueError(f"SliceLayout.dim {self.dim} is not a dimension of {self.parent}")

    def __str__(self) -> str:
        return f"#slice<{{dim={self.dim}, parent={self.parent}}}>"

    def _drop(self, vector: Sequence[int]) -> Index:
        return tuple(vector[: self.dim]) + tuple(vector[self.dim + 1:])

    def _padded(self, shape: Sequence[int]) -> tuple[int, ...]:
        return tuple(shape[: self.dim]) + (1,) + tuple(shape[self.dim:])

    @property
    def order(self) -> tuple[int, ...]:
        return tuple(d - (d > self.dim) for d in self.parent.order if d != self.dim)

    def _tile_register_bases(self) -> list[Index]:
        # A thread's registers along `dim` were folded into one by the reduction.
        return [self._drop(b) for b in self.parent._tile_register_bases() if not b[self.dim]]

    def _lane_bases(self) -> list[Index]:
        return [self._drop(b) for b in self.parent._lane_bases()]

    def _warp_bases(self) -> list[Index]:
        return [self._drop(b) for b in self.parent._warp_bases()]
# --8<-- [end:slice]

    def elements(self, warp: int, lane: int, shape: Sequence[int]) -> list[Index]:
        # The parent's elements over the shape with `dim` of size 1, keeping one register of
        # each run along `dim` (the one the reduction leaves the result in).
        padded = self._padded(self.check_shape(shape))
        parent_bases = self.parent._register_bases_unreduced(padded)
        along = sum(1 << bit for bit, b in enumerate(parent_bases) if b[self.dim])
        held = self.parent.elements(warp, lane, padded)
        return [self._drop(index) for register, index in enumerate(held) if not register & along]


# --8<-- [start:permuted]
@dataclass(frozen=True)
class PermutedLayout(DerivedLayout):
    """The layout of `trans(x, perm)` for x laid out in `parent`, whatever kind that is: every
    element stays in the thread and register that held it, so its dimension d is the parent's
    `perm[d]` (a basis b of the parent is `b[perm[0]], b[perm[1]], ...` here). A transposed mma
    accumulator is one: the trans costs no instruction, and a conversion comes only where a
    consumer wants another layout."""

    parent: DistributedLayout
    perm: tuple[int, ...]

    def __post_init__(self):
        _tuple_fields(self, "perm")
        if sorted(self.perm) != list(range(self.parent.rank)):
            raise ValueError(f"PermutedLayout.perm must be a permutation of {self.parent}'s dimensions, "
                             f"got {_fmt(self.perm)}")

    def __str__(self) -> str:
        return f"#permuted<{{perm={_fmt(self.perm)}, parent={self.parent}}}>"

    def _pick(self, vector: Sequence[int]) -> Index:
        return tuple(vector[p] for p in self.perm)

    def _parent_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        shape = self.check_shape(shape)
        parent = [0] * len(shape)
        for d, p in enumerate(self.perm):
            parent[p] = shape[d]
        return tuple(parent)

    @property
    def order(self) -> tuple[int, ...]:
        return tuple(self.perm.index(d) for d in self.parent.order)

    def _tile_register_bases(self) -> list[Index]:
        return [self._pick(b) for b in self.parent._tile_register_bases()]

    def _lane_bases(self) -> list[Index]:
        return [self._pick(b) for b in self.parent._lane_bases()]

    def _warp_bases(self) -> list[Index]:
        return [self._pick(b) for b in self.parent._warp_bases()]

    # the parent's registers, in the parent's numbering, whatever its repeats are
    def register_bases(self, shape: Sequence[int]) -> list[Index]:
        return [self._pick(b) for b in self.parent.register_bases(self._parent_shape(shape))]

    def lane_bases(self, shape: Sequence[int]) -> list[Index]:
        return [self._pick(b) for b in self.parent.lane_bases(self._parent_shape(shape))]

    def warp_bases(self, shape: Sequence[int]) -> list[Index]:
        return [self._pick(b) for b in self.parent.warp_bases(self._parent_shape(shape))]

    def elements(self, warp: int, lane: int, shape: Sequence[int]) -> list[Index]:
        held = self.parent.elements(warp, lane, self._parent_shape(shape))
        return [self._pick(index) for index in held]
# --8<-- [end:permuted]


# --8<-- [start:default-blocked]
def default_blocked(shape: Sequence[int], num_warps: int, order: Sequence[int] | None = None,
                    size_per_thread: Sequence[int] | None = None,
                    threads_per_warp: int = 32) -> BlockedLayout:
    """Triton's default blocked layout for `shape`: lanes fill the fastest dimension first, then
    warps; whatever lanes and warps are left go to the slowest dimension (replicating if the
    shape is too small to use them)."""
    rank = len(shape)
    order = tuple(order) if order is not None else tuple(reversed(range(rank)))
    spt = tuple(size_per_thread) if size_per_thread is not None else (1,) * rank
    _check_pow2("default_blocked", "shape", shape)
    _check_pow2("default_blocked", "num_warps", [num_warps])
    _check_pow2("default_blocked", "threads_per_warp", [threads_per_warp])
    lanes, warps = [1] * rank, [1] * rank
    lanes_left, warps_left, threads_left = threads_per_warp, num_warps, num_warps * threads_per_warp
    for d in order[:-1]:
        threads = min(threads_left, max(1, shape[d] // spt[d]))  # as many as this dim can use
        lanes[d] = min(threads, lanes_left)
        warps[d] = min(max(threads // lanes[d], 1), warps_left)
        lanes_left //= lanes[d]
        warps_left //= warps[d]
        threads_left //= threads
    lanes[order[-1]] = lanes_left
    warps[order[-1]] = warps_left
    return BlockedLayout(spt, tuple(lanes), tuple(warps), order)
# --8<-- [end:default-blocked]


# --8<-- [start:pairs]
def with_pairs(layout: BlockedLayout) -> BlockedLayout:
    """The layout of `join(a, b)` for a and b laid out in `layout`: a new last dimension of size 2
    whose two elements the thread holding a[i] and b[i] holds, in neighbouring registers."""
    return BlockedLayout(layout.size_per_thread + (2,), layout.threads_per_warp + (1,),
                         layout.warps_per_cta + (1,), (layout.rank,) + layout.order)


def without_pairs(layout: DistributedLayout | None) -> BlockedLayout | None:
    """The layout of `split(x)`'s halves when every thread of x's `layout` holds both elements of
    each pair along the last dimension; None when lanes or warps divide a pair (x must move
    first)."""
    if (not isinstance(layout, BlockedLayout) or layout.threads_per_warp[-1] != 1
            or layout.warps_per_cta[-1] != 1):
        return None
    last = layout.rank - 1
    return BlockedLayout(layout.size_per_thread[:-1], layout.threads_per_warp[:-1],
                         layout.warps_per_cta[:-1],
                         tuple(d for d in layout.order if d != last))


def merged_pairs(layout: BlockedLayout) -> BlockedLayout:
    """The layout of `reshape(join(a, b), [..., 2 * n])` (`tl.interleave`) for a join laid out in
    `with_pairs(halves)`: element (i, k) is 2i + k, so each thread's block doubles along the last
    dimension and no element changes threads."""
    halves = without_pairs(layout)
    spt = halves.size_per_thread[:-1] + (2 * halves.size_per_thread[-1],)
    return BlockedLayout(spt, halves.threads_per_warp, halves.warps_per_cta, halves.order)
# --8<-- [end:pairs]
