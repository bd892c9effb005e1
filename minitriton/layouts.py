"""Layouts: how one program's tile is spread over its warps, lanes and registers.

Place in the pipeline: plain arithmetic, no IR. `passes/layout.py` gives every tile value one of
these; `codegen/llvm` asks them which elements a thread holds and how to compute their indices;
chapter 04-layouts draws them with `draw`. Nothing here knows about ops or types.

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
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Sequence

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


# --8<-- [start:slice]
@dataclass(frozen=True)
class SliceLayout(DistributedLayout):
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

    @property
    def threads_per_warp(self) -> tuple[int, ...]:
        return self._per_dim(self._lane_bases())

    @property
    def warps_per_cta(self) -> tuple[int, ...]:
        return self._per_dim(self._warp_bases())

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


@dataclass(frozen=True)
class MmaLayout(DistributedLayout):
    """The accumulator of `mma.sync.m16n8k16`: each warp owns a 16x8 tile, warps are placed in
    row-major order of `warps_per_cta`, and the whole arrangement repeats over larger shapes."""

    warps_per_cta: tuple[int, ...]
    version: int = 2
    instr_shape: tuple[int, ...] = (16, 8)

    def __post_init__(self):
        _tuple_fields(self, "warps_per_cta", "instr_shape")
        if self.version != 2 or self.instr_shape != (16, 8):
            raise ValueError(f"only mma version 2 with instr_shape [16,8] is supported, got {self!r}")
        if len(self.warps_per_cta) != 2:
            raise ValueError(f"MmaLayout.warps_per_cta needs two entries (M, N), "
                             f"got {_fmt(self.warps_per_cta)}")
        _check_pow2("MmaLayout", "warps_per_cta", self.warps_per_cta)

    def __str__(self) -> str:
        return (f"#mma<{{versionMajor={self.version}, warpsPerCTA={_fmt(self.warps_per_cta)}, "
                f"instrShape={_fmt(self.instr_shape)}}}>")

    @property
    def order(self) -> tuple[int, ...]:
        return (1, 0)  # lanes, warps and repeats step along N first

    @property
    def threads_per_warp(self) -> tuple[int, ...]:
        return (8, 4)

    def _tile_register_bases(self) -> list[Index]:
        return [(0, 1), (8, 0)]  # c1 is one column right of c0, c2 eight rows below

    def _lane_bases(self) -> list[Index]:
        return [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]  # threadID_in_group, then groupID

    def _warp_bases(self) -> list[Index]:
        warps_m, warps_n = self.warps_per_cta
        return _bits(2, 1, warps_n, 8) + _bits(2, 0, warps_m, 16)

    # --8<-- [start:mma-elements]
    def elements(self, warp: int, lane: int, shape: Sequence[int]) -> list[Index]:
        rows, cols = self.check_shape(shape)
        warps_m, warps_n = self.warps_per_cta
        warp_m, warp_n = divmod(warp, warps_n)
        group, thread_in_group = lane >> 2, lane % 4  # PTX ISA: groupID, threadID_in_group
        tile_m, tile_n = 16 * warps_m, 8 * warps_n
        result = []
        for repeat_m in range(max(1, rows // tile_m)):
            for repeat_n in range(max(1, cols // tile_n)):
                for c in range(4):  # c0..c3: (r, c), (r, c+1), (r+8, c), (r+8, c+1)
                    row = repeat_m * tile_m + warp_m * 16 + group + 8 * (c >> 1)
                    col = repeat_n * tile_n + warp_n * 8 + thread_in_group * 2 + (c & 1)
                    result.append((row % rows, col % cols))
        return result
    # --8<-- [end:mma-elements]


@dataclass(frozen=True)
class DotOperandLayout(DistributedLayout):
    """The A (`op_idx` 0, M x K) or B (`op_idx` 1, K x N) fragments of `mma.sync` for a `parent`
    accumulator. `k_width` elements along K share one 32-bit register: 2 for 16-bit types
    (m16n8k16), 1 for tf32 (m16n8k8), 4 for 8-bit types (m16n8k32). Register r holds one
    element; registers r..r+k_width-1 pack into one .b32 operand of the instruction. Warps along N
    hold the same A fragments, warps along M the same B fragments."""

    op_idx: int
    parent: MmaLayout
    k_width: int = 2

    def __post_init__(self):
        if self.op_idx not in (0, 1):
            raise ValueError(f"DotOperandLayout.op_idx is 0 (A) or 1 (B), got {self.op_idx}")
        if not isinstance(self.parent, MmaLayout):
            raise ValueError(f"DotOperandLayout.parent must be an MmaLayout, got {self.parent}")
        if self.k_width not in (1, 2, 4):
            raise ValueError(f"DotOperandLayout.k_width is 1, 2 or 4 (elements per 32-bit register), "
                             f"got {self.k_width}")

    def __str__(self) -> str:
        return f"#dot_op<{{opIdx={self.op_idx}, parent={self.parent}, kWidth={self.k_width}}}>"

    @property
    def order(self) -> tuple[int, ...]:
        return (1, 0) if self.op_idx == 0 else (0, 1)  # K varies fastest

    @property
    def threads_per_warp(self) -> tuple[int, ...]:
        return self._per_dim(self._lane_bases())

    @property
    def warps_per_cta(self) -> tuple[int, ...]:
        return self._per_dim(self._warp_bases())

    def _k_dim(self) -> int:
        return 1 - self.op_idx

    def _tile_register_bases(self) -> list[Index]:
        k, kw = self._k_dim(), self.k_width
        packed = _bits(2, k, kw, 1)  # the elements of one .b32 register
        if self.op_idx == 0:
            return packed + [(8, 0), (0, 4 * kw)]  # a-registers: rows +8, then K +4*k_width
        return packed + [(4 * kw, 0)]

    def _lane_bases(self) -> list[Index]:
        k, kw = self._k_dim(), self.k_width
        return _bits(2, k, 4, kw) + _bits(2, 1 - k, 8, 1)  # threadID_in_group along K, groupID across

    def _warp_bases(self) -> list[Index]:
        warps_m, warps_n = self.parent.warps_per_cta
        if self.op_idx == 0:
            return [(0, 0)] * _log2(warps_n) + _bits(2, 0, warps_m, 16)
        return _bits(2, 1, warps_n, 8) + [(0, 0)] * _log2(warps_m)

    # --8<-- [start:dot-elements]
    def elements(self, warp: int, lane: int, shape: Sequence[int]) -> list[Index]:
        shape = self.check_shape(shape)
        warps_m, warps_n = self.parent.warps_per_cta
        warp_m, warp_n = divmod(warp, warps_n)
        group, thread_in_group = lane >> 2, lane % 4  # PTX ISA: groupID, threadID_in_group
        kw, instr_k = self.k_width, 8 * self.k_width
        result = []
        if self.op_idx == 0:  # A: m16 x k(8*k_width), 4*k_width elements a0, a1, ...
            rows, ks = shape
            for repeat_m in range(max(1, rows // (16 * warps_m))):
                for repeat_k in range(max(1, ks // instr_k)):
                    for i in range(4 * kw):
                        register, half = divmod(i, kw)
                        row = repeat_m * 16 * warps_m + warp_m * 16 + group + 8 * (register & 1)
                        col = repeat_k * instr_k + thread_in_group * kw + half + 4 * kw * (register >> 1)
                        result.append((row % rows, col % ks))
        else:  # B: k(8*k_width) x n8, 2*k_width elements b0, b1, ...
            ks, cols = shape
            for repeat_n in range(max(1, cols // (8 * warps_n))):
                for repeat_k in range(max(1, ks // instr_k)):
                    for i in range(2 * kw):
                        register, half = divmod(i, kw)
                        row = repeat_k * instr_k + thread_in_group * kw + half + 4 * kw * register
                        col = repeat_n * 8 * warps_n + warp_n * 8 + group
                        result.append((row % ks, col % cols))
        return result
    # --8<-- [end:dot-elements]


@dataclass(frozen=True)
class SharedOperandLayout:
    """A `dot` operand that is not held in registers at all: it stays in shared memory. With an
    `MmaLayout` parent it is laid out as `wgmma` reads it (Hopper's warpgroup MMA takes A and B
    through shared-memory descriptors); with a `BlockedLayout` parent it sits in a pipeline ring
    as `fma_operand_swizzle` says, and the threads of a dot on CUDA cores read it at each step
    of k. A thread's only "register" is the buffer's address."""

    op_idx: int
    parent: MmaLayout | BlockedLayout

    def __str__(self) -> str:
        return f"#shared_operand<{{opIdx={self.op_idx}, parent={self.parent}}}>"

    def registers_per_thread(self, shape: Sequence[int]) -> int:
        return 1


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


_WARP_COLORS = ("#fbb4ae", "#b3cde3", "#ccebc5", "#decbe4", "#fed9a6", "#ffffcc", "#e5d8bd", "#fddaec")


def draw(layout: DistributedLayout | SharedLayout, shape: Sequence[int], num_warps: int | None = None) -> str:
    """Graphviz DOT source of a table with one cell per element of a 1-D or 2-D tile.

    A distributed layout's cell reads `w{warp}:t{lane}:r{register}` for its first owner (with
    `xN` where N threads or registers hold copies) and is coloured by that warp. A shared
    layout's cell holds its offset, coloured by `(offset // vec) % 8`: when a chunk is 16 bytes,
    that is its bank group, and a column of 8 rows in 8 colours is a conflict-free `ldmatrix`."""
    shape = tuple(int(s) for s in shape)
    if len(shape) not in (1, 2):
        raise ValueError(f"draw shows 1-D and 2-D tiles, got shape {_fmt(shape)}")
    if isinstance(layout, SharedLayout):
        def cell(index):
            offset = layout.offset(index, shape)
            return str(offset), _WARP_COLORS[(offset // layout.vec) % len(_WARP_COLORS)]
    else:
        shape = layout.check_shape(shape)
        if num_warps is not None and num_warps != layout.num_warps:
            raise ValueError(f"{layout} spreads over {layout.num_warps} warps, not {num_warps}")
        first, copies = {}, {}
        for warp in range(layout.num_warps):
            for lane in range(layout.warp_size):
                for register, index in enumerate(layout.elements(warp, lane, shape)):
                    first.setdefault(index, (warp, lane, register))
                    copies[index] = copies.get(index, 0) + 1

        def cell(index):
            warp, lane, register = first[index]
            extra = f" x{copies[index]}" if copies[index] > 1 else ""
            return f"w{warp}:t{lane}:r{register}{extra}", _WARP_COLORS[warp % len(_WARP_COLORS)]

    rows, cols = (1, shape[0]) if len(shape) == 1 else shape
    lines = [
        "digraph layout {",
        '  node [shape=plaintext, fontname="Courier", fontsize=10];',
        f'  label="{layout}  shape {_fmt(shape)}"; labelloc=t; fontname="Courier";',
        '  tile [label=<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">',
        "    <TR><TD></TD>" + "".join(f"<TD><B>{c}</B></TD>" for c in range(cols)) + "</TR>",
    ]
    for r in range(rows):
        cells = []
        for c in range(cols):
            text, color = cell((c,) if len(shape) == 1 else (r, c))
            cells.append(f'<TD BGCOLOR="{color}">{text}</TD>')
        lines.append(f"    <TR><TD><B>{r}</B></TD>" + "".join(cells) + "</TR>")
    lines += ["  </TABLE>>];", "}"]
    return "\n".join(lines) + "\n"
