"""Tile manipulation, each function against numpy: sort, topk, flip, join, split, interleave, cat,
permute, gather, histogram, map_elementwise and inline_asm_elementwise.

Kernels are launched in the interpreter; the conftest also compiles each for sm_80, sm_90 and
sm_90a (ptxas included), so the code generator sees every case, and on a GPU machine
MINITRITON_GPU_DIFF=1 runs each launch there too and holds it to the interpreter's results. Inputs
come from fixed seeds, lengths are not multiples of the blocks (masked loads), several programs
run, outputs start poisoned, and num_warps varies so that the networks cross lanes and warps.
"""
import re

import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton import ir
from minitriton.codegen import movement
from minitriton.errors import CompilationError, InterpreterError
from minitriton.floats import bf16_bits, round_to_bf16
from minitriton.layouts import BlockedLayout, default_blocked, merged_pairs, with_pairs, without_pairs
from minitriton.passes.geometry import register_map, relinearize


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


def poisoned(shape, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    return np.full(shape, np.nan if dtype.kind == "f" else np.iinfo(dtype).max // 3, dtype)


def random_values(rng, shape, dtype, ties=False) -> np.ndarray:
    """Values of `dtype`; with `ties`, drawn from a handful so that many are equal."""
    dtype = np.dtype(dtype)
    if ties:
        return rng.integers(0 if dtype.kind == "u" else -3, 4, shape).astype(dtype)
    if dtype.kind == "f":
        return (rng.standard_normal(shape) * 100).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -10**6), min(info.max, 10**6), shape, endpoint=True).astype(dtype)


def largest(dtype):
    dtype = np.dtype(dtype)
    return float("inf") if dtype.kind == "f" else int(np.iinfo(dtype).max)


# ------------------------------------------------------------------------------------ sort and topk

@triton.jit
def sort_rows_kernel(x_ptr, out_ptr, n_rows, n_cols, pad, ROWS: tl.constexpr, COLS: tl.constexpr,
                     DESCENDING: tl.constexpr):
    """Each program sorts ROWS rows of n_cols elements; the rest of each COLS-long tile is `pad`."""
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    cols = tl.arange(0, COLS)[None, :]
    inside = (rows < n_rows) & (cols < n_cols)
    x = tl.load(x_ptr + rows * n_cols + cols, mask=inside, other=pad)
    tl.store(out_ptr + rows * n_cols + cols, tl.sort(x, descending=DESCENDING), mask=inside)


def run_sort(x: np.ndarray, rows_per_program: int, cols: int, descending: bool, num_warps: int) -> np.ndarray:
    n_rows, n_cols = x.shape
    pad = -largest(x.dtype) if descending else largest(x.dtype)
    if x.dtype.kind in "iu":
        pad = int(np.iinfo(x.dtype).min) if descending else int(np.iinfo(x.dtype).max)
    out = poisoned(x.shape, x.dtype)
    grid = (triton.cdiv(n_rows, rows_per_program),)
    sort_rows_kernel[grid](x, out, n_rows, n_cols, pad, ROWS=rows_per_program, COLS=cols,
                           DESCENDING=descending, num_warps=num_warps)
    return out


@pytest.mark.parametrize("dtype, rows, n_cols, block_rows, block_cols, descending, num_warps", [
    (np.float32, 1, 1000, 1, 1024, False, 4),
    (np.float32, 7, 50, 2, 64, True, 4),
    (np.float16, 5, 30, 4, 32, False, 8),
    (np.int32, 9, 16, 4, 16, True, 1),
    (np.int8, 3, 100, 1, 128, False, 4),
    (np.uint8, 6, 12, 2, 16, True, 2),
    (np.int64, 4, 8, 4, 8, False, 4),
    (np.float64, 2, 256, 2, 256, True, 8),
    (np.float32, 40, 64, 64, 64, False, 4),
])
def test_sort_matches_numpy(dtype, rows, n_cols, block_rows, block_cols, descending, num_warps):
    rng = np.random.default_rng(rows * n_cols)
    x = random_values(rng, (rows, n_cols), dtype)
    got = run_sort(x, block_rows, block_cols, descending, num_warps)
    want = np.sort(x, axis=1)
    np.testing.assert_array_equal(got, want[:, ::-1] if descending else want)


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.uint8])
def test_sort_with_ties(dtype):
    x = random_values(np.random.default_rng(3), (4, 64), dtype, ties=True)
    np.testing.assert_array_equal(run_sort(x, 4, 64, False, 4), np.sort(x, axis=1))
    np.testing.assert_array_equal(run_sort(x, 4, 64, True, 4), np.sort(x, axis=1)[:, ::-1])


