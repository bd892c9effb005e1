"""Layouts: how one program's tile is spread over its warps, lanes and registers.

This module: what every register layout answers, from its bases (below). The layouts themselves
are in `blocked.py`, `mma.py` and `shared.py`; `draw.py` draws them.

Two families, as in Triton:

- *distributed* layouts keep a tile in registers. `BlockedLayout` (loads, stores, elementwise),
  `SliceLayout` (the result of a reduction), `MmaLayout` (the accumulator of `mma.sync`) and
  `DotOperandLayout` (its A and B fragments). Each answers `elements(warp, lane, shape)`, the
  elements register 0, 1, 2, ... of one thread hold, and its inverse `owner(index, shape)`.
- `SharedLayout` places a tile in shared memory, swizzled so that `ldmatrix` meets no bank conflict.

A tile of `shape` may be larger than the layout's `cta_tile` (the layout then repeats, each thread
holding more registers) or smaller (positions wrap around modulo the shape, so several threads,
or several registers of one thread, hold the same element: replication). All sizes are powers of two.

Every distributed layout is also written as three lists of *bases*, one index vector per bit of
the register number, the lane id and the warp id (Triton's "linear layouts"). Register `r` of
lane `l` in warp `w` holds

    index = register_offsets(shape)[r] + lane_offset(l, shape) + warp_offset(w, shape)

where each offset is the sum of the bases whose bit is set in `r`, `l` or `w`. The bases are
reduced modulo the shape (a basis that reaches past the shape becomes zero: that bit of the id
then only chooses between replicas). Within one dimension the non-zero bases are distinct powers
of two, so the three parts never share a bit: `+`, `|` and `^` give the same index, and it is
already inside the shape. `lane_fields` / `warp_fields` regroup the bases into shifts and masks,
the closed form codegen emits. Each class also defines `elements` directly from its source (Triton's
blocked semantics, the PTX ISA fragment tables), and the tests prove the two descriptions agree.
Chapter: 04-layouts.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Sequence

from ..exercise_hooks import replaceable

Index = tuple[int, ...]
Owner = tuple[int, int, int]  # (warp, lane, register)


def _is_pow2(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


def _log2(n: int) -> int:
    return n.bit_length() - 1


def _fmt(values: Sequence[int]) -> str:
    return "[" + ",".join(str(v) for v in values) + "]"


def _unit(rank: int, dim: int, value: int) -> Index:
    vector = [0] * rank
    vector[dim] = value
    return tuple(vector)


def _bits(rank: int, dim: int, count: int, first: int) -> list[Index]:
    """The log2(count) bases first, 2*first, 4*first, ... along `dim`."""
    return [_unit(rank, dim, first << bit) for bit in range(_log2(count))]


def _delinearize(linear: int, sizes: Sequence[int], order: Sequence[int]) -> list[int]:
    """Split a linear id into per-dimension coordinates, `order[0]` varying fastest."""
    coords = [0] * len(sizes)
    for dim in order:
        linear, coords[dim] = divmod(linear, sizes[dim])
    return coords


def _combine(bases: Sequence[Index], ident: int, rank: int) -> Index:
    """The sum of the bases whose bit is set in `ident`."""
    total = [0] * rank
    for bit, basis in enumerate(bases):
        if ident >> bit & 1:
            total = [t + b for t, b in zip(total, basis)]
    return tuple(total)


def _tuple_fields(obj, *names: str) -> None:
    """Frozen dataclasses accept lists; store tuples so the layout stays hashable."""
    for name in names:
        object.__setattr__(obj, name, tuple(int(v) for v in getattr(obj, name)))


def _check_pow2(owner: str, name: str, values: Sequence[int]) -> None:
    if not all(_is_pow2(v) for v in values):
        raise ValueError(f"{owner}.{name} must hold powers of two, got {_fmt(values)}")


@dataclass(frozen=True)
class BitField:
    """`width` bits of a lane or warp id, from bit `shift` up, worth `scale` along `dim`.

    Its share of the index along `dim` is `((id >> shift) & ((1 << width) - 1)) * scale`.
    """

    dim: int
    shift: int
    width: int
    scale: int

    def value(self, ident: int) -> int:
        return ((ident >> self.shift) & ((1 << self.width) - 1)) * self.scale


class DistributedLayout:
    """What every register layout answers. A subclass gives `order`, its bases within one CTA
    tile (`_tile_register_bases`, `_lane_bases`, `_warp_bases`) and `elements`, its definition."""

    order: tuple[int, ...]

    # -- what a subclass supplies -------------------------------------------------------------
    def _tile_register_bases(self) -> list[Index]:
        raise NotImplementedError

    def _lane_bases(self) -> list[Index]:
        raise NotImplementedError

    def _warp_bases(self) -> list[Index]:
        raise NotImplementedError

    def elements(self, warp: int, lane: int, shape: Sequence[int]) -> list[Index]:
        """The elements of `shape` that this thread holds; register r holds `elements(...)[r]`."""
        raise NotImplementedError

    # -- sizes ----------------------------------------------------------------------------------
    @property
    def rank(self) -> int:
        return len(self.order)

    @property
    def num_warps(self) -> int:
        return 1 << len(self._warp_bases())

    @property
    def warp_size(self) -> int:
        return 1 << len(self._lane_bases())

    def _per_dim(self, bases: Sequence[Index]) -> tuple[int, ...]:
        """How many distinct positions the bases span along each dimension."""
        return tuple(1 << sum(1 for b in bases if b[d]) for d in range(self.rank))

    @property
    def cta_tile(self) -> tuple[int, ...]:
        """The shape that all registers, lanes and warps cover exactly once, without repeating."""
        return self._per_dim(self._tile_register_bases() + self._lane_bases() + self._warp_bases())

    def check_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        shape = tuple(int(s) for s in shape)
        if len(shape) != self.rank:
            raise ValueError(f"{self} is a layout of rank {self.rank}; "
                             f"shape {_fmt(shape)} has rank {len(shape)}")
        if not all(_is_pow2(s) for s in shape):
            raise ValueError(f"layouts tile shapes whose sizes are powers of two, got {_fmt(shape)}")
        return shape

    # --8<-- [start:bases]
    def _register_bases_unreduced(self, shape: tuple[int, ...]) -> list[Index]:
        # Past one CTA tile the layout repeats: the repeats are the high register bits,
        # numbered in `order` like everything else.
        tile = self.cta_tile
        repeats = [max(1, s // t) for s, t in zip(shape, tile)]
        return self._tile_register_bases() + [
            base for d in self.order for base in _bits(self.rank, d, repeats[d], tile[d])
        ]

    def _reduce(self, bases: Sequence[Index], shape: tuple[int, ...]) -> list[Index]:
        # Modulo a power of two, a power-of-two basis either stays or vanishes (replication).
        return [tuple(v if v < s else 0 for v, s in zip(basis, shape)) for basis in bases]

    def register_bases(self, shape: Sequence[int]) -> list[Index]:
        shape = self.check_shape(shape)
        return self._reduce(self._register_bases_unreduced(shape), shape)

    def lane_bases(self, shape: Sequence[int]) -> list[Index]:
        return self._reduce(self._lane_bases(), self.check_shape(shape))

    def warp_bases(self, shape: Sequence[int]) -> list[Index]:
        return self._reduce(self._warp_bases(), self.check_shape(shape))

    def registers_per_thread(self, shape: Sequence[int]) -> int:
        return 1 << len(self.register_bases(shape))

    def register_offsets(self, shape: Sequence[int]) -> list[Index]:
        """The index each register holds in lane 0 of warp 0 (compile-time constants)."""
        bases = self.register_bases(shape)
        return [_combine(bases, r, self.rank) for r in range(1 << len(bases))]

    def lane_offset(self, lane: int, shape: Sequence[int]) -> Index:
        return _combine(self.lane_bases(shape), lane, self.rank)

    def warp_offset(self, warp: int, shape: Sequence[int]) -> Index:
        return _combine(self.warp_bases(shape), warp, self.rank)
    # --8<-- [end:bases]

    # --8<-- [start:fields]
    @staticmethod
    def _fields(bases: Sequence[Index]) -> list[BitField]:
        # Consecutive id bits that step along one dimension by doubling strides form one field:
        # codegen computes it with one shift, one mask and one multiply.
        result: list[BitField] = []
        for bit, basis in enumerate(bases):
            steps = [(d, v) for d, v in enumerate(basis) if v]
            if not steps:
                continue  # this bit only chooses between replicas
            (dim, value), = steps
            last = result[-1] if result else None
            extends = last and last.dim == dim and last.shift + last.width == bit
            if extends and last.scale << last.width == value:
                result[-1] = BitField(dim, last.shift, last.width + 1, last.scale)
            else:
                result.append(BitField(dim, bit, 1, value))
        return result

    def lane_fields(self, shape: Sequence[int]) -> list[BitField]:
        """`lane_offset(lane)[d] == sum(f.value(lane) for f in lane_fields(shape) if f.dim == d)`."""
        return self._fields(self.lane_bases(shape))

    def warp_fields(self, shape: Sequence[int]) -> list[BitField]:
        """`warp_offset(warp)[d] == sum(f.value(warp) for f in warp_fields(shape) if f.dim == d)`."""
        return self._fields(self.warp_bases(shape))
    # --8<-- [end:fields]

    @replaceable("layouts.lane_masks_along")
    def lane_masks_along(self, dim: int, shape: Sequence[int]) -> list[int]:
        """Lane-id bits that move along `dim`: a reduction along `dim` shuffles with xor over each."""
        return [1 << bit for bit, basis in enumerate(self.lane_bases(shape)) if basis[dim]]

    def warp_masks_along(self, dim: int, shape: Sequence[int]) -> list[int]:
        """Warp-id bits that move along `dim`: these partial results meet in shared memory."""
        return [1 << bit for bit, basis in enumerate(self.warp_bases(shape)) if basis[dim]]

    def contig_per_thread(self, shape: Sequence[int]) -> int:
        """How many consecutive registers hold consecutive elements along the fastest dimension:
        the widest vector a load or store of this layout can use (in elements)."""
        run = 1
        for basis in self.register_bases(shape):
            if basis != _unit(self.rank, self.order[0], run):
                break
            run *= 2
        return run

    # --8<-- [start:owner]
    def owner(self, index: Sequence[int], shape: Sequence[int]) -> list[Owner]:
        """Every (warp, lane, register) holding `index`; more than one where the tile replicates."""
        shape = self.check_shape(shape)
        index = tuple(int(i) for i in index)
        if len(index) != self.rank or not all(0 <= i < s for i, s in zip(index, shape)):
            raise ValueError(f"index {_fmt(index)} is outside the shape {_fmt(shape)}")
        kinds = (self.warp_bases(shape), self.lane_bases(shape), self.register_bases(shape))
        fixed, free = [0, 0, 0], []
        for kind, bases in enumerate(kinds):
            for bit, basis in enumerate(bases):
                steps = [d for d, v in enumerate(basis) if v]
                if not steps:
                    free.append((kind, bit))  # a replica bit: either value holds the element
                elif index[steps[0]] & basis[steps[0]]:
                    fixed[kind] |= 1 << bit  # each index bit comes from exactly one basis
        owners = []
        for choice in itertools.product((0, 1), repeat=len(free)):
            ids = list(fixed)
            for (kind, bit), on in zip(free, choice):
                ids[kind] |= on << bit
            owners.append(tuple(ids))
        parts = [_combine(bases, ident, self.rank) for bases, ident in zip(kinds, owners[0])]
        assert tuple(map(sum, zip(*parts))) == index, f"{self} does not cover {_fmt(index)} of {_fmt(shape)}"
        return sorted(owners)
    # --8<-- [end:owner]



class DerivedLayout(DistributedLayout):
    """A layout made from a parent's (a slice, a transposed view, an mma operand's fragments): it
    stores no per-dimension counts, so they are counted from its bases."""

    @property
    def threads_per_warp(self) -> tuple[int, ...]:
        return self._per_dim(self._lane_bases())

    @property
    def warps_per_cta(self) -> tuple[int, ...]:
        return self._per_dim(self._warp_bases())
