"""Tensor-core layouts: the accumulator of `mma.sync`, its A and B fragments, and operands in shared memory.

An `MmaLayout` is the accumulator of `mma.sync.m16n8k16` (each warp a 16x8 tile); a
`DotOperandLayout` holds the A or B fragments that feed it, as the PTX ISA's fragment tables say. A
`SharedOperandLayout` is an operand that stays in shared memory (for wgmma, or a ring read by a dot
on CUDA cores). Chapter: 04-layouts.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .base import DerivedLayout, DistributedLayout, Index, _bits, _check_pow2, _fmt, _log2, _tuple_fields
from .blocked import BlockedLayout


@dataclass(frozen=True)
class MmaLayout(DistributedLayout):
    """A tensor-core accumulator. Version 2 is `mma.sync.m16n8k16`'s: each warp owns a 16x8
    tile, warps are placed in row-major order of `warps_per_cta`, and the whole arrangement
    repeats over larger shapes. Version 3 is wgmma's when its warpgroups also split N: each warp
    owns 16 rows of `instr_shape[1]` columns (its warpgroup's share of one wgmma.m64nN), the
    warps are numbered down M first, so the 4 warps of a warpgroup are 64 consecutive rows, and
    warpgroups then step along N. (With one warpgroup along N, version 2's `(num_warps, 1)` is
    the same arrangement, and is the one used.)"""

    warps_per_cta: tuple[int, ...]
    version: int = 2
    instr_shape: tuple[int, ...] = (16, 8)

    def __post_init__(self):
        _tuple_fields(self, "warps_per_cta", "instr_shape")
        if len(self.warps_per_cta) != 2:
            raise ValueError(f"MmaLayout.warps_per_cta needs two entries (M, N), "
                             f"got {_fmt(self.warps_per_cta)}")
        _check_pow2("MmaLayout", "warps_per_cta", self.warps_per_cta)
        m, n = self.instr_shape if len(self.instr_shape) == 2 else (0, 0)
        if self.version == 2 and (m, n) == (16, 8):
            return
        if self.version == 3 and m == 16 and n >= 8 and n & (n - 1) == 0 and n <= 256 \
                and self.warps_per_cta[0] % 4 == 0:
            return
        raise ValueError(f"MmaLayout is version 2 with instr_shape [16,8], or version 3 with "
                         f"instr_shape [16,N] (N a power of two from 8 to 256) and warps along M "
                         f"in whole warpgroups of 4; got {self!r}")

    def __str__(self) -> str:
        return (f"#mma<{{versionMajor={self.version}, warpsPerCTA={_fmt(self.warps_per_cta)}, "
                f"instrShape={_fmt(self.instr_shape)}}}>")

    @property
    def order(self) -> tuple[int, ...]:
        return (1, 0)  # lanes and repeats step along N first

    @property
    def threads_per_warp(self) -> tuple[int, ...]:
        return (8, 4)

    def _tile_register_bases(self) -> list[Index]:
        # c1 is one column right of c0, c2 eight rows below; in version 3 the next four are the
        # next 8 columns of the warp's tile
        return [(0, 1), (8, 0)] + _bits(2, 1, self.instr_shape[1] // 8, 8)

    def _lane_bases(self) -> list[Index]:
        return [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]  # threadID_in_group, then groupID

    def _warp_bases(self) -> list[Index]:
        warps_m, warps_n = self.warps_per_cta
        if self.version == 3:
            return _bits(2, 0, warps_m, 16) + _bits(2, 1, warps_n, self.instr_shape[1])
        return _bits(2, 1, warps_n, 8) + _bits(2, 0, warps_m, 16)

    # --8<-- [start:mma-elements]
    def elements(self, warp: int, lane: int, shape: Sequence[int]) -> list[Index]:
        rows, cols = self.check_shape(shape)
        warps_m, warps_n = self.warps_per_cta
        if self.version == 3:
            warp_n, warp_m = divmod(warp, warps_m)  # down M first: a warpgroup is 4 warps of rows
        else:
            warp_m, warp_n = divmod(warp, warps_n)
        group, thread_in_group = lane >> 2, lane % 4  # PTX ISA: groupID, threadID_in_group
        width = self.instr_shape[1]  # columns of one warp's tile
        tile_m, tile_n = 16 * warps_m, width * warps_n
        result = []
        for repeat_m in range(max(1, rows // tile_m)):
            for repeat_n in range(max(1, cols // tile_n)):
                for eight in range(width // 8):
                    for c in range(4):  # c0..c3: (r, c), (r, c+1), (r+8, c), (r+8, c+1)
                        row = repeat_m * tile_m + warp_m * 16 + group + 8 * (c >> 1)
                        col = repeat_n * tile_n + warp_n * width + 8 * eight + 2 * thread_in_group \
                            + (c & 1)
                        result.append((row % rows, col % cols))
        return result
    # --8<-- [end:mma-elements]


@dataclass(frozen=True)
class DotOperandLayout(DerivedLayout):
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
        if not isinstance(self.parent, MmaLayout) or self.parent.version != 2:
            raise ValueError(f"DotOperandLayout.parent must be a version 2 MmaLayout, got {self.parent}")
        if self.k_width not in (1, 2, 4):
            raise ValueError(f"DotOperandLayout.k_width is 1, 2 or 4 (elements per 32-bit register), "
                             f"got {self.k_width}")

    def __str__(self) -> str:
        return f"#dot_op<{{opIdx={self.op_idx}, parent={self.parent}, kWidth={self.k_width}}}>"

    @property
    def order(self) -> tuple[int, ...]:
        return (1, 0) if self.op_idx == 0 else (0, 1)  # K varies fastest

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
    of k. A thread's only "register" is the buffer's address. `k_contiguous`: a 16-bit B of wgmma
    stored K-major (as loaded, K fastest), which the instruction reads untransposed;
    `m_contiguous`: a 16-bit A of wgmma stored M-major (as loaded, M fastest: `x.T` of a
    row-major x, a weight gradient's X^T), which the instruction transposes."""

    op_idx: int
    parent: MmaLayout | BlockedLayout
    k_contiguous: bool = False
    m_contiguous: bool = False

    def __str__(self) -> str:
        major = ", kContiguous=true" if self.k_contiguous else ""
        major += ", mContiguous=true" if self.m_contiguous else ""
        return f"#shared_operand<{{opIdx={self.op_idx}, parent={self.parent}{major}}}>"

    def registers_per_thread(self, shape: Sequence[int]) -> int:
        return 1