@pytest.mark.parametrize("rows, cols, num_warps", [(64, 64, 4), (1, 1024, 4), (8, 128, 8)])
def test_sort_network_stays_in_its_layout(rows, cols, num_warps):
    """The network's bit masks are expand_dims chains of an arange, recomputed in the tile's own
    layout (they cost nothing in the layout pass's budget): no conversion inside the network,
    however many dimensions the hypercube has."""
    x = np.zeros((rows, cols), np.float32)
    listing = sort_rows_kernel.warmup(x, x, rows, cols, 0.0, ROWS=rows, COLS=cols, DESCENDING=False,
                                      num_warps=num_warps, grid=(1,), target="sm_80").asm["layout"]
    converts = [line for line in listing.splitlines() if "convert_layout" in line]
    ranks = [len(re.search(r": tile<([^ >]*)>", line).group(1).split("x")) - 1 for line in converts]
    assert all(rank <= 2 for rank in ranks), converts  # the hypercube's tiles have up to 12 dimensions


@triton.jit
def sort_bf16_kernel(bits_ptr, out_ptr, N: tl.constexpr):
    """bf16 lives in memory as its 16 bits: load them, sort the values they hold, store the bits."""
    offs = tl.arange(0, 4)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(bits_ptr + offs).to(tl.bfloat16, bitcast=True)
    tl.store(out_ptr + offs, tl.sort(x, descending=True).to(tl.uint16, bitcast=True))


def test_sort_bfloat16():
    values = round_to_bf16(np.random.default_rng(5).standard_normal((4, 32)).astype(np.float32))
    out = np.zeros((4, 32), np.uint16)
    sort_bf16_kernel[(1,)](bf16_bits(values).astype(np.uint16), out, N=32)
    np.testing.assert_array_equal(out, bf16_bits(np.sort(values, axis=1)[:, ::-1]))


def bitonic_network(x: np.ndarray, descending: bool) -> np.ndarray:
    """Triton's sorting network, step by step along the last axis: each element meets the one whose
    position differs in bit j and the pair is ordered by `a > b` (false whenever a NaN is in it)."""
    a = x.copy()
    n = a.shape[-1]
    log_n = n.bit_length() - 1
    position = np.arange(n)
    for stage in range(1, log_n + 1):
        flip = (position >> stage) & 1 if stage < log_n else np.full(n, int(descending))
        for j in reversed(range(stage)):
            partner = a[..., position ^ (1 << j)]
            right = (position >> j) & 1
            a = np.where((a > partner) != (flip ^ right).astype(bool), partner, a)
    return a


