"""Register prefetch (`passes/prefetch`): which loops load their tiles an iteration ahead, and that
the loads past the end read nothing: on the GPU as in the interpreter, at sizes that leave the last
iteration partial, and at zero iterations."""
import re

import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton.examples.rms_norm import column_sum_kernel as column_sums  # Out[c] = sum of X[:, c]
from minitriton.passes.prefetch import PREFETCH_BYTES


@triton.jit
def gathered_sums(X, Index, Out, COUNT, N: tl.constexpr):
    """Out = the sum of the rows X[Index[i]]: the load's address comes from memory too."""
    cols = tl.arange(0, N)
    total = tl.zeros([N], tl.float32)
    for i in range(COUNT):
        total += tl.load(X + tl.load(Index + i) * N + cols)
    tl.store(Out + cols, total)


@triton.jit
def copy_rows(X, Y, ROWS, N: tl.constexpr):
    """A loop that stores: left as it is."""
    cols = tl.arange(0, N)
    for r in range(ROWS):
        tl.store(Y + r * N + cols, tl.load(X + r * N + cols) * 2)


@triton.jit
def pointer_walk(X, Out, STEPS, N: tl.constexpr):
    """A pointer carried by the loop: its next value is the loop's, left as it is."""
    cols = tl.arange(0, N)
    p = X + cols
    total = tl.zeros([N], tl.float32)
    for _ in range(STEPS):
        total += tl.load(p)
        p += N
    tl.store(Out + cols, total)


def loop_of(kernel, *args, **meta) -> str:
    """The printed loop of `kernel`, compiled for sm_90a: from its `for` to its `yield`."""
    text = kernel.warmup(*args, grid=(1,), target="sm_90a", **meta).asm["layout"]
    start = re.search(r"^ +(%[\w, %]+ = )?for ", text, re.MULTILINE).start()
    return text[start:text.index("yield", start)]


def test_the_next_rows_are_loaded_at_the_top_of_the_body_and_carried():
    x, out = np.zeros((100, 200), np.float32), np.zeros(200, np.float32)
    loop = loop_of(column_sums, x, out, 100, 200, BLOCK_R=32, BLOCK_N=128)
    header, body = loop.split("\n", 1)
    assert header.count("tile<32x128xf32>") == 2  # the sums and the rows ahead
    lines = body.splitlines()
    load = next(i for i, line in enumerate(lines) if " = load " in line)
    add = next(i for i, line in enumerate(lines) if " = add " in line and "tile<32x128xf32>" in line)
    assert load < add and "predicate='lt'" in body  # the load first; masked past the end


def test_a_load_whose_address_comes_from_memory_is_read_ahead_with_it():
    x, index, out = np.zeros((8, 64), np.float32), np.zeros(5, np.int32), np.zeros(64, np.float32)
    header = loop_of(gathered_sums, x, index, out, 5, N=64).split("\n", 1)[0]
    assert header.count("tile<64xf32>") == 2


@pytest.mark.parametrize("kernel, args, meta, carried", [
    (copy_rows, lambda: (np.zeros((4, 64), np.float32), np.zeros((4, 64), np.float32), 4), {"N": 64}, 0),
    (pointer_walk, lambda: (np.zeros(256, np.float32), np.zeros(64, np.float32), 4), {"N": 64}, 2),
    (column_sums, lambda: (np.zeros((100, 200), np.float32), np.zeros(200, np.float32), 100, 200),
     {"BLOCK_R": 32, "BLOCK_N": 128, "num_stages": 1}, 1),
], ids=["stores", "carried-pointer", "one-stage"])
def test_loops_left_as_they_are(kernel, args, meta, carried):
    """The loop carries what the kernel's own loop does, and no tile more."""
    loop = loop_of(kernel, *args(), **meta)
    assert loop.split("\n", 1)[0].count("tile<") == carried


@pytest.mark.parametrize("block_r, num_warps, held", [(32, 4, True), (64, 4, False), (16, 16, True),
                                                     (64, 16, False)])
def test_tiles_past_the_register_budget_are_not_held(block_r, num_warps, held):
    """A block may hold PREFETCH_BYTES of tiles ahead, whatever its warps: 32 x 128 fp32 (16 KB) is
    held and 64 x 128 (32 KB) is not at 4 warps; at 16 warps a thread may hold 8 registers, which
    the 16 x 128 tile's 4 floats a thread fit and the 64 x 128 tile's 16 do not."""
    assert PREFETCH_BYTES == 16 << 10
    x, out = np.zeros((300, 128), np.float32), np.zeros(128, np.float32)
    header = loop_of(column_sums, x, out, 300, 128, BLOCK_R=block_r, BLOCK_N=128,
                     num_warps=num_warps).split("\n", 1)[0]
    assert header.count(f"tile<{block_r}x128xf32>") == (2 if held else 1)


@pytest.mark.parametrize("rows, n", [(0, 200), (1, 200), (37, 200), (100, 130), (64, 128)])
def test_column_sums_agree_with_numpy(device, rows, n):
    x = np.random.default_rng(rows + n).standard_normal((max(rows, 1), n)).astype(np.float32)
    out = device.array(np.full(n, np.nan, np.float32))
    column_sums[(triton.cdiv(n, 128),)](device.array(x), out, rows, n, BLOCK_R=32, BLOCK_N=128)
    np.testing.assert_allclose(device.numpy(out), x[:rows].sum(axis=0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("count", [0, 1, 6])
def test_gathered_sums_agree_with_numpy(device, count):
    rng = np.random.default_rng(count)
    x = rng.standard_normal((8, 64)).astype(np.float32)
    index = rng.integers(0, 8, max(count, 1)).astype(np.int32)
    out = device.array(np.full(64, np.nan, np.float32))
    gathered_sums[(1,)](device.array(x), device.array(index), out, count, N=64)
    np.testing.assert_allclose(device.numpy(out), x[index[:count]].sum(axis=0), rtol=1e-5, atol=1e-5)
