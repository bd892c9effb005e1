"""The access picture (chapters 1 and 5): which elements each program of a launch loads and stores,
and which of its lanes are masked off, recorded by the interpreter.

Run it from the repository root with `python chapters/examples/access_picture.py`: it prints the
pictures as text; `scripts/figures.py` draws them as the chapters' SVGs.
"""
import os
import sys
from pathlib import Path

os.environ.setdefault("MINITRITON_INTERPRET", "1")  # the recorder watches the interpreter
sys.path.insert(0, str(Path(__file__).resolve().parent))  # chapter 5's kernels, beside this file

import numpy as np  # noqa: E402

import minitriton as triton  # noqa: E402
from minitriton.examples.tutorials import add_kernel  # noqa: E402
from minitriton.interpreter import record_accesses  # noqa: E402

from coalesce_examples import scale_block  # noqa: E402


# --8<-- [start:add]
def add_accesses(n: int = 200, block: int = 64):
    """Vector add over n elements in blocks of `block`: the last program masks off its tail."""
    rng = np.random.default_rng(0)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    with record_accesses() as accesses:
        add_kernel[(triton.cdiv(n, block),)](x, y, out, n, BLOCK_SIZE=block)
    assert np.array_equal(out, x + y)
    return accesses.last  # what the launch touched: .masks(...), .text(), .svg()
# --8<-- [end:add]


# --8<-- [start:scale_block]
def scale_block_accesses(m: int = 20, n: int = 40, stride: int = 48):
    """scale_block's 8 x 16 blocks over an m x n matrix whose rows are `stride` apart: the blocks
    on the right and bottom edges cross them, and boundary_check masks what falls outside."""
    x = np.random.default_rng(0).random((m, stride), dtype=np.float32)
    expected = x.copy()
    expected[:, :n] *= 2
    with record_accesses() as accesses:
        scale_block[(triton.cdiv(m, 8), triton.cdiv(n, 16))](x, m, n, stride, BLOCK_M=8, BLOCK_N=16)
    assert np.array_equal(x, expected)
    return accesses.last
# --8<-- [end:scale_block]


if __name__ == "__main__":
    print(add_accesses().text(), end="\n\n")
    print(scale_block_accesses().text())