@pytest.mark.parametrize("descending", [False, True])
def test_sort_puts_nan_where_the_network_does(descending):
    """A NaN compares false with everything, so it stays where the network's swaps leave it: not
    numpy's order (NaN last), but exactly Triton's."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((4, 32)).astype(np.float32)
    x[rng.random(x.shape) < 0.2] = np.nan
    x[0, :3] = [np.inf, -np.inf, np.nan]
    got = run_sort(x, 4, 32, descending, 4)
    np.testing.assert_array_equal(got, bitonic_network(x, descending))
    assert not np.array_equal(got, np.sort(x, axis=1)), "the NaN are meant to land away from the end"


def test_sort_network_reference_sorts():
    """The reference above is a sort where there is no NaN (so the NaN test compares with a sort)."""
    x = np.random.default_rng(2).standard_normal((3, 64))
    np.testing.assert_array_equal(bitonic_network(x, False), np.sort(x, axis=1))
    np.testing.assert_array_equal(bitonic_network(x, True), np.sort(x, axis=1)[:, ::-1])


@triton.jit
def sort_1d_kernel(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x.sort(descending=True))
    tl.store(out_ptr + N + offs, tl.sort(x, dim=0))


@pytest.mark.parametrize("n", [1, 2, 8])
def test_sort_1d_and_as_a_method(n):
    x = np.random.default_rng(n).permutation(n).astype(np.int32)
    out = poisoned(2 * n, np.int32)
    sort_1d_kernel[(1,)](x, out, N=n)
    np.testing.assert_array_equal(out, np.concatenate([np.sort(x)[::-1], np.sort(x)]))


@triton.jit
def topk_kernel(x_ptr, out_ptr, n_cols, ROWS: tl.constexpr, COLS: tl.constexpr, K: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    cols = tl.arange(0, COLS)[None, :]
    x = tl.load(x_ptr + rows * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    top = tl.topk(x, K)
    tl.static_assert(top.shape == [ROWS, K])
    tl.store(out_ptr + rows * K + tl.arange(0, K)[None, :], top)


@pytest.mark.parametrize("dtype, n_cols, cols, k, num_warps", [
    (np.float32, 100, 128, 4, 4), (np.float32, 64, 64, 64, 8), (np.float16, 30, 32, 8, 1),
    (np.float32, 1000, 1024, 1, 4), (np.float64, 16, 16, 2, 2),
])
def test_topk_is_the_k_largest_largest_first(dtype, n_cols, cols, k, num_warps):
    x = random_values(np.random.default_rng(k * cols), (6, n_cols), dtype)
    out = poisoned((6, k), np.float32)  # Triton's topk of fp16 (k < n) comes out fp32: tl.max widens
    topk_kernel[(3,)](x, out, n_cols, ROWS=2, COLS=cols, K=k, num_warps=num_warps)
    np.testing.assert_array_equal(out, np.sort(x, axis=1)[:, ::-1][:, :k].astype(np.float32))


@triton.jit
def topk_k_kernel(x_ptr, out_ptr, K: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(out_ptr + tl.arange(0, 16), tl.topk(x, K))


@pytest.mark.parametrize("k", [3, 32])
def test_topk_k_is_a_power_of_two_within_the_row(k):
    x = np.zeros(16, np.float32)
    with pytest.raises(CompilationError, match="topk's k must be a power of two, at most the size of the last"):
        topk_k_kernel[(1,)](x, x, K=k)


@triton.jit
def sort_dim_kernel(x_ptr, out_ptr, DIM: tl.constexpr):
    offs = tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :]
    tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs), dim=DIM))


def test_sort_only_along_the_last_dimension():
    x, out = np.zeros((4, 8), np.float32), np.zeros((4, 8), np.float32)
    sort_dim_kernel[(1,)](x, out, DIM=1)
    with pytest.raises(CompilationError, match="only minor dimension is currently supported") as info:
        sort_dim_kernel[(1,)](x, out, DIM=0)
    assert info.value.loc.function == "sort_dim_kernel", "the error points at the kernel's call"


# ------------------------------------------------------------------------------------------- flip

@triton.jit
def flip_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, DIM: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.flip(x, DIM))
    tl.store(out_ptr + M * N + offs, x.flip())


@pytest.mark.parametrize("dtype, shape, dim, num_warps", [
    (np.float32, (4, 64), 1, 4), (np.float32, (32, 8), 0, 4), (np.float16, (8, 16), -1, 1),
    (np.int8, (2, 128), -2, 8), (np.uint8, (16, 16), 0, 2), (np.int64, (1, 4), 1, 4),
])
def test_flip(dtype, shape, dim, num_warps):
    x = random_values(np.random.default_rng(7), shape, dtype)
    out = poisoned((2,) + shape, dtype)
    flip_kernel[(1,)](x, out, M=shape[0], N=shape[1], DIM=dim, num_warps=num_warps)
    np.testing.assert_array_equal(out[0], np.flip(x, dim))
    np.testing.assert_array_equal(out[1], np.flip(x, 1))


@triton.jit
def flip_1d_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, tl.flip(x), mask=offs < n)


def test_flip_1d_blocks():
    """Each block reversed in place: a length that is not a multiple of the block leaves the last
    block's tail (the zeros the mask read) at its front, outside the array."""
    x = np.arange(1, 101, dtype=np.float32)
    out = poisoned(100, np.float32)
    flip_1d_kernel[(4,)](x, out, 100, BLOCK=32)
    blocks = np.concatenate([x, np.zeros(28, np.float32)]).reshape(4, 32)[:, ::-1].reshape(-1)
    np.testing.assert_array_equal(out, blocks[:100])


# -------------------------------------------------------------------- join, split, interleave, cat

