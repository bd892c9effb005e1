"""Where a random program's tiles come from and go to: the frame and its views.

A program works on a frame: a 1-D range of `n` elements in blocks of `B` (grid `cdiv(n, B)`), or
an `M x N` row-major matrix in blocks of `BM x BN` (grid `(cdiv(M, BM), cdiv(N, BN))`); the sizes
are never multiples of the blocks, so the last programs are partly masked. A *view* is a tile
shape together with the position, in the program's block, of each of its elements:
`position = sum(index[k] * stride[k])`. The base view is the block itself; the others are its
transpose, its reshapes, and the transposes of those. The kernel computes each view's offsets and
mask from `tl.arange`s of its own, independently of `tl.trans` and `tl.reshape`, so a load in one
view and a shape op applied to a load in another must agree.

The reference holds a tile as an array `(P, *shape)`, P being the number of programs (program
ids in row-major order of the grid).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class View:
    name: str                     # suffix of the kernel's names for it: offs{name}, mask{name}
    shape: tuple[int, ...]
    strides: tuple[int, ...]      # position in the block = sum(index * stride)

    def positions(self) -> np.ndarray:
        grids = np.meshgrid(*[np.arange(s) for s in self.shape], indexing="ij")
        return sum(g * s for g, s in zip(grids, self.strides)).astype(np.int64)


@dataclass
class Frame:
    block: tuple[int, ...]        # (B,) or (BM, BN)
    size: tuple[int, ...]         # (n,) or (M, N)
    views: dict[str, View] = field(default_factory=dict)

    @property
    def grid(self) -> tuple[int, ...]:
        return tuple(-(-s // b) for s, b in zip(self.size, self.block))

    @property
    def programs(self) -> int:
        return math.prod(self.grid)

    @property
    def numel(self) -> int:
        return math.prod(self.block)

    # --- the kernel's side ------------------------------------------------------------------------
    def preamble(self) -> list[str]:
        if len(self.block) == 1:
            return ["pid = tl.program_id(0)", "program = pid"]
        return ["pid_m = tl.program_id(0)", "pid_n = tl.program_id(1)",
                "program = pid_m * tl.num_programs(1) + pid_n"]

    def view_lines(self, view: View) -> list[str]:
        """The kernel lines that compute a view's offsets and mask."""
        if len(view.shape) == 1:
            e = f"tl.arange(0, {view.shape[0]})" + (f" * {view.strides[0]}" if view.strides[0] != 1 else "")
        else:
            parts = [f"tl.arange(0, {view.shape[0]})[:, None]", f"tl.arange(0, {view.shape[1]})[None, :]"]
            e = " + ".join(p + (f" * {s}" if s != 1 else "") for p, s in zip(parts, view.strides))
        n = view.name
        if len(self.block) == 1:
            return [f"e{n} = {e}", f"offs{n} = pid * B + e{n}", f"mask{n} = offs{n} < n"]
        return [f"e{n} = {e}", f"rows{n} = pid_m * BM + e{n} // BN", f"cols{n} = pid_n * BN + e{n} % BN",
                f"offs{n} = rows{n} * N + cols{n}", f"mask{n} = (rows{n} < M) & (cols{n} < N)"]

    def size_args(self) -> list[str]:
        return ["n"] if len(self.block) == 1 else ["M", "N"]

    def block_args(self) -> dict[str, int]:
        return {"B": self.block[0]} if len(self.block) == 1 else {"BM": self.block[0], "BN": self.block[1]}

    # --- the reference's side ---------------------------------------------------------------------
    def tiles(self, full: np.ndarray, fill) -> np.ndarray:
        """A frame-shaped array cut into the programs' blocks, (P, numel), padded with `fill`."""
        padded = np.full(tuple(g * b for g, b in zip(self.grid, self.block)), fill, full.dtype)
        padded[tuple(slice(0, s) for s in self.size)] = full
        if len(self.block) == 1:
            return padded.reshape(self.programs, self.numel)
        (gm, gn), (bm, bn) = self.grid, self.block
        return padded.reshape(gm, bm, gn, bn).transpose(0, 2, 1, 3).reshape(self.programs, self.numel)

    def untile(self, tiles: np.ndarray) -> np.ndarray:
        """tiles' inverse: (P, numel) back to the frame's shape, padding cut off."""
        if len(self.block) == 1:
            full = tiles.reshape(-1)
        else:
            (gm, gn), (bm, bn) = self.grid, self.block
            full = tiles.reshape(gm, gn, bm, bn).transpose(0, 2, 1, 3).reshape(gm * bm, gn * bn)
        return full[tuple(slice(0, s) for s in self.size)]

    def valid(self) -> np.ndarray:
        """(P, numel): which block positions of each program are inside the frame."""
        return self.tiles(np.ones(self.size, bool), False)

    def gather(self, tiles: np.ndarray, view: View) -> np.ndarray:
        """(P, numel) -> (P, *view.shape): each view element's block position."""
        return tiles[:, view.positions()]


def make_frame(rng: np.random.Generator) -> Frame:
    """A 1-D or 2-D frame with several programs, sizes not multiples of the blocks, and its views."""
    if rng.random() < 0.45:
        b = int(rng.choice([16, 32, 64, 128, 256, 512, 1024], p=[.1, .15, .2, .2, .15, .1, .1]))
        programs = int(rng.integers(2, 5))
        frame = Frame((b,), (b * (programs - 1) + int(rng.integers(1, b)),))
        frame.views[""] = View("", (b,), (1,))
        r = 2 ** int(rng.integers(1, int(math.log2(b))))
        frame.views["_r"] = View("_r", (r, b // r), (b // r, 1))
        frame.views["_rt"] = View("_rt", (b // r, r), (1, b // r))
        return frame
    bm, bn = (int(rng.choice([16, 32, 64])) for _ in range(2))
    if rng.random() < 0.35:
        bn = bm  # square blocks: a tile and its transpose have one shape, and mix
    gm, gn = (int(rng.integers(1, 4)) for _ in range(2))
    if gm * gn == 1:
        gm = 2
    m = bm * (gm - 1) + int(rng.integers(1, bm)) if gm > 1 else int(rng.integers(1, bm))
    n = bn * (gn - 1) + int(rng.integers(1, bn)) if gn > 1 else int(rng.integers(1, bn))
    frame = Frame((bm, bn), (m, n))
    frame.views[""] = View("", (bm, bn), (bn, 1))
    frame.views["_t"] = View("_t", (bn, bm), (1, bn))
    frame.views["_f"] = View("_f", (bm * bn,), (1,))
    r = 2 ** int(rng.integers(1, int(math.log2(bm * bn))))
    if (r, bm * bn // r) not in ((bm, bn), (bn, bm)):
        frame.views["_r"] = View("_r", (r, bm * bn // r), (bm * bn // r, 1))
    return frame