@triton.jit
def join_split_kernel(a_ptr, b_ptr, joined_ptr, halves_ptr, mixed_ptr, cat_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    pairs = tl.join(a, b)                                      # [BLOCK, 2]
    tl.static_assert(pairs.shape == [BLOCK, 2])
    two = tl.arange(0, 2)[None, :]
    tl.store(joined_ptr + offs[:, None] * 2 + two, pairs, mask=mask[:, None])
    left, right = tl.split(pairs * 3)                          # split(join(a, b)) is (a, b)
    tl.store(halves_ptr + offs, left, mask=mask)
    tl.store(halves_ptr + n + offs, right, mask=mask)
    lefts, rights = (pairs + 1).split()
    tl.store(halves_ptr + 2 * n + offs, lefts - rights, mask=mask)
    mixed = tl.interleave(a, b)                                # a0 b0 a1 b1 ...
    wide = tl.program_id(0) * 2 * BLOCK + tl.arange(0, 2 * BLOCK)
    tl.store(mixed_ptr + wide, mixed, mask=wide < 2 * n)
    block = tl.cat(a, b, can_reorder=True)                     # a's block, then b's
    tl.store(cat_ptr + wide, block, mask=wide < 2 * n)


@pytest.mark.parametrize("dtype, n, block, num_warps", [
    (np.float32, 300, 128, 4), (np.float16, 70, 32, 1), (np.int32, 1000, 256, 8), (np.int8, 9, 4, 4),
    (np.uint8, 64, 64, 2),
])
def test_join_split_interleave_cat(dtype, n, block, num_warps):
    rng = np.random.default_rng(n)
    a, b = random_values(rng, n, dtype), random_values(rng, n, dtype)
    joined, halves = poisoned((n, 2), dtype), poisoned(3 * n, dtype)
    mixed, cat = poisoned(2 * n, dtype), poisoned(2 * n, dtype)
    join_split_kernel[(triton.cdiv(n, block),)](a, b, joined, halves, mixed, cat, n, BLOCK=block,
                                                num_warps=num_warps)
    np.testing.assert_array_equal(joined, np.stack([a, b], axis=-1))
    with np.errstate(over="ignore"):
        differences = (a + dtype(1)) - (b + dtype(1))
        np.testing.assert_array_equal(halves, np.concatenate([a * dtype(3), b * dtype(3), differences]))
    np.testing.assert_array_equal(mixed, np.stack([a, b], axis=-1).reshape(-1))
    np.testing.assert_array_equal(cat, cat_blocks(a, b, block, n))


def cat_blocks(a, b, block, n):
    """What the programs write: each its block of a, then its block of b (past n, a block's
    elements are the masked load's zeros, and the store keeps only the first 2n)."""
    out = []
    for start in range(0, n, block):
        pa, pb = np.zeros(block, a.dtype), np.zeros(block, b.dtype)
        pa[:min(block, n - start)], pb[:min(block, n - start)] = a[start:start + block], b[start:start + block]
        out.append(np.concatenate([pa, pb]))
    return np.concatenate(out)[:2 * n]


def thread_elements(layout, shape):
    """For every thread (warp, lane) of four warps, the elements its registers hold."""
    return {(w, l): layout.elements(w, l, shape) for w in range(4) for l in range(32)}


@pytest.mark.parametrize("halves, shape", [
    (default_blocked((128,), 4), (128,)), (default_blocked((8,), 4), (8,)),
    (BlockedLayout((4,), (32,), (4,), (0,)), (1024,)), (default_blocked((16, 64), 4), (16, 64)),
    (BlockedLayout((1, 2), (8, 4), (1, 4), (0, 1)), (32, 16)), (default_blocked((2, 2), 4), (2, 2)),
])
def test_join_and_split_take_each_register_from_the_right_place(halves, shape):
    """The GPU's join and split only renumber registers: in every thread, each register of the
    result must hold the element the layouts say it holds. The rules run here on names of
    elements instead of LLVM registers."""
    joined = with_pairs(halves)
    pair_shape = shape + (2,)
    a, b = ir.Value(ir.tile(shape, ir.int32), layout=halves), ir.Value(ir.tile(shape, ir.int32), layout=halves)
    join = ir.Op("join", [a, b], [ir.Value(ir.tile(pair_shape, ir.int32), layout=joined)])
    split = ir.Op("split", [join.result], [ir.Value(ir.tile(shape, ir.int32), layout=halves) for _ in range(2)])
    pairs, singles = thread_elements(joined, pair_shape), thread_elements(halves, shape)
    for thread, held in singles.items():
        got = movement.RULES["join"](None, join, [("a", e) for e in held], [("b", e) for e in held])
        assert got == [("ab"[e[-1]], e[:-1]) for e in pairs[thread]]
        left, right = movement.RULES["split"](None, split, [("x", e) for e in pairs[thread]])
        assert left == [("x", e + (0,)) for e in held] and right == [("x", e + (1,)) for e in held]


def test_split_of_pairs_repeated_in_registers():
    """A split's operand need not be a join's layout: here each thread holds both elements of a pair
    as two repeats of a one-element block, and the halves drop that dimension."""
    pairs = BlockedLayout((1, 1), (32, 1), (4, 1), (1, 0))
    halves = without_pairs(pairs)
    assert halves == BlockedLayout((1,), (32,), (4,), (0,))
    x = ir.Value(ir.tile((256, 2), ir.int32), layout=pairs)
    split = ir.Op("split", [x], [ir.Value(ir.tile((256,), ir.int32), layout=halves) for _ in range(2)])
    for thread, held in thread_elements(halves, (256,)).items():
        left, right = movement.RULES["split"](None, split, thread_elements(pairs, (256, 2))[thread])
        assert left == [e + (0,) for e in held] and right == [e + (1,) for e in held]
    assert without_pairs(default_blocked((256, 2), 4)) is None, "lanes divide these pairs: convert first"


@pytest.mark.parametrize("halves, shape", [(default_blocked((128,), 4), (128,)),
                                           (BlockedLayout((2, 2), (4, 8), (2, 2), (1, 0)), (16, 32))])
def test_interleave_keeps_every_element_in_its_thread(halves, shape):
    """reshape(join(a, b)) in `merged_pairs` layout: the reshape is a renumbering of registers."""
    joined = with_pairs(halves)
    merged_shape = shape[:-1] + (2 * shape[-1],)
    to_src = relinearize(shape + (2,), merged_shape)
    assert register_map(joined, shape + (2,), merged_pairs(joined), merged_shape, to_src) is not None


@triton.jit
def join_2d_kernel(a_ptr, b_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    j = tl.join(a.T, b.T)                                      # [N, M, 2]
    tl.store(out_ptr + tl.arange(0, N * M * 2), tl.reshape(j, [N * M * 2]))
    x, y = tl.split(tl.join(a, b))
    tl.store(out_ptr + N * M * 2 + offs, x * 10 + y)
    tl.store(out_ptr + N * M * 3 + tl.arange(0, M)[:, None] * 2 * N + tl.arange(0, 2 * N)[None, :],
             tl.interleave(a, b))


@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_join_split_interleave_2d(num_warps):
    M, N = 8, 32
    rng = np.random.default_rng(num_warps)
    a, b = (rng.integers(0, 9, (M, N)).astype(np.int32) for _ in range(2))
    out = poisoned(M * N * 5, np.int32)
    join_2d_kernel[(1,)](a, b, out, M=M, N=N, num_warps=num_warps)
    np.testing.assert_array_equal(out[:2 * M * N], np.stack([a.T, b.T], axis=-1).reshape(-1))
    np.testing.assert_array_equal(out[2 * M * N:3 * M * N], (a * 10 + b).reshape(-1))
    np.testing.assert_array_equal(out[3 * M * N:], np.stack([a, b], axis=-1).reshape(-1))


@triton.jit
def join_scalars_kernel(out_ptr, x):
    pair = tl.join(x, x + 1)
    tl.static_assert(pair.shape == [2])
    tl.store(out_ptr + tl.arange(0, 2), pair)
    first, second = tl.split(pair)                             # two scalars
    tl.store(out_ptr + 2, second * 10 + first)


def test_join_two_scalars_and_split_them_back():
    out = poisoned(3, np.int32)
    join_scalars_kernel[(1,)](out, 4)
    np.testing.assert_array_equal(out, [4, 5, 54])


@triton.jit
def split_odd_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.split(x)


@triton.jit
def join_mixed_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.join(x, x.to(tl.int32))


@triton.jit
def cat_kernel(x_ptr, REORDER: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.cat(x, x, can_reorder=REORDER)


@triton.jit
def cat_2d_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] + tl.arange(0, 4)[None, :])
    tl.cat(x, x, can_reorder=True)


def test_shape_errors_have_tritons_phrases():
    x = np.zeros(16, np.float32)
    with pytest.raises(CompilationError, match="split needs a tensor whose last dimension has size 2"):
        split_odd_kernel[(1,)](x)
    with pytest.raises(CompilationError, match="join needs two tensors of one dtype"):
        join_mixed_kernel[(1,)](x)
    with pytest.raises(CompilationError, match="current implementation of `cat` always may reorder elements") as info:
        cat_kernel[(1,)](x, REORDER=False)
    assert "can_reorder=True" in info.value.hint
    with pytest.raises(CompilationError, match="cat takes two 1-D tensors"):
        cat_2d_kernel[(1,)](x)


# ------------------------------------------------------------------------------------------- permute

@triton.jit
def permute_kernel(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    x = tl.load(x_ptr + a * B * C + b * C + c)
    y = x.permute(1, 2, 0)                                     # [B, C, A]
    tl.store(out_ptr + tl.arange(0, A * B * C), tl.reshape(y, [A * B * C]))
    z = tl.permute(x, (2, 1, 0))                               # [C, B, A]
    tl.store(out_ptr + A * B * C + tl.arange(0, A * B * C), tl.reshape(z, [A * B * C]))


@pytest.mark.parametrize("num_warps", [1, 4])
def test_permute(num_warps):
    x = np.arange(4 * 8 * 2, dtype=np.float32).reshape(4, 8, 2)
    out = poisoned(2 * x.size, np.float32)
    permute_kernel[(1,)](x, out, A=4, B=8, C=2, num_warps=num_warps)
    np.testing.assert_array_equal(out[:x.size], np.transpose(x, (1, 2, 0)).reshape(-1))
    np.testing.assert_array_equal(out[x.size:], np.transpose(x, (2, 1, 0)).reshape(-1))


@triton.jit
def permute_short_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] + tl.arange(0, 4)[None, :])
    tl.permute(x, 0)


def test_permute_needs_every_dimension():
    with pytest.raises(CompilationError, match="permute dims must have the same length as input shape"):
        permute_short_kernel[(1,)](np.zeros(16, np.float32))


# -------------------------------------------------------------------------------------------- gather

@triton.jit
def gather_kernel(src_ptr, index_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                  AXIS: tl.constexpr):
    """src is [M, N]; along axis 1 the index is [M, K], along axis 0 it is [K, N]."""
    src = tl.load(src_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    if AXIS == 1 or AXIS == -1:
        offs = tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :]
    else:
        offs = tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :]
    index = tl.load(index_ptr + offs)
    tl.store(out_ptr + offs, tl.gather(src, index, AXIS))
    tl.store(out_ptr + M * N * 4 + offs, src.gather(index, AXIS))


@pytest.mark.parametrize("dtype, index_dtype, M, N, K, axis, num_warps", [
    (np.float32, np.int32, 8, 32, 16, 1, 4), (np.float16, np.int64, 16, 8, 32, 0, 4),
    (np.int8, np.uint8, 4, 64, 64, -1, 1), (np.int32, np.int16, 32, 32, 8, 0, 8),
    (np.float32, np.int32, 1, 128, 256, 1, 2),
])
def test_gather(dtype, index_dtype, M, N, K, axis, num_warps):
    rng = np.random.default_rng(K)
    src = random_values(rng, (M, N), dtype)
    along = (M, N)[axis]
    index = rng.integers(0, along, (M, K) if axis in (1, -1) else (K, N)).astype(index_dtype)
    out = poisoned(M * N * 4 + index.size, dtype)
    gather_kernel[(1,)](src, index, out, M=M, N=N, K=K, AXIS=axis, num_warps=num_warps)
    want = np.take_along_axis(src, index.astype(np.int64), axis).reshape(-1)
    np.testing.assert_array_equal(out[:index.size], want)
    np.testing.assert_array_equal(out[M * N * 4:], want)


@triton.jit
def gather_1d_kernel(src_ptr, index_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    src = tl.load(src_ptr + offs, mask=offs < n, other=-1.0)
    index = tl.load(index_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + offs, tl.gather(src, index, 0), mask=offs < n)


def test_gather_1d_within_each_block():
    n, block = 100, 32
    rng = np.random.default_rng(0)
    src = rng.standard_normal(n).astype(np.float32)
    index = rng.integers(0, block, n).astype(np.int32)
    index[96:] = rng.integers(0, 4, 4)                         # the last block has 4 elements
    out = poisoned(n, np.float32)
    gather_1d_kernel[(4,)](src, index, out, n, BLOCK=block)
    np.testing.assert_array_equal(out, src[(np.arange(n) // block) * block + index])


def test_gather_index_outside_the_axis_is_an_error():
    """Triton leaves such an index undefined on the GPU (its interpreter raises IndexError); here
    the interpreter names the kernel's line and the element."""
    src, out = np.zeros(32, np.float32), np.zeros(32, np.float32)
    for bad in (32, -1):
        index = np.zeros(32, np.int32)
        index[5] = bad
        with pytest.raises(InterpreterError, match=rf"gather index {bad} at \(5,\) is outside \[0, 32\)") as info:
            gather_1d_kernel[(1,)](src, index, out, 32, BLOCK=32)
        assert "tl.gather(src, index, 0)" in str(info.value)


@triton.jit
def gather_rank_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] + tl.arange(0, 4)[None, :])
    tl.gather(x, tl.arange(0, 4), 0)


@triton.jit
def gather_shape_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :])
    index = tl.zeros((8, 2), tl.int32)
    tl.gather(x, index, 1)


@triton.jit
def gather_float_index_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.gather(x, x, 0)


@triton.jit
def gather_axis_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.gather(x, tl.arange(0, 4), 1)


def test_gather_errors_have_tritons_phrases():
    x = np.zeros(16, np.float32)
    with pytest.raises(CompilationError, match="source and index tensors must have the same rank"):
        gather_rank_kernel[(1,)](x)
    with pytest.raises(CompilationError, match="index dim 0 must match the corresponding source dim"):
        gather_shape_kernel[(1,)](x)
    with pytest.raises(CompilationError, match="index must be an integer tensor"):
        gather_float_index_kernel[(1,)](x)
    with pytest.raises(CompilationError, match=r"gather axis 1 must be < source rank \(1\)"):
        gather_axis_kernel[(1,)](x)


# ----------------------------------------------------------------------------------------- histogram

@triton.jit
def histogram_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr, MASKED: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    if MASKED:
        counts = tl.histogram(x, BINS, mask=offs < n)
    else:
        counts = x.histogram(BINS)
    tl.store(out_ptr + tl.program_id(0) * BINS + tl.arange(0, BINS), counts)


def histogram_reference(x, n, block, bins, masked):
    out = []
    for start in range(0, max(n, 1), block):
        values = np.zeros(block, np.int64)
        values[:min(block, n - start)] = x[start:start + block]
        if masked:
            values = values[:min(block, n - start)]
        values = values[(values >= 0) & (values < bins)]
        out.append(np.bincount(values, minlength=bins))
    return np.concatenate(out).astype(np.int32)


@pytest.mark.parametrize("dtype, n, block, bins, masked, num_warps", [
    (np.int32, 1000, 256, 64, True, 4), (np.int32, 100, 128, 8, False, 4), (np.int8, 300, 128, 16, True, 1),
    (np.uint8, 512, 512, 256, True, 8), (np.int64, 70, 64, 32, True, 2), (np.int16, 64, 32, 512, True, 1),
])
def test_histogram(dtype, n, block, bins, masked, num_warps):
    """Values below 0 or at or past num_bins are not counted; with the mask, neither is the tail
    the masked load reads as 0 (without it, that tail counts in bin 0)."""
    rng = np.random.default_rng(bins)
    low = 0 if np.dtype(dtype).kind == "u" else -4
    x = rng.integers(low, bins + 4, n).astype(dtype)
    grid = triton.cdiv(n, block)
    out = poisoned(grid * bins, np.int32)
    histogram_kernel[(grid,)](x, out, n, BLOCK=block, BINS=bins, MASKED=masked, num_warps=num_warps)
    np.testing.assert_array_equal(out, histogram_reference(x, n, block, bins, masked))


@triton.jit
def histogram_of_booleans_kernel(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, 2), tl.histogram(x > 0, 2))


def test_histogram_of_booleans():
    """A comparison's result is an integer tile too: False in bin 0, True in bin 1."""
    x = np.random.default_rng(4).standard_normal(256).astype(np.float32)
    out = poisoned(2, np.int32)
    histogram_of_booleans_kernel[(1,)](x, out, N=256)
    np.testing.assert_array_equal(out, [np.sum(x <= 0), np.sum(x > 0)])


@triton.jit
def histogram_2d_kernel(x_ptr):
    tl.histogram(tl.load(x_ptr + tl.arange(0, 4)[:, None] + tl.arange(0, 4)[None, :]), 4)


@triton.jit
def histogram_float_kernel(x_ptr):
    tl.histogram(tl.load(x_ptr + tl.arange(0, 4)), 4)


@triton.jit
def histogram_bins_kernel(x_ptr):
    tl.histogram(tl.load(x_ptr + tl.arange(0, 4)).to(tl.int32), 5)


@triton.jit
def histogram_mask_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)).to(tl.int32)
    tl.histogram(x, 4, mask=x)


def test_histogram_errors_have_tritons_phrases():
    x = np.zeros(16, np.float32)
    with pytest.raises(CompilationError, match="histogram only supports 1D input"):
        histogram_2d_kernel[(1,)](x)
    with pytest.raises(CompilationError, match="histogram only supports integer input"):
        histogram_float_kernel[(1,)](x)
    with pytest.raises(CompilationError, match="num_bins must be a power of two"):
        histogram_bins_kernel[(1,)](x)
    with pytest.raises(CompilationError, match="Mask must have boolean scalar type"):
        histogram_mask_kernel[(1,)](x)


# ----------------------------------------------------------------------------------- map_elementwise

@triton.jit
def selu_scalar(x, alpha):
    if x > 0:
        return x
    else:
        return alpha * (tl.exp(x) - 1)


@triton.jit
def div_mod_scalar(a, b):
    return a // b, a % b


@triton.jit
def swap_pairs(x0, x1):
    return x1, x0


@triton.jit
def map_kernel(x_ptr, a_ptr, b_ptr, out_ptr, q_ptr, r_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.map_elementwise(selu_scalar, x, 1.5), mask=mask)
    a = tl.load(a_ptr + offs, mask=mask, other=1)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    q, r = tl.map_elementwise(div_mod_scalar, a, b)
    tl.store(q_ptr + offs, q, mask=mask)
    tl.store(r_ptr + offs, r, mask=mask)
    # pack=2: the function takes two elements at a time and gives two back (here: the same ones)
    (same,) = tl.map_elementwise(swap_pairs, x, pack=2)
    tl.store(out_ptr + n + offs, tl.sort(same) - tl.sort(x), mask=mask)


@pytest.mark.parametrize("n, block, num_warps", [(200, 64, 4), (5, 8, 1), (1000, 512, 8)])
def test_map_elementwise(n, block, num_warps):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    a = rng.integers(-50, 50, n).astype(np.int32)
    b = rng.integers(1, 9, n).astype(np.int32) * rng.choice([-1, 1], n).astype(np.int32)
    out, q, r = poisoned(2 * n, np.float32), poisoned(n, np.int32), poisoned(n, np.int32)
    map_kernel[(triton.cdiv(n, block),)](x, a, b, out, q, r, n, BLOCK=block, num_warps=num_warps)
    np.testing.assert_allclose(out[:n], np.where(x > 0, x, 1.5 * np.expm1(x)), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out[n:], 0)
    np.testing.assert_array_equal(q, np.trunc(a / b).astype(np.int32))  # C's division, as `//` on tiles
    np.testing.assert_array_equal(r, np.fmod(a, b))


@triton.jit
def tile_returning_scalar(x):
    return tl.zeros((4,), tl.float32) + x


@triton.jit
def map_tile_kernel(x_ptr):
    tl.map_elementwise(tile_returning_scalar, tl.load(x_ptr + tl.arange(0, 4)))


@triton.jit
def map_nothing_kernel(x_ptr):
    tl.map_elementwise(selu_scalar)


def test_map_elementwise_errors():
    x = np.zeros(4, np.float32)
    with pytest.raises(CompilationError, match="scalar_fn must return scalars"):
        map_tile_kernel[(1,)](x)
    with pytest.raises(CompilationError, match="map_elementwise must have at least 1 input tensor"):
        map_nothing_kernel[(1,)](x)


# ---------------------------------------------------------------------------- inline_asm_elementwise

@triton.jit
def asm_shift_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = tl.inline_asm_elementwise("shl.b32 $0, $1, 3;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(out_ptr + offs, y, mask=offs < n)


@triton.jit
def asm_packed_kernel(a_ptr, b_ptr, c_ptr, d_ptr, BLOCK: tl.constexpr):
    """Triton's documented example: four uint8 in one register, four fp32 each in its own."""
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    (c, d) = tl.inline_asm_elementwise(
        asm="""
        {
            .reg .b8 tmp<4>;
            mov.b32 {tmp0, tmp1, tmp2, tmp3}, $8;
            cvt.u32.u8 $0, tmp0;
            cvt.u32.u8 $1, tmp1;
            cvt.u32.u8 $2, tmp2;
            cvt.u32.u8 $3, tmp3;
        }
        cvt.rn.f32.s32 $4, $0;
        cvt.rn.f32.s32 $5, $1;
        cvt.rn.f32.s32 $6, $2;
        cvt.rn.f32.s32 $7, $3;
        max.f32 $4, $4, $9;
        max.f32 $5, $5, $10;
        max.f32 $6, $6, $11;
        max.f32 $7, $7, $12;
        """,
        constraints="=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r",
        args=[a, b], dtype=(tl.int32, tl.float32), is_pure=True, pack=4)
    tl.store(c_ptr + offs, c)
    tl.store(d_ptr + offs, d)


@triton.jit
def asm_half_pairs_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    """pack=2 of fp16: two halves share a 32-bit register, in and out."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("add.rn.f16x2 $0, $1, $1;", "=r,r", [x], dtype=tl.float16, is_pure=True, pack=2)
    tl.store(out_ptr + offs, y)


def test_inline_asm_is_not_interpreted():
    """As in Triton's interpreter, inline PTX cannot run on the CPU: the error says so at the
    kernel's line. (The conftest has compiled the kernel for the GPUs by then: the PTX assembles.)"""
    x, out = np.arange(100, dtype=np.int32), np.zeros(100, np.int32)
    with pytest.raises(InterpreterError, match="inline_asm not supported in interpreter mode") as info:
        asm_shift_kernel[(1,)](x, out, 100, BLOCK=128)
    assert "tl.inline_asm_elementwise" in str(info.value)


@pytest.mark.parametrize("kernel, args, text", [
    (asm_shift_kernel, lambda: (np.zeros(64, np.int32), np.zeros(64, np.int32), 64), "shl.b32"),
    (asm_packed_kernel, lambda: tuple(np.zeros(64, t) for t in (np.uint8, np.float32, np.int32, np.float32)),
     "cvt.u32.u8"),
    (asm_half_pairs_kernel, lambda: (np.zeros(64, np.float16), np.zeros(64, np.float16)), "add.rn.f16x2"),
])
@pytest.mark.parametrize("num_warps", [1, 4])
def test_inline_asm_is_in_the_ptx(kernel, args, text, num_warps):
    for arch in ("sm_80", "sm_90a"):
        ptx = kernel.warmup(*args(), BLOCK=64, grid=(1,), target=arch, num_warps=num_warps).asm["ptx"]
        assert text in ptx


@pytest.mark.gpu
@pytest.mark.no_ptx
@pytest.mark.no_gpu_diff
def test_inline_asm_runs_on_the_gpu(monkeypatch):
    """On a GPU the PTX runs: the shift, Triton's packed example, and fp16 pairs."""
    from minitriton.driver import DeviceArray
    monkeypatch.setenv("MINITRITON_INTERPRET", "0")
    n = 1000
    x = np.arange(n, dtype=np.int32) - 500
    out = DeviceArray.from_numpy(np.zeros(n, np.int32))
    asm_shift_kernel[(triton.cdiv(n, 256),)](DeviceArray.from_numpy(x), out, n, BLOCK=256)
    np.testing.assert_array_equal(out.numpy(), x << 3)
    rng = np.random.default_rng(0)
    a = rng.integers(0, 256, 128).astype(np.uint8)
    b = (rng.standard_normal(128) * 100).astype(np.float32)
    c, d = DeviceArray.from_numpy(np.zeros(128, np.int32)), DeviceArray.from_numpy(np.zeros(128, np.float32))
    asm_packed_kernel[(1,)](DeviceArray.from_numpy(a), DeviceArray.from_numpy(b), c, d, BLOCK=128)
    np.testing.assert_array_equal(c.numpy(), a.astype(np.int32))
    np.testing.assert_array_equal(d.numpy(), np.maximum(a.astype(np.float32), b))
    h = rng.standard_normal(64).astype(np.float16)
    doubled = DeviceArray.from_numpy(np.zeros(64, np.float16))
    asm_half_pairs_kernel[(1,)](DeviceArray.from_numpy(h), doubled, BLOCK=64)
    np.testing.assert_array_equal(doubled.numpy(), h + h)
