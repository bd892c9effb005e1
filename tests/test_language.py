"""Every item of the language, in a small kernel run by the interpreter and compared with numpy.

Kernels are written the way a Triton user writes them. Where a law holds for all inputs (an
elementwise operator equals numpy's) hypothesis draws the inputs; elsewhere inputs come from fixed
seeds. Sizes are not multiples of the blocks and outputs start poisoned, so unwritten elements show.
"""
import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minitriton as triton
import minitriton.language as tl
from minitriton.floats import round_to_bf16
from minitriton.ir import dtype_from_numpy


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


INTS = [np.int8, np.int16, np.int32, np.int64]
UINTS = [np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]
ALL = INTS + UINTS + FLOATS
few = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def ttir(kernel, *args, **kwargs) -> str:
    return kernel.warmup(*args, grid=(1,), **kwargs).asm["ttir"]


def random_array(rng, dtype, n, low=None, high=None):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.uniform(-10 if low is None else low, 10 if high is None else high, n).astype(dtype)
    info = np.iinfo(dtype)
    lo = info.min if low is None else max(low, info.min)
    hi = info.max if high is None else min(high, info.max)
    return rng.integers(lo, hi, n, dtype=dtype, endpoint=True)


# ------------------------------------------------------------------- program_id and num_programs

@triton.jit
def grid_kernel(out_ptr):
    x, y, z = tl.program_id(0), tl.program_id(1), tl.program_id(axis=2)
    nx, ny, nz = tl.num_programs(0), tl.num_programs(1), tl.num_programs(axis=2)
    linear = (z * ny + y) * nx + x
    base = out_ptr + linear * 6
    tl.store(base + 0, x)
    tl.store(base + 1, y)
    tl.store(base + 2, z)
    tl.store(base + 3, nx)
    tl.store(base + 4, ny)
    tl.store(base + 5, nz)


@pytest.mark.parametrize("grid", [(5,), (3, 2), (2, 3, 4), 7, (1, 1, 1)])
def test_program_id_and_num_programs(grid):
    full = (grid,) if isinstance(grid, int) else grid
    full = tuple(full) + (1,) * (3 - len(full))
    out = np.full((full[2], full[1], full[0], 6), -1, np.int32)
    grid_kernel[grid](out)
    z, y, x = np.meshgrid(np.arange(full[2]), np.arange(full[1]), np.arange(full[0]), indexing="ij")
    np.testing.assert_array_equal(out[..., 0], x)
    np.testing.assert_array_equal(out[..., 1], y)
    np.testing.assert_array_equal(out[..., 2], z)
    assert (out[..., 3:] == np.array(full)).all()


def test_empty_grid_runs_nothing():
    out = np.full(6, -1, np.int32)
    grid_kernel[(0,)](out)
    assert (out == -1).all()


# ------------------------------------------------------------------------- arange, zeros, full

@triton.jit
def arange_kernel(out_ptr, START: tl.constexpr, END: tl.constexpr):
    r = tl.arange(START, END)
    tl.static_assert(r.dtype == tl.int32)
    tl.store(out_ptr + r - START, r)


@pytest.mark.parametrize("start, end", [(0, 1), (0, 16), (3, 11), (100, 228)])
def test_arange(start, end):
    out = np.full(end - start, -1, np.int32)
    arange_kernel[(1,)](out, START=start, END=end)
    np.testing.assert_array_equal(out, np.arange(start, end))


@triton.jit
def fill_kernel(out_ptr, value, DTYPE: tl.constexpr, VALUE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    z = tl.zeros((BLOCK,), dtype=DTYPE)
    c = tl.full([BLOCK], VALUE, DTYPE)
    r = tl.full((BLOCK,), value, dtype=DTYPE)  # a runtime scalar, converted to DTYPE
    tl.static_assert(z.dtype == DTYPE and c.dtype == DTYPE and r.dtype == DTYPE)
    tl.store(out_ptr + offs, z)
    tl.store(out_ptr + BLOCK + offs, c)
    tl.store(out_ptr + 2 * BLOCK + offs, r)


@pytest.mark.parametrize("dtype", ALL)
def test_zeros_and_full(dtype):
    out = np.full(3 * 8, 99, dtype)
    fill_kernel[(1,)](out, 5, DTYPE=dtype_from_numpy(np.dtype(dtype)), VALUE=7, BLOCK=8)
    np.testing.assert_array_equal(out, np.repeat(np.array([0, 7, 5], dtype), 8))


@triton.jit
def zeros_2d_kernel(out_ptr, M: tl.constexpr, N: tl.constexpr):
    acc = tl.zeros([M, N], dtype=tl.float32) + 1.5
    acc = acc + tl.zeros_like(acc)
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    tl.store(out_ptr + rows * N + cols, acc)


def test_zeros_2d():
    out = np.full((4, 16), np.nan, np.float32)
    zeros_2d_kernel[(1,)](out, M=4, N=16)
    assert (out == 1.5).all()


# ----------------------------------------------------------------------- load and store with masks

@triton.jit
def masked_copy_kernel(x_ptr, out_ptr, n, OTHER: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=OTHER)
    tl.store(out_ptr + offs, x)  # the output is a whole number of blocks: no mask needed


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float16, np.float32])
def test_load_mask_other(dtype):
    n, block = 45, 16
    x = random_array(np.random.default_rng(1), dtype, n, 0, 100)
    out = np.zeros(48, dtype)
    masked_copy_kernel[(3,)](x, out, n, OTHER=-1 if np.dtype(dtype).kind != "u" else 77, BLOCK=block)
    np.testing.assert_array_equal(out[:n], x)
    assert (out[n:] == np.array(-1 if np.dtype(dtype).kind != "u" else 77).astype(dtype)).all()


@triton.jit
def masked_load_no_other_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)  # masked-off lanes read as 0
    tl.store(out_ptr + offs, x)


def test_load_mask_without_other_gives_zero():
    x = np.arange(1, 6, dtype=np.float32)
    out = np.full(8, np.nan, np.float32)
    masked_load_no_other_kernel[(1,)](x, out, 5, BLOCK=8)
    np.testing.assert_array_equal(out, [1, 2, 3, 4, 5, 0, 0, 0])


@triton.jit
def masked_store_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    value = offs * 2
    tl.store(out_ptr + offs, value, mask=(offs < n) & (offs % 3 != 0))


def test_store_mask():
    n = 50
    out = np.full(64, -7, np.int32)
    masked_store_kernel[(4,)](out, n, BLOCK=16)
    i = np.arange(64)
    expected = np.where((i < n) & (i % 3 != 0), 2 * i, -7)
    np.testing.assert_array_equal(out, expected)


@triton.jit
def scalar_load_store_kernel(x_ptr, out_ptr):
    v = tl.load(x_ptr + 3)
    tl.store(out_ptr, v * 2)
    tl.store(out_ptr + 1, 5.0)  # a Python number stored through a pointer to fp32


def test_scalar_load_and_store():
    x = np.arange(8, dtype=np.float32)
    out = np.zeros(2, np.float32)
    scalar_load_store_kernel[(1,)](x, out)
    np.testing.assert_array_equal(out, [6, 5])


@triton.jit
def tile_other_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=offs * 10.0)  # `other` may be a tile
    tl.store(out_ptr + offs, x)


def test_load_other_tile():
    x = np.ones(3, np.float32)
    out = np.zeros(8, np.float32)
    tile_other_kernel[(1,)](x, out, 3, BLOCK=8)
    np.testing.assert_array_equal(out, [1, 1, 1, 30, 40, 50, 60, 70])


@triton.jit
def bool_copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=False)
    tl.static_assert(x.dtype == tl.int1)
    tl.store(out_ptr + offs, not x, mask=m)


def test_bool_arrays():
    x = np.array([True, False, False, True, True])
    out = np.zeros(5, np.bool_)
    bool_copy_kernel[(1,)](x, out, 5, BLOCK=8)
    np.testing.assert_array_equal(out, ~x)


# ------------------------------------------------------------------------ where, minimum, maximum

@triton.jit
def where_kernel(c_ptr, x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    c = tl.load(c_ptr + offs, mask=m)
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, tl.where(c > 0, x, y), mask=m)
    tl.store(out_ptr + BLOCK + offs, tl.where(c > 0, x, 0), mask=m)  # a number on one side
    tl.store(out_ptr + 2 * BLOCK + offs, tl.where(c, 1, y), mask=m)  # a non-bool condition


@pytest.mark.parametrize("dtype", [np.int8, np.uint32, np.float16, np.float64])
def test_where(dtype):
    rng = np.random.default_rng(2)
    n = 13
    c = rng.integers(-2, 3, n).astype(np.int32)
    x, y = random_array(rng, dtype, n, 0, 50), random_array(rng, dtype, n, 0, 50)
    out = np.zeros(48, dtype)
    where_kernel[(1,)](c, x, y, out, n, BLOCK=16)
    np.testing.assert_array_equal(out[:n], np.where(c > 0, x, y))
    np.testing.assert_array_equal(out[16:16 + n], np.where(c > 0, x, 0))
    np.testing.assert_array_equal(out[32:32 + n], np.where(c != 0, 1, y))


@triton.jit
def where_broadcast_kernel(cond_ptr, x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    cond = tl.load(cond_ptr + cols)  # one condition per column, broadcast over the rows
    y = tl.where(cond[None, :], x, -x)
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], y)


def test_where_broadcast():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    cond = rng.integers(0, 2, 8).astype(np.bool_)
    out = np.full_like(x, np.nan)
    where_broadcast_kernel[(1,)](cond, x, out, M=4, N=8)
    np.testing.assert_array_equal(out, np.where(cond[None, :], x, -x))


@triton.jit
def minmax_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, CLAMP: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, tl.minimum(x, y), mask=m)
    tl.store(out_ptr + BLOCK + offs, tl.maximum(x, y), mask=m)
    tl.store(out_ptr + 2 * BLOCK + offs, tl.maximum(x, 3), mask=m)
    if CLAMP:
        tl.store(out_ptr + 3 * BLOCK + offs, tl.clamp(x, 2, 9), mask=m)
        tl.store(out_ptr + 4 * BLOCK + offs, tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL), mask=m)
        tl.store(out_ptr + 5 * BLOCK + offs, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL), mask=m)
        tl.store(out_ptr + 6 * BLOCK + offs, tl.clamp(x, 2, 9, propagate_nan=tl.PropagateNan.ALL), mask=m)


@pytest.mark.parametrize("dtype", ALL)
def test_minimum_maximum(dtype):
    """Ints, and floats with NaNs: by default a NaN loses to a number (IEEE's minNum/maxNum, PTX's
    min and max; a NaN clamped is the lower bound); with PropagateNan.ALL it wins."""
    rng = np.random.default_rng(4)
    n = 29
    x, y = random_array(rng, dtype, n), random_array(rng, dtype, n)
    floats = np.dtype(dtype).kind == "f"
    if floats:
        x[[1, 5]], y[[5, 7]] = np.nan, np.nan
    out = np.full(7 * 32, 77, dtype)
    minmax_kernel[(1,)](x, y, out, n, BLOCK=32, CLAMP=floats)
    np.testing.assert_array_equal(out[:n], np.fmin(x, y))
    np.testing.assert_array_equal(out[32:32 + n], np.fmax(x, y))
    np.testing.assert_array_equal(out[64:64 + n], np.fmax(x, np.array(3, dtype)))
    if floats:
        two, nine = np.array(2, dtype), np.array(9, dtype)
        np.testing.assert_array_equal(out[96:96 + n], np.fmin(np.fmax(x, two), nine))
        np.testing.assert_array_equal(out[128:128 + n], np.minimum(x, y))
        np.testing.assert_array_equal(out[160:160 + n], np.maximum(x, y))
        np.testing.assert_array_equal(out[192:192 + n], np.clip(x, two, nine))
        assert out[97] == 2 and np.isnan(out[193])


def test_clamp_of_integers_is_refused_as_in_triton():
    x = np.zeros(32, np.int32)
    with pytest.raises(triton.CompilationError, match="Only floating point clamp is supported"):
        minmax_kernel[(1,)](x, x, np.zeros(7 * 32, np.int32), 32, BLOCK=32, CLAMP=True)


# ----------------------------------------------------------------------------- math functions

MATH = {"exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sqrt": np.sqrt,
        "rsqrt": lambda x: 1 / np.sqrt(x), "abs": np.abs, "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
        "sin": np.sin, "cos": np.cos, "floor": np.floor, "ceil": np.ceil,
        "erf": np.vectorize(__import__("math").erf), "fma": lambda x: x * x + x,
        "exp_method": np.exp, "abs_method": np.abs}
MATH_NAMES = tuple(MATH)
POSITIVE_ONLY = ("log", "log2", "sqrt", "rsqrt")


@triton.jit
def math_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Every math function at once, one output row each (rows in the order of MATH_NAMES)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1)
    positive = tl.abs(x) + 0.125
    results = (tl.exp(x), tl.exp2(x), tl.log(positive), tl.log2(positive), tl.sqrt(positive),
               tl.rsqrt(positive), tl.abs(x), tl.sigmoid(x), tl.sin(x), tl.cos(x), tl.floor(x), tl.ceil(x),
               tl.erf(x), tl.fma(x, x, x), x.exp(), x.abs())
    for k in tl.static_range(len(results)):
        y = results[k]
        # sigmoid is 1 / (1 + exp(-x)), and a 16-bit float is divided in fp32, as in Triton
        tl.static_assert(y.dtype == x.dtype or MATH_NAMES[k] == "sigmoid", "math keeps a float's dtype")
        tl.store(out_ptr + k * n + offs, y, mask=m)


@pytest.mark.parametrize("dtype", FLOATS)
def test_math(dtype):
    n = 70
    x = np.random.default_rng(5).uniform(-4, 4, n).astype(dtype)
    out = np.full((len(MATH), n), np.nan, dtype)
    math_kernel[(3,)](x, out, n, BLOCK=32)
    rtol = {np.float16: 2e-3, np.float32: 2e-6, np.float64: 1e-12}[dtype]
    x64 = x.astype(np.float64)
    positive = np.abs(x64) + 0.125
    for k, (name, fn) in enumerate(MATH.items()):
        expected = fn(positive if name in POSITIVE_ONLY else x64)
        np.testing.assert_allclose(out[k].astype(np.float64), expected, rtol=rtol, atol=rtol, err_msg=name)


@triton.jit
def int_math_kernel(x_ptr, out_ptr, abs_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1)
    tl.store(out_ptr + offs, tl.sqrt(x), mask=m)  # integers are converted to fp32 first
    tl.store(abs_ptr + offs, tl.abs(x), mask=m)  # abs of an integer stays an integer


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint16, np.int64])
def test_math_on_integers(dtype):
    x = np.array([0, 1, 4, 9, 100, 2], dtype)
    if np.dtype(dtype).kind == "i":
        x[-1] = -3
    out, absolute = np.zeros(6, np.float32), np.zeros(6, dtype)
    int_math_kernel[(1,)](x, out, absolute, 6, BLOCK=8)
    np.testing.assert_allclose(out[:5], np.sqrt(x[:5].astype(np.float32)))
    np.testing.assert_array_equal(absolute, np.abs(x))


# ---------------------------------------------------------------------------------- reductions

@triton.jit
def reduce_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, KEEP: tl.constexpr):
    """sum, max, min, argmax, argmin, x.sum(), x.max() along AXIS: one output row each."""
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    results = (tl.sum(x, axis=AXIS, keep_dims=KEEP), tl.max(x, axis=AXIS, keep_dims=KEEP),
               tl.min(x, axis=AXIS, keep_dims=KEEP), x.sum(AXIS, keep_dims=KEEP), x.max(AXIS, keep_dims=KEEP))
    if AXIS is not None:  # argmax and argmin need an axis, as in Triton
        results = results + (tl.argmax(x, axis=AXIS, keep_dims=KEEP).to(x.dtype),
                             tl.argmin(x, AXIS, keep_dims=KEEP).to(x.dtype))
    for k in tl.static_range(len(results)):
        r = results[k]
        out = out_ptr + k * M * N
        # Store the result whatever its shape: scalar, (M,), (N,), (1, N), (M, 1) or (1, 1).
        if AXIS is None:
            if KEEP:
                tl.static_assert(len(r.shape) == 2)
                tl.store(out + tl.arange(0, 1)[:, None] + tl.arange(0, 1)[None, :], r)
            else:
                tl.store(out, r)
        elif AXIS == 0:
            tl.store(out + (cols if KEEP else tl.arange(0, N)), r)
        else:
            tl.store(out + (rows if KEEP else tl.arange(0, M)), r)


REDUCTIONS = {"sum": np.sum, "max": np.max, "min": np.min, "sum_method": np.sum, "max_method": np.max,
              "argmax": np.argmax, "argmin": np.argmin}


def _sum_dtype(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu" and dtype.itemsize < 4:
        return np.dtype(np.int32 if dtype.kind == "i" else np.uint32)
    return dtype


@pytest.mark.parametrize("axis", [0, 1, None, -1])
@pytest.mark.parametrize("keep", [False, True])
def test_reduce(axis, keep):
    M, N = 4, 8
    x = np.random.default_rng(6).standard_normal((M, N)).astype(np.float32)
    out = np.full((len(REDUCTIONS), M * N), np.nan, np.float32)
    reduce_kernel[(1,)](x, out, M=M, N=N, AXIS=axis, KEEP=keep)
    for k, (name, fn) in enumerate(REDUCTIONS.items()):
        if axis is None and name.startswith("arg"):
            continue
        expected = np.asarray(fn(x, axis=axis, keepdims=keep))
        got = out[k, :expected.size].reshape(expected.shape)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=name)


@triton.jit
def reduce_rows_kernel(x_ptr, sum_ptr, max_ptr, min_ptr, argmax_ptr, argmin_ptr, M: tl.constexpr,
                       N: tl.constexpr):
    rows = tl.arange(0, M)
    x = tl.load(x_ptr + rows[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(sum_ptr + rows, tl.sum(x, axis=1))
    tl.store(max_ptr + rows, tl.max(x, axis=1))
    tl.store(min_ptr + rows, tl.min(x, axis=1))
    tl.store(argmax_ptr + rows, tl.argmax(x, axis=1))
    tl.store(argmin_ptr + rows, tl.argmin(x, axis=1))


# The GPU sums an fp16 row in its layout's order (each thread's run, then shuffles across lanes),
# the interpreter pairwise; both round to fp16 at every step, so their sums may differ by a few of
# those roundings (|error| <= log2(N) roundings of the row's magnitude, the bound checked below).
@pytest.mark.parametrize("dtype", [pytest.param(d, marks=pytest.mark.gpu_tolerance(2e-3, 0.5))
                                   if d == np.float16 else d for d in ALL])
def test_reduce_dtypes(dtype):
    M, N = 2, 16
    x = random_array(np.random.default_rng(7), dtype, M * N, -20, 20).reshape(M, N)
    sums, maxes, mins = np.zeros(M, _sum_dtype(dtype)), np.zeros(M, dtype), np.zeros(M, dtype)
    argmaxes, argmins = np.full(M, -1, np.int32), np.full(M, -1, np.int32)
    reduce_rows_kernel[(1,)](x, sums, maxes, mins, argmaxes, argmins, M=M, N=N)
    # An fp16 sum rounds at every step (Triton sums fp16 in fp16): log2(N) roundings of its magnitudes.
    steps = math.log2(N) * 2.0**-11 * np.abs(x.astype(np.float64)).sum(axis=1) if dtype == np.float16 else 0
    np.testing.assert_allclose(sums.astype(np.float64), x.astype(np.float64).sum(axis=1), rtol=2e-3, atol=np.max(steps))
    np.testing.assert_array_equal(maxes, x.max(axis=1))
    np.testing.assert_array_equal(mins, x.min(axis=1))
    np.testing.assert_array_equal(argmaxes, x.argmax(axis=1))
    np.testing.assert_array_equal(argmins, x.argmin(axis=1))


@triton.jit
def reduce_dtype_kernel(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    s = tl.sum(x, axis=0)
    tl.static_assert(s.dtype == tl.int32, "narrow integers are summed in 32 bits")
    m = tl.max(x, axis=0)
    tl.static_assert(m.dtype == tl.int32, "narrow integers are compared in 32 bits")
    v, i = tl.max(x, axis=0, return_indices=True)
    tl.static_assert(v.dtype == tl.int8, "with the indices, the values keep their type")
    tl.store(out_ptr, s)
    tl.store(out_ptr + 1, m)
    tl.store(out_ptr + 2, v)
    tl.store(out_ptr + 3, i)
    tl.store(out_ptr + 4, tl.sum(x, axis=0, dtype=tl.int8))  # an explicit dtype wraps


def test_reduce_result_dtypes_and_return_indices():
    x = np.array([100, 100, 7, -3, 100, 1, 2, 3], np.int8)
    out = np.zeros(5, np.int32)
    reduce_dtype_kernel[(1,)](x, out, N=8)
    assert list(out) == [int(x.astype(np.int32).sum()), 100, 100, 0, int(x.sum(dtype=np.int8))]


@triton.jit
def bool_sum_kernel(x_ptr, out_ptr, N: tl.constexpr):
    b = tl.load(x_ptr + tl.arange(0, N)) > 0
    s, c = tl.sum(b, 0), tl.cumsum(b, 0)
    tl.static_assert(s.dtype == tl.uint32 and c.dtype == tl.uint32, "int1 is unsigned: its sums are uint32")
    tl.store(out_ptr, s)
    tl.store(out_ptr + 1 + tl.arange(0, N), c)


def test_a_sum_of_booleans_is_a_uint32():
    """Triton's int1 is an unsigned integer, so _pick_sum_dtype makes its sums uint32. (Found by
    the fuzzer.)"""
    x = np.array([1, -1, 2, 0, 3, 5, -2, 1], np.int32)
    out = np.zeros(9, np.uint32)
    bool_sum_kernel[(1,)](x, out, N=8)
    assert list(out) == [int((x > 0).sum())] + list(np.cumsum(x > 0))


@triton.jit
def float_reduce_dtype_kernel(x_ptr, out_ptr, N: tl.constexpr, DT: tl.constexpr, WIDE: tl.constexpr):
    """The result types Triton 3.6 gives reductions of fp16 (WIDE: fp16) and bf16 (WIDE: fp32)."""
    x = tl.load(x_ptr + tl.arange(0, N)).to(DT)
    tl.static_assert(tl.max(x, axis=0).dtype == tl.float32 and tl.min(x, axis=0).dtype == tl.float32)
    tl.static_assert(tl.max(x, axis=0, keep_dims=True).dtype == tl.float32)
    tl.static_assert(tl.sum(x, axis=0).dtype == DT)
    v, i = tl.max(x, axis=0, return_indices=True)
    tl.static_assert(v.dtype == WIDE and i.dtype == tl.int32 and tl.cumsum(x, 0).dtype == WIDE)
    shifted = x - tl.max(x, axis=0)
    tl.static_assert(shifted.dtype == tl.float32)  # a 16-bit float minus an fp32 one is fp32
    tl.store(out_ptr + tl.arange(0, N), shifted)


@pytest.mark.parametrize("dtype, wide", [(tl.float16, tl.float16), (tl.bfloat16, tl.float32)])
def test_reductions_of_16_bit_floats_have_tritons_types(dtype, wide):
    x = np.array([1.0, 3.0, -2.0, 0.5, 3.0, 2.0, 1.0, 0.0], np.float32)
    out = np.full(8, np.nan, np.float32)
    float_reduce_dtype_kernel[(1,)](x, out, N=8, DT=dtype, WIDE=wide)
    assert list(out) == list(x - 3.0)


@triton.jit
def sum_steps_kernel(x_ptr, out_ptr, n, N: tl.constexpr, SCAN: tl.constexpr, FP32: tl.constexpr):
    """tl.sum or tl.cumsum of x (its masked tail is 0), in x's own type or, with FP32, in fp32."""
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    if SCAN:
        if FP32:
            tl.store(out_ptr + offs, tl.cumsum(x, 0, dtype=tl.float32), mask=offs < n)
        else:
            tl.store(out_ptr + offs, tl.cumsum(x, 0), mask=offs < n)
    else:
        if FP32:
            tl.store(out_ptr, tl.sum(x, 0, dtype=tl.float32))
        else:
            tl.store(out_ptr, tl.sum(x, 0))


def _rounded(dtype):
    """Rounding a float64 to `dtype` (once: to nearest even)."""
    return round_to_bf16 if dtype == "bfloat16" else lambda v: np.asarray(v, np.float64).astype(dtype)


def _running(x: np.ndarray, dtype) -> np.ndarray:
    """Left to right, each running value rounded to `dtype` (in float64 between roundings)."""
    rounded, out, acc = _rounded(dtype), [], None
    for v in x.astype(np.float64):
        acc = v if acc is None else float(rounded(acc + v))
        out.append(acc)
    return np.array(out)


def _halves(x: np.ndarray, dtype) -> float:
    """The interpreter's reduction tree (element i with i + n/2), each sum rounded to `dtype`."""
    x, rounded = x.astype(np.float64), _rounded(dtype)
    while len(x) > 1:
        x = np.asarray(rounded(x[:len(x) // 2] + x[len(x) // 2:]), np.float64)
    return float(x[0])


# A sum's order is the backend's own (the GPU's differs from the interpreter's tree), a scan's is not.
@pytest.mark.parametrize("scan", [pytest.param(False, marks=pytest.mark.no_gpu_diff), True], ids=["sum", "cumsum"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_sums_round_every_step_as_triton_types_them(dtype, scan):
    """Triton 3.6 sums fp16 and bf16 in their own type (tl.cumsum widens bf16 to fp32 first), so
    every step rounds: 1024 x fp16(0.1) accumulates to 108.1875, not 102.4. The interpreter gives
    exactly the rounded steps, modelled here in float64 (a sum: its tree of halves; a scan: left
    to right); with dtype=tl.float32 every step keeps fp32's precision."""
    n, N = 1000, 1024
    rng = np.random.default_rng(21)
    big = 2048.0 if dtype == "float16" else 256.0  # where adding 1 rounds back down (a tie, to even)
    x = np.concatenate([[big], np.full(599, 1.0), rng.uniform(-3, 5, n - 600)]).astype(np.float32)
    x = round_to_bf16(x) if dtype == "bfloat16" else x.astype(np.float16).astype(np.float32)
    step = "float32" if scan and dtype == "bfloat16" else dtype
    padded = np.concatenate([x, np.zeros(N - n, np.float32)])
    once = float(_rounded(step)(math.fsum(x.astype(np.float64))))
    assert (_running(x, step)[-1] if scan else _halves(padded, step)) != once  # the steps show
    array = x.astype(np.float16) if dtype == "float16" else _bf16_array(x)
    for fp32 in (False, True):
        out = np.full(N, np.nan, np.float32)
        sum_steps_kernel[(1,)](array, out, n, N=N, SCAN=scan, FP32=fp32)
        if scan:
            np.testing.assert_array_equal(out[:n], _running(x, "float32" if fp32 else step).astype(np.float32))
        elif not fp32:
            assert float(out[0]) == _halves(padded, step)
        else:
            assert abs(float(out[0]) - math.fsum(x.astype(np.float64))) <= 12 * 2.0**-24 * np.abs(x).sum()
    if dtype == "float16" and scan:
        out = np.zeros(N, np.float32)
        sum_steps_kernel[(1,)](np.full(N, 0.1, np.float16), out, N, N=N, SCAN=True, FP32=False)
        assert out[-1] == 108.1875  # as on the GPU; 102.375 would be fp32 steps rounded at the end


def _bf16_array(x: np.ndarray):
    """A bf16 array for a kernel: the bits of x (bf16 numbers held in float32)."""
    return triton.reinterpret((x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16), tl.bfloat16)


@pytest.mark.parametrize("dtype, scan, fp32, step", [
    ("float16", False, False, "f16"), ("float16", True, False, "f16"), ("float16", False, True, "f32"),
    ("float16", True, True, "f32"), ("bfloat16", True, False, "f32"),
])
def test_the_compiled_sums_step_in_the_typed_dtype(dtype, scan, fp32, step):
    """The GPU code adds in the reduction's element type: add.rn.f16 for an fp16 sum, add.rn.f32
    (and no f16 add) once the sum is asked for in fp32 or is a bf16 scan (widened to fp32)."""
    x = np.zeros(256, np.float16) if dtype == "float16" else _bf16_array(np.zeros(256, np.float32))
    compiled = sum_steps_kernel.warmup(x, np.zeros(256, np.float32), 256, N=256, SCAN=scan, FP32=fp32,
                                       grid=(1,), target="sm_80")
    ops = [line for line in compiled.asm["ttir"].splitlines() if " reduce " in line or " scan " in line]
    assert len(ops) == 1 and ops[0].endswith(f"{step}>" if scan else f": {step}"), ops
    adds = set(re.findall(r"\badd\.rn\.(f16|f32)\b", compiled.asm["ptx"]))
    assert adds == {step}, adds


def test_argmax_first_index_among_ties():
    x = np.array([[1, 5, 5, 0, 5, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0]], np.float32)
    out = np.full((len(REDUCTIONS), 16), np.nan, np.float32)
    reduce_kernel[(1,)](x, out, M=2, N=8, AXIS=1, KEEP=False)
    names = list(REDUCTIONS)
    assert list(out[names.index("argmax"), :2]) == [1, 0]
    assert list(out[names.index("argmin"), :2]) == [3, 0]


# ------------------------------------------------------------------------------------------ scans

@triton.jit
def cumsum_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    """Running sums along each axis, forward and reversed: four (M, N) results."""
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0))
    tl.store(out_ptr + M * N + offs, tl.cumsum(x, axis=1))
    tl.store(out_ptr + 2 * M * N + offs, tl.cumsum(x, axis=0, reverse=True))
    tl.store(out_ptr + 3 * M * N + offs, x.cumsum(1, reverse=True))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.float32])
def test_cumsum(dtype):
    x = random_array(np.random.default_rng(8), dtype, 4 * 8, 0, 30).reshape(4, 8)
    out = np.zeros((4, 4, 8), _sum_dtype(dtype))
    cumsum_kernel[(1,)](x, out, M=4, N=8)
    wide = x.astype(_sum_dtype(dtype))
    reverse = lambda axis: np.flip(np.cumsum(np.flip(wide, axis), axis), axis)
    for k, expected in enumerate([np.cumsum(wide, 0), np.cumsum(wide, 1), reverse(0), reverse(1)]):
        np.testing.assert_allclose(out[k], expected, rtol=1e-6)


@triton.jit
def cumsum_1d_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + offs, tl.cumsum(x, 0), mask=offs < n)
    tl.store(out_ptr + BLOCK + offs, tl.cumprod(x, 0), mask=offs < n)


def test_cumsum_1d_masked_and_cumprod():
    x = np.array([1, 2, 3, 4, 5], np.int64)
    out = np.zeros(16, np.int64)
    cumsum_1d_kernel[(1,)](x, out, 5, BLOCK=8)
    np.testing.assert_array_equal(out[:5], np.cumsum(x))
    np.testing.assert_array_equal(out[8:13], np.cumprod(x))


# --------------------------------------------------------------------------------------------- dot

@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, acc_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
               PRECISION: tl.constexpr):
    """a @ b, then acc + a @ b, into two (M, N) results."""
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    out = c_ptr + rm[:, None] * N + rn[None, :]
    tl.store(out, tl.dot(a, b, input_precision=PRECISION))
    acc = tl.load(acc_ptr + rm[:, None] * N + rn[None, :])
    tl.store(out + M * N, tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=acc.dtype))


@pytest.mark.parametrize("dtype, precision", [(np.float16, None), (np.float32, "ieee"),
                                              (np.float32, "tf32"), (np.float64, "ieee"), (np.int8, None)])
def test_dot(dtype, precision):
    rng = np.random.default_rng(9)
    M, N, K = 16, 32, 64
    a = random_array(rng, dtype, M * K, -3, 3).reshape(M, K)
    b = random_array(rng, dtype, K * N, -3, 3).reshape(K, N)
    if a.dtype.kind == "f":  # multiples of 1/64: exact in tf32 and fp16, so every precision agrees
        a, b = np.round(a * 64) / 64, np.round(b * 64) / 64
    out_dtype = np.int32 if dtype == np.int8 else (np.float64 if dtype == np.float64 else np.float32)
    acc = random_array(rng, out_dtype, M * N, -3, 3).reshape(M, N)
    c = np.full((2, M, N), -1, out_dtype)
    dot_kernel[(1,)](a, b, c, acc, M=M, N=N, K=K, PRECISION=precision)
    product = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c[0], product, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(c[1], product + acc, rtol=1e-5, atol=1e-4)


@triton.jit
def dot_fp16_out_kernel(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r[:, None] * N + r[None, :])
    b = tl.load(b_ptr + r[:, None] * N + r[None, :])
    acc = tl.zeros((N, N), dtype=tl.float32)
    acc += tl.dot(a, b)
    acc += tl.dot(a, tl.trans(b), allow_tf32=False)
    tl.store(c_ptr + r[:, None] * N + r[None, :], acc)


def test_dot_accumulate_with_plus_equals_and_trans():
    rng = np.random.default_rng(10)
    a = rng.standard_normal((16, 16)).astype(np.float16)
    b = rng.standard_normal((16, 16)).astype(np.float16)
    c = np.full((16, 16), np.nan, np.float32)
    dot_fp16_out_kernel[(1,)](a, b, c, N=16)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    np.testing.assert_allclose(c, a32 @ b32 + a32 @ b32.T, rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------------------------------ shapes

@triton.jit
def shapes_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])  # (M, N)
    t = tl.trans(x)  # (N, M)
    tl.store(out_ptr + cols[:, None] * M + rows[None, :], t)
    out_ptr += M * N
    tl.store(out_ptr + cols[:, None] * M + rows[None, :], x.T)
    out_ptr += M * N
    tl.store(out_ptr + cols[:, None] * M + rows[None, :], tl.permute(x, (1, 0)))
    out_ptr += M * N
    flat = tl.reshape(x, (M * N,))  # row-major order
    tl.store(out_ptr + tl.arange(0, M * N), flat)
    out_ptr += M * N
    r = x.reshape(N, M)
    tl.store(out_ptr + cols[:, None] * M + rows[None, :], r)
    out_ptr += M * N
    b = tl.broadcast_to(tl.expand_dims(cols, 0), (M, N))  # (1, N) -> (M, N)
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], b.to(tl.float32))
    out_ptr += M * N
    e = tl.expand_dims(rows, 1) + tl.zeros((M, N), tl.int32)  # (M, 1) + (M, N)
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], e.to(tl.float32))
    out_ptr += M * N
    s = rows[:, None, None] * 0 + cols[None, :, None] + tl.arange(0, 2)[None, None, :] * 100  # (M, N, 2)
    tl.store(out_ptr + tl.arange(0, M * N * 2), tl.view(s, [M * N * 2]).to(tl.float32))


def test_shape_ops():
    M, N = 4, 8
    x = np.random.default_rng(11).standard_normal((M, N)).astype(np.float32)
    out = np.full(M * N * 9, np.nan, np.float32)
    shapes_kernel[(1,)](x, out, M=M, N=N)
    parts = out[:7 * M * N].reshape(7, -1)
    for k in range(3):
        np.testing.assert_array_equal(parts[k].reshape(N, M), x.T)
    np.testing.assert_array_equal(parts[3], x.reshape(-1))
    np.testing.assert_array_equal(parts[4].reshape(N, M), x.reshape(N, M))
    np.testing.assert_array_equal(parts[5].reshape(M, N), np.broadcast_to(np.arange(N), (M, N)))
    np.testing.assert_array_equal(parts[6].reshape(M, N), np.broadcast_to(np.arange(M)[:, None], (M, N)))
    s = np.zeros((M, N, 1)) + np.arange(N)[None, :, None] + np.arange(2)[None, None, :] * 100
    np.testing.assert_array_equal(out[7 * M * N:], s.reshape(-1))


@triton.jit
def transpose_3d_kernel(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    x = tl.load(x_ptr + a * B * C + b * C + c)
    y = tl.permute(x, 2, 0, 1)  # (C, A, B)
    tl.store(out_ptr + c.reshape(C, 1, 1) * A * B + a.reshape(1, A, 1) * B + b.reshape(1, 1, B), y)


def test_permute_3d():
    x = np.arange(2 * 4 * 8, dtype=np.int32).reshape(2, 4, 8)
    out = np.zeros((8, 2, 4), np.int32)
    transpose_3d_kernel[(1,)](x, out, A=2, B=4, C=8)
    np.testing.assert_array_equal(out, np.transpose(x, (2, 0, 1)))


# ------------------------------------------------------------------------------- casts and bitcasts

CAST_TARGETS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
                np.float16, np.float32, np.float64, np.bool_)


@triton.jit
def cast_kernel(x_ptr, o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11, n, BLOCK: tl.constexpr):
    """x converted to the element type of each output (in the order of CAST_TARGETS)."""
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    outs = (o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11)
    for k in tl.static_range(len(outs)):
        target = outs[k].dtype.element_ty
        y = x.to(target)
        tl.static_assert(y.dtype == target)
        tl.store(outs[k] + offs, y, mask=m)


def _cast_reference(x, dst):
    """numpy's conversion, with the GPU's rules where C leaves it undefined (saturate, NaN -> 0)."""
    dst = np.dtype(dst)
    with np.errstate(all="ignore"):  # large integers become inf in fp16, as on the GPU
        if dst == np.bool_:
            return x != 0
        if x.dtype.kind == "f" and dst.kind in "iu":
            info = np.iinfo(dst)
            whole = np.trunc(np.nan_to_num(x.astype(np.float64)))
            return np.where(whole >= float(info.max), info.max,
                            np.clip(whole, info.min, info.max).astype(dst)).astype(dst)
        return x.astype(dst)


@pytest.mark.parametrize("src", CAST_TARGETS)
def test_cast(src):
    rng = np.random.default_rng(12)
    n = 30
    if np.dtype(src) == np.bool_:
        x = rng.integers(0, 2, n).astype(np.bool_)
    elif np.dtype(src).kind == "f":
        x = rng.uniform(-300, 300, n).astype(src)
        x[:4] = [0.0, -0.0, 2.5, -2.5]
    else:
        x = random_array(rng, src, n)
        x[:3] = [0, 1, 2]
    outs = [np.zeros(n, dst) for dst in CAST_TARGETS]
    cast_kernel[(1,)](x, *outs, n, BLOCK=32)
    for dst, out in zip(CAST_TARGETS, outs):
        np.testing.assert_array_equal(out, _cast_reference(x, dst),
                                      err_msg=f"{np.dtype(src)} -> {np.dtype(dst)}")


@triton.jit
def bitcast_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x.to(out_ptr.dtype.element_ty, bitcast=True), mask=m)


@pytest.mark.parametrize("src, dst", [(np.float32, np.int32), (np.int32, np.float32), (np.float16, np.int16),
                                      (np.uint16, np.float16), (np.float64, np.uint64),
                                      (np.int8, np.uint8), (np.uint32, np.int32)])
def test_bitcast(src, dst):
    x = random_array(np.random.default_rng(13), src, 20, -1000, 1000)
    out = np.zeros(20, dst)
    bitcast_kernel[(1,)](x, out, 20, BLOCK=32)
    np.testing.assert_array_equal(out.view(np.uint8), x.view(np.uint8))


@triton.jit
def bf16_kernel(x_ptr, y_ptr, rounded_ptr, product_ptr, bits_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m).to(tl.bfloat16)
    y = tl.load(y_ptr + offs, mask=m).to(tl.bfloat16)
    tl.static_assert(x.dtype == tl.bfloat16 and (x * y).dtype == tl.bfloat16)
    tl.store(rounded_ptr + offs, x.to(tl.float32), mask=m)
    tl.store(product_ptr + offs, (x * y + x).to(tl.float32), mask=m)
    tl.store(bits_ptr + offs, x.to(tl.int16, bitcast=True), mask=m)


def _bf16(x32):
    """Round float32 values to bf16 (to nearest, ties to even) with integer arithmetic on the bits."""
    bits = x32.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint32)
    return (rounded << 16).view(np.float32)


def test_bfloat16_through_casts():
    rng = np.random.default_rng(14)
    n = 50
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    x[0] = 1 + 2 ** -8  # a tie: rounds to even (1.0)
    x[1] = 1 + 3 * 2 ** -8  # a tie: rounds up to even
    rounded, product = np.full(n, np.nan, np.float32), np.full(n, np.nan, np.float32)
    bits = np.zeros(n, np.int16)
    bf16_kernel[(1,)](x, y, rounded, product, bits, n, BLOCK=64)
    xb, yb = _bf16(x), _bf16(y)
    np.testing.assert_array_equal(rounded, xb)
    assert rounded[0] == 1.0 and rounded[1] == 1 + 2 ** -6
    np.testing.assert_array_equal(product, _bf16(_bf16(xb * yb) + xb))  # rounded after each op
    np.testing.assert_array_equal(bits.view(np.uint16), (xb.view(np.uint32) >> 16).astype(np.uint16))
    np.testing.assert_array_equal(round_to_bf16(x), xb)


# ----------------------------------------------------------------------------------------- cdiv

@triton.jit
def cdiv_kernel(out_ptr, n, BLOCK: tl.constexpr):
    tl.store(out_ptr, tl.cdiv(n, BLOCK))
    tl.store(out_ptr + 1, tl.cdiv(BLOCK + 1, 4))  # both constexpr: folded


def test_cdiv():
    out = np.zeros(2, np.int32)
    cdiv_kernel[(1,)](out, 100, BLOCK=32)
    assert list(out) == [4, 9]
    assert triton.cdiv(100, 32) == 4 and triton.next_power_of_2(100) == 128
    assert triton.next_power_of_2(1) == 1 and triton.next_power_of_2(64) == 64


# ------------------------------------------------------------------------------------------ loops

@triton.jit
def static_range_kernel(out_ptr, N: tl.constexpr):
    acc = tl.zeros((4,), tl.int32)
    for i in tl.static_range(N):
        tl.static_assert(i < N)  # i is a constexpr: each copy of the body is specialized
        acc += tl.arange(0, 4) * i
        if i == 2:
            acc += tl.full((4,), 1000, tl.int32) + tl.zeros((2 ** i,), tl.int32)  # i can even shape a tile
    for j in tl.static_range(1, 8, 3):
        tl.store(out_ptr + 4 + j // 3, j)
    tl.store(out_ptr + tl.arange(0, 4), acc)


def test_static_range_unrolls():
    out = np.zeros(7, np.int32)
    static_range_kernel[(1,)](out, N=4)
    np.testing.assert_array_equal(out[:4], np.arange(4) * 6 + 1000)
    np.testing.assert_array_equal(out[4:], [1, 4, 7])
    text = ttir(static_range_kernel, out, N=4)
    assert " for " not in text and "\n  for" not in text and " if " not in text


@triton.jit
def loop_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    total = 0.0
    count = 0
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        acc += x
        total += tl.sum(x, axis=0)
        count += 1
    down = 0
    for i in range(10, 0, -3):  # a negative step
        down = down * 100 + i
    tl.store(out_ptr, total)
    tl.store(out_ptr + 1, count)
    tl.store(out_ptr + 2, tl.sum(acc, axis=0))
    tl.store(out_ptr + 3, down)


@pytest.mark.parametrize("n", [0, 1, 37, 64])
def test_range_loop_carries_scalars_and_tiles(n):
    x = np.random.default_rng(15).standard_normal(max(n, 1)).astype(np.float32)
    out = np.full(4, np.nan, np.float32)
    loop_kernel[(1,)](x, out, n, BLOCK=16)
    assert out[1] == triton.cdiv(n, 16)
    np.testing.assert_allclose(out[[0, 2]], x[:n].sum(), rtol=1e-5, atol=1e-6)
    assert out[3] == 10070401


@triton.jit
def nested_loop_kernel(out_ptr, M, N):
    total = 0
    for i in range(M):
        for j in tl.range(0, N, 2):
            total += i * j
        if i % 2 == 0:
            total += 1
    tl.store(out_ptr, total)


def test_nested_loops_and_if_in_loop():
    out = np.zeros(1, np.int32)
    nested_loop_kernel[(1,)](out, 5, 7)
    assert out[0] == sum(i * j for i in range(5) for j in range(0, 7, 2)) + 3


@triton.jit
def while_kernel(x_ptr, out_ptr, limit):
    i = 0
    value = tl.load(x_ptr)
    while value < limit:
        value = value * 2
        i += 1
    tl.store(out_ptr, value)
    tl.store(out_ptr + 1, i)


def test_while_loop():
    out = np.zeros(2, np.int32)
    while_kernel[(1,)](np.array([3], np.int32), out, 100)
    assert list(out) == [192, 6]
    while_kernel[(1,)](np.array([300], np.int32), out, 100)
    assert list(out) == [300, 0]


@triton.jit
def collatz_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    steps = tl.zeros((BLOCK,), tl.int32)
    while tl.max(x, axis=0) > 1:  # a tile carried through a while loop
        active = x > 1
        x = tl.where(active, tl.where(x % 2 == 0, x // 2, 3 * x + 1), x)
        steps += active.to(tl.int32)
    tl.store(out_ptr + offs, steps)


def test_while_loop_with_tiles():
    x = np.array([1, 2, 3, 6, 7, 9, 27, 5], np.int32)
    out = np.zeros(8, np.int32)
    collatz_kernel[(1,)](x, out, BLOCK=8)

    def steps(v):
        k = 0
        while v > 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            k += 1
        return k
    assert list(out) == [steps(int(v)) for v in x]


# --------------------------------------------------------------------------------- if / elif / else

@triton.jit
def if_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.load(x_ptr + pid)
    if x < 0:
        y = -x
        kind = 0
    elif x == 0:
        y = x + 100
        kind = 1
    elif x < 10:
        y = x * 2
        kind = 2
    else:
        y = x
        kind = 3
    tile = tl.zeros((BLOCK,), tl.int32)
    if kind >= 2:
        tile = tile + tl.arange(0, BLOCK)
    tl.store(out_ptr + pid * (BLOCK + 2), y)
    tl.store(out_ptr + pid * (BLOCK + 2) + 1, kind)
    tl.store(out_ptr + pid * (BLOCK + 2) + 2 + tl.arange(0, BLOCK), tile)


def test_if_elif_else_on_runtime_scalars():
    x = np.array([-5, 0, 3, 50], np.int32)
    out = np.zeros((4, 6), np.int32)
    if_kernel[(4,)](x, out, BLOCK=4)
    np.testing.assert_array_equal(out[:, 0], [5, 100, 6, 50])
    np.testing.assert_array_equal(out[:, 1], [0, 1, 2, 3])
    np.testing.assert_array_equal(out[:, 2:], [[0] * 4, [0] * 4, [0, 1, 2, 3], [0, 1, 2, 3]])


@triton.jit
def constexpr_if_kernel(out_ptr, FLAG: tl.constexpr, MODE: tl.constexpr):
    if FLAG:
        v = 1
    else:
        v = 2.5  # a different type is fine: only one branch exists
    if MODE == "a":
        w = 10
    elif MODE == "b":
        w = 20
    else:
        w = 30
    tl.store(out_ptr, v + w)


def test_if_on_constexpr_is_folded():
    out = np.zeros(1, np.float32)
    for flag, mode, expected in [(True, "a", 11), (False, "b", 22.5), (True, "z", 31)]:
        constexpr_if_kernel[(1,)](out, FLAG=flag, MODE=mode)
        assert out[0] == expected
        assert re.search(r"\bif\b", ttir(constexpr_if_kernel, out, FLAG=flag, MODE=mode)) is None


@triton.jit
def early_return_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


def test_early_return():
    x = np.arange(20, dtype=np.float32)
    out = np.full(20, np.nan, np.float32)
    early_return_kernel[(10,)](x, out, 20, BLOCK=8)  # programs 3..9 return at once
    np.testing.assert_array_equal(out, x + 1)


@triton.jit
def return_in_branch_kernel(out_ptr, v):
    if v > 0:
        tl.store(out_ptr, 1)
        return
    else:
        tl.store(out_ptr, 2)
    tl.store(out_ptr + 1, 3)


def test_return_in_one_branch_skips_the_rest_there():
    out = np.zeros(2, np.int32)
    return_in_branch_kernel[(1,)](out, 5)
    assert list(out) == [1, 0]
    out[:] = 0
    return_in_branch_kernel[(1,)](out, -5)
    assert list(out) == [2, 3]


@triton.jit
def ternary_kernel(out_ptr, v, FLAG: tl.constexpr):
    a = 1 if FLAG else 2
    b = v if v > 10 else -v  # on a runtime scalar: a select
    tl.store(out_ptr, a)
    tl.store(out_ptr + 1, b)


def test_conditional_expression():
    out = np.zeros(2, np.int32)
    ternary_kernel[(1,)](out, 3, FLAG=False)
    assert list(out) == [2, -3]
    ternary_kernel[(1,)](out, 30, FLAG=True)
    assert list(out) == [1, 30]


# -------------------------------------------------------------------------- min / max builtins

@triton.jit
def builtin_minmax_kernel(x_ptr, out_ptr, n, K: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + offs, min(x, 5), mask=offs < n)
    tl.store(out_ptr + BLOCK + offs, max(x, n, 3), mask=offs < n)
    tl.store(out_ptr + 2 * BLOCK, min(n, 7))
    tl.store(out_ptr + 2 * BLOCK + 1, max(K, 2 * K, 1))  # all constexpr: Python's own
    tl.store(out_ptr + 2 * BLOCK + 2, abs(-n))


def test_min_max_builtins():
    x = np.array([1, 9, -4, 12, 5, 6], np.int32)
    out = np.zeros(19, np.int32)
    builtin_minmax_kernel[(1,)](x, out, 6, K=4, BLOCK=8)
    np.testing.assert_array_equal(out[:6], np.minimum(x, 5))
    np.testing.assert_array_equal(out[8:14], np.maximum(np.maximum(x, 6), 3))
    assert list(out[16:]) == [6, 8, 6]


# -------------------------------------------------------------------------------------- atomics

@triton.jit
def histogram_kernel(x_ptr, hist_ptr, maxes_ptr, old_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    old = tl.atomic_add(hist_ptr + x % BINS, 1, mask=m)  # many lanes share an address
    tl.store(old_ptr + offs, old, mask=m)
    tl.atomic_max(maxes_ptr + x % BINS, x, mask=m)


@pytest.mark.no_gpu_diff  # old values and the last exchange depend on the order programs run in
def test_atomic_add_and_max_with_duplicate_addresses():
    rng = np.random.default_rng(16)
    n, bins = 300, 5
    x = rng.integers(0, 1000, n).astype(np.int32)
    hist = np.zeros(bins, np.int32)
    maxes = np.full(bins, -1, np.int32)
    old = np.full(n, -1, np.int32)
    histogram_kernel[(triton.cdiv(n, 64),)](x, hist, maxes, old, n, BINS=bins, BLOCK=64)
    np.testing.assert_array_equal(hist, np.bincount(x % bins, minlength=bins))
    np.testing.assert_array_equal(maxes, [x[x % bins == b].max() for b in range(bins)])
    for b in range(bins):  # the old values a bin's lanes saw are 0, 1, 2, ... in some order
        assert sorted(old[x % bins == b]) == list(range((x % bins == b).sum()))


@triton.jit
def atomic_float_kernel(out_ptr, x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))  # a scalar atomic from each program
    tl.atomic_max(out_ptr + 1, tl.max(x, axis=0))
    tl.atomic_min(out_ptr + 2, tl.min(x, axis=0))
    tl.atomic_xchg(out_ptr + 3, tl.program_id(0).to(tl.float32))


@pytest.mark.no_gpu_diff  # old values and the last exchange depend on the order programs run in
def test_atomic_float_scalars_across_programs():
    x = np.random.default_rng(17).standard_normal(16).astype(np.float32)
    out = np.array([0, -np.inf, np.inf, -1], np.float32)
    atomic_float_kernel[(3,)](out, x, BLOCK=16)
    np.testing.assert_allclose(out, [3 * x.sum(), x.max(), x.min(), 2], rtol=1e-5)


@triton.jit
def atomic_cas_kernel(lock_ptr, count_ptr):
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    tl.store(count_ptr, tl.load(count_ptr) + 1)
    tl.atomic_xchg(lock_ptr, 0)


def test_atomic_cas_spin_lock():
    lock, count = np.zeros(1, np.int32), np.zeros(1, np.int32)
    atomic_cas_kernel[(6,)](lock, count)
    assert count[0] == 6 and lock[0] == 0


# --------------------------------------------------------------------------------- random numbers

def _philox_reference(seed, offsets, rounds=10):
    """Philox 4x32 in numpy, as Triton's tl.randint computes it: counter (offset, 0, 0, 0)."""
    mask = 0xFFFFFFFF
    k0, k1 = seed & mask, (seed >> 32) & mask
    out = []
    for offset in offsets:
        c0, c1, c2, c3 = int(offset) & mask, 0, 0, 0
        a, b = k0, k1
        for _ in range(rounds):
            p0, p2 = c0, c2
            c0 = ((0xCD9E8D57 * p2) >> 32) ^ c1 ^ a
            c2 = ((0xD2511F53 * p0) >> 32) ^ c3 ^ b
            c1 = (0xCD9E8D57 * p2) & mask
            c3 = (0xD2511F53 * p0) & mask
            a, b = (a + 0x9E3779B9) & mask, (b + 0xBB67AE85) & mask
        out.append(c0)
    return np.array(out, np.uint32)


@triton.jit
def random_kernel(ints_ptr, floats_ptr, normal_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(ints_ptr + offs, tl.randint(seed, offs), mask=m)
    tl.store(floats_ptr + offs, tl.rand(seed, offs), mask=m)
    tl.store(normal_ptr + offs, tl.randn(seed, offs), mask=m)


def _random(seed, n=2000, block=256):
    ints = np.zeros(n, np.uint32)
    floats, normal = np.full(n, np.nan, np.float32), np.full(n, np.nan, np.float32)
    random_kernel[(triton.cdiv(n, block),)](ints, floats, normal, seed, n, BLOCK=block)
    return ints, floats, normal


def test_randint_is_philox():
    ints, _, _ = _random(seed=12345, n=40)
    np.testing.assert_array_equal(ints, _philox_reference(12345, range(40)))
    big_seed = 2 ** 40 + 17  # a 64-bit seed uses both key words
    ints, _, _ = _random(seed=big_seed, n=40)
    np.testing.assert_array_equal(ints, _philox_reference(big_seed, range(40)))


def _philox_words(seed, c, rounds=10, bits=32):
    """Philox 4xN in Python integers: the four counters `c` and the key from `seed` (for N = 32 the
    seed's two halves; for N = 64 the seed and 0)."""
    mask = (1 << bits) - 1
    if bits == 32:
        mul, step, key = (0xD2511F53, 0xCD9E8D57), (0x9E3779B9, 0xBB67AE85), [seed & mask, (seed >> 32) & mask]
    else:
        mul, step, key = (0xD2E7470EE14C6C93, 0xCA5A826395121157), (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B), [seed, 0]
    c = list(c)
    for _ in range(rounds):
        p0, p2 = c[0], c[2]
        c = [((mul[1] * p2) >> bits) ^ c[1] ^ key[0], (mul[1] * p2) & mask,
             ((mul[0] * p0) >> bits) ^ c[3] ^ key[1], (mul[0] * p0) & mask]
        key = [(key[0] + step[0]) & mask, (key[1] + step[1]) & mask]
    return c


@triton.jit
def random64_kernel(ints_ptr, words_ptr, floats_ptr, seed, base, BLOCK: tl.constexpr):
    offs = base + tl.arange(0, BLOCK).to(tl.int64)  # offsets past 32 bits: the high half counts
    a, b, c, d = tl.randint4x(seed, offs)
    tl.store(ints_ptr + tl.arange(0, BLOCK) * 4, a)
    tl.store(ints_ptr + tl.arange(0, BLOCK) * 4 + 1, b)
    tl.store(ints_ptr + tl.arange(0, BLOCK) * 4 + 2, c)
    tl.store(ints_ptr + tl.arange(0, BLOCK) * 4 + 3, d)
    w0, _, _, _ = tl.philox(seed, offs.to(tl.uint64), offs.to(tl.uint64) * 3, offs.to(tl.uint64) * 0,
                            offs.to(tl.uint64) * 0)
    tl.store(words_ptr + tl.arange(0, BLOCK), w0)
    tl.store(floats_ptr + tl.arange(0, BLOCK), tl.uint_to_uniform_float(w0))


def test_random_with_64_bit_seed_and_offsets_and_64_bit_philox():
    """tl.randint4x with int64 offsets uses their high half as the second counter; tl.philox with
    64-bit counters is Philox 4x64 (as Triton's)."""
    seed, base, block = 2 ** 40 + 99, 2 ** 33 + 5, 32
    ints = np.zeros(4 * block, np.uint32)
    words, floats = np.zeros(block, np.uint64), np.full(block, np.nan, np.float32)
    random64_kernel[(1,)](ints, words, floats, seed, base, BLOCK=block)
    for i in range(block):
        offset = base + i
        expect = _philox_words(seed, [offset & 0xFFFFFFFF, offset >> 32, 0, 0])
        assert list(ints[4 * i:4 * i + 4]) == expect, i
        assert int(words[i]) == _philox_words(seed, [offset, 3 * offset, 0, 0], bits=64)[0], i
    assert (floats >= 0).all() and (floats < 1).all() and len(set(floats.tolist())) == block


@triton.jit
def float_seed_kernel(out_ptr, seed):
    tl.store(out_ptr + tl.arange(0, 4), tl.rand(seed, tl.arange(0, 4)))


def test_a_float_seed_is_a_clear_error():
    with pytest.raises(triton.CompilationError, match="seed .* must be an integer"):
        float_seed_kernel[(1,)](np.zeros(4, np.float32), 1.5)


def test_rand_randn_deterministic_and_uniform():
    ints, floats, normal = _random(seed=7)
    again = _random(seed=7)
    np.testing.assert_array_equal(ints, again[0])
    np.testing.assert_array_equal(floats, again[1])
    assert (floats >= 0).all() and (floats < 1).all()
    assert abs(floats.mean() - 0.5) < 0.03 and abs(floats.var() - 1 / 12) < 0.01
    counts = np.histogram(floats, bins=10, range=(0, 1))[0]
    assert counts.min() > 140 and counts.max() < 260
    assert abs(normal.mean()) < 0.1 and abs(normal.std() - 1) < 0.1
    other = _random(seed=8)
    assert (other[0] != ints).mean() > 0.99


# ------------------------------------------------------------------------------------------ hints

@triton.jit
def hints_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    start = tl.multiple_of(pid * BLOCK, 16)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + start, mask=m)


def test_multiple_of_and_max_contiguous_change_nothing():
    x = np.arange(40, dtype=np.float32)
    out = np.full(40, np.nan, np.float32)
    hints_kernel[(3,)](x, out, 40, BLOCK=16)
    np.testing.assert_array_equal(out, x + np.arange(40) // 16 * 16)


# ------------------------------------------------------------------------------------------ print

@triton.jit
def print_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_print("x: ", x)
    print("pid", tl.program_id(0))
    tl.device_print("h", x.to(tl.int32), hex=True)


def test_device_print_and_print(capsys):
    print_kernel[(2,)](np.array([1.5, -2.0], np.float32), BLOCK=2)
    lines = capsys.readouterr().out.splitlines()
    assert lines[:5] == ["pid (0, 0, 0) idx (0) x: 1.500000", "pid (0, 0, 0) idx (1) x: -2.000000",
                         "pid (0, 0, 0) idx () pid: 0",
                         "pid (0, 0, 0) idx (0) h: 0x00000001", "pid (0, 0, 0) idx (1) h: 0xfffffffe"]
    assert lines[5:] == [line.replace("pid (0, 0, 0)", "pid (1, 0, 0)").replace("pid: 0", "pid: 1")
                         for line in lines[:5]]


@triton.jit
def print_2d_kernel(BLOCK: tl.constexpr):
    x = tl.arange(0, BLOCK)[:, None] * 10 + tl.arange(0, BLOCK)[None, :]
    tl.device_print("v=", x)  # Triton makes every prefix end in ": "


def test_device_print_2d_index(capsys):
    print_2d_kernel[(1,)](BLOCK=2)
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["pid (0, 0, 0) idx (0, 0) v=: 0", "pid (0, 0, 0) idx (0, 1) v=: 1",
                     "pid (0, 0, 0) idx (1, 0) v=: 10", "pid (0, 0, 0) idx (1, 1) v=: 11"]


# ------------------------------------------------------------------------------------ constexprs

SCALE: tl.constexpr = 3
OFFSET = tl.constexpr(0.5)
MODE_NAME = "double"
USE_OFFSET: tl.constexpr = True


@triton.jit
def constexpr_kernel(out_ptr, I: tl.constexpr, F: tl.constexpr, B: tl.constexpr, S: tl.constexpr,
                     DT: tl.constexpr = tl.float32):
    x = tl.zeros((4,), DT) + I
    if B:
        x = x * F
    if S == "neg":
        x = -x
    if MODE_NAME == "double":
        x = x * 2
    x = x * SCALE
    if USE_OFFSET:
        x = x + OFFSET
    tl.static_assert(x.dtype == DT)
    tl.store(out_ptr + tl.arange(0, 4), x)


def test_constexpr_kinds_and_globals():
    out = np.zeros(4, np.float32)
    constexpr_kernel[(1,)](out, I=2, F=1.5, B=True, S="neg")
    assert (out == -2 * 1.5 * 2 * 3 + 0.5).all()
    constexpr_kernel[(1,)](out, I=tl.constexpr(2), F=1.5, B=False, S="pos")
    assert (out == 2 * 2 * 3 + 0.5).all()
    out64 = np.zeros(4, np.float64)
    constexpr_kernel[(1,)](out64, I=1, F=0.1, B=True, S="", DT=tl.float64)
    assert (out64 == 0.1 * 2 * 3 + 0.5).all()


# ------------------------------------------------------------------------------ operators (laws)

INT_OPS = ("+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>", "<", "<=", ">", ">=", "==", "!=",
           "and", "or", "min", "max", "-x", "~x", "not x", "+x")
FLOAT_OPS = ("+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "and", "or", "min", "max", "-x",
             "not x", "+x")


@triton.jit(do_not_specialize=["n"])  # one compile per dtype, whatever n hypothesis draws
def operators_kernel(x_ptr, y_ptr, divisor_ptr, shift_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Every operator at once, one output row each (rows in the order of INT_OPS or FLOAT_OPS).

    `divisor` is never 0 (nor -1), `shift` is less than the width: the other values are undefined.
    """
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    d = tl.load(divisor_ptr + offs, mask=m, other=1)
    if x.dtype.is_floating():
        results = (x + y, x - y, x * y, x / d, x % d, x < y, x <= y, x > y, x >= y, x == y, x != y,
                   (x > y) and (x != 0), (x > y) or (y == 0), tl.minimum(x, y), tl.maximum(x, y), -x,
                   not x, +x)
    else:
        s = tl.load(shift_ptr + offs, mask=m)
        results = (x + y, x - y, x * y, x / d, x // d, x % d, x & y, x | y, x ^ y, x << s, x >> s, x < y,
                   x <= y, x > y, x >= y, x == y, x != y, (x > y) and (x != 0), (x > y) or (y == 0),
                   tl.minimum(x, y), tl.maximum(x, y), -x, ~x, not x, +x)
    for k in tl.static_range(len(results)):
        # Row k of the byte buffer holds n results of their own dtype (8 bytes per element reserved).
        row = (out_ptr + k * n * 8).to(tl.pointer_type(results[k].dtype))
        tl.store(row + offs, results[k], mask=m)


def _c_div(x, y):
    """C's integer division: truncate toward zero."""
    q = np.abs(x.astype(object)) // np.abs(y.astype(object))
    return np.where((x < 0) != (y < 0), -q, q).astype(x.dtype)


def _reference(op, x, y, d, s):
    kind = x.dtype.kind
    return {
        "+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y,
        "/": lambda: (x.astype(np.float32) / d.astype(np.float32) if kind in "iu" or x.dtype == np.float16
                      else x / d),
        "//": lambda: _c_div(x, d),
        "%": lambda: (np.fmod(x.astype(np.float32), d.astype(np.float32)) if x.dtype == np.float16
                      else np.fmod(x, d)),  # fp16 remainders are taken in fp32, like divisions
        "&": lambda: x & y, "|": lambda: x | y,
        "^": lambda: x ^ y, "<<": lambda: x << s, ">>": lambda: x >> s, "<": lambda: x < y,
        "<=": lambda: x <= y, ">": lambda: x > y, ">=": lambda: x >= y, "==": lambda: x == y,
        "!=": lambda: x != y, "and": lambda: (x > y) & (x != 0), "or": lambda: (x > y) | (y == 0),
        "min": lambda: np.minimum(x, y), "max": lambda: np.maximum(x, y), "-x": lambda: -x,
        "~x": lambda: ~x, "not x": lambda: x == 0, "+x": lambda: x,
    }[op]()


@st.composite
def operands(draw, dtype):
    """x, y, a divisor and a shift amount, of one length."""
    dtype = np.dtype(dtype)
    n = draw(st.integers(1, 20))
    arrays = lambda elements: np.array(draw(st.lists(elements, min_size=n, max_size=n)), dtype)
    if dtype.kind == "f":
        limit = 300.0 if dtype == np.float16 else 1e6
        values = st.floats(-limit, limit, allow_nan=False, width=16 if dtype == np.float16 else 32)
        x, y = arrays(values), arrays(values)
        return x, y, arrays(values.filter(lambda v: v != 0)), np.zeros(n, dtype)
    info = np.iinfo(dtype)
    values = st.integers(int(info.min), int(info.max))
    x, y = arrays(values), arrays(values)
    divisor = arrays(values.filter(lambda v: v not in (0, -1)))
    return x, y, divisor, arrays(st.integers(0, dtype.itemsize * 8 - 1))


@pytest.mark.no_gpu_diff  # results are compared as raw bytes; fp32 `/` on the GPU is div.full.f32 (2 ulp)
@pytest.mark.parametrize("dtype", ALL)
@few
@given(data=st.data())
def test_operators_equal_numpy(dtype, data):
    ops = FLOAT_OPS if np.dtype(dtype).kind == "f" else INT_OPS
    x, y, d, s = data.draw(operands(dtype), label="x, y, divisor, shift")
    n = x.size
    rows = np.zeros((len(ops), n * 8), np.uint8)
    operators_kernel[(1,)](x, y, d, s, rows, n, BLOCK=32)
    with np.errstate(all="ignore"):
        for k, op in enumerate(ops):
            expected = np.asarray(_reference(op, x, y, d, s))
            got = rows[k, :n * expected.itemsize].view(expected.dtype)
            if expected.dtype.kind == "f":
                np.testing.assert_allclose(got, expected, rtol=1e-6 if expected.dtype != np.float16 else 1e-3,
                                           err_msg=op)
            else:
                np.testing.assert_array_equal(got, expected, err_msg=op)


@triton.jit
def promote_kernel(x_ptr, y_ptr, out_ptr, OP: tl.constexpr, EXPECTED: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 2))
    y = tl.load(y_ptr + tl.arange(0, 2))
    if OP == "+":
        z = x + y
    else:
        z = x / y
    tl.static_assert(z.dtype == EXPECTED)
    tl.store(out_ptr + tl.arange(0, 2), z)


@pytest.mark.parametrize("a, b, op, expected", [
    (np.int8, np.int16, "+", tl.int16), (np.int32, np.uint32, "+", tl.uint32),
    (np.int64, np.uint8, "+", tl.int64), (np.uint8, np.int8, "+", tl.uint8),
    (np.int32, np.float16, "+", tl.float16), (np.float16, np.float32, "+", tl.float32),
    (np.float64, np.int8, "+", tl.float64), (np.int32, np.int32, "/", tl.float32),
    (np.float16, np.float16, "/", tl.float32), (np.float64, np.float32, "/", tl.float64),
])
def test_type_promotion(a, b, op, expected):
    x, y = np.array([4, 6], a), np.array([2, 3], b)
    out = np.zeros(2, expected.np)
    promote_kernel[(1,)](x, y, out, OP=op, EXPECTED=expected)
    np.testing.assert_array_equal(out, [6, 9] if op == "+" else [2, 2])


@triton.jit
def weak_kernel(h_ptr, i8_ptr, u8_ptr, out_h_ptr, out_i8_ptr, out_u8_ptr, out_f_ptr):
    offs = tl.arange(0, 4)
    h = tl.load(h_ptr + offs)
    a = h * 2.0
    tl.static_assert(a.dtype == tl.float16, "a Python float does not widen an fp16 tile")
    b = 1 + h
    tl.static_assert(b.dtype == tl.float16)
    i8 = tl.load(i8_ptr + offs)
    c = i8 + 1
    tl.static_assert(c.dtype == tl.int8, "a Python int does not widen an int8 tile")
    d = i8 * 0.5
    tl.static_assert(d.dtype == tl.float32, "a Python float turns an integer tile into fp32")
    u8 = tl.load(u8_ptr + offs)
    e = u8 + 1
    tl.static_assert(e.dtype == tl.uint8)
    f = 2 - u8 * 3
    tl.store(out_h_ptr + offs, a + b)
    tl.store(out_i8_ptr + offs, c * 100)  # wraps in 8 bits
    tl.store(out_u8_ptr + offs, f)
    tl.store(out_f_ptr + offs, d)


def test_python_numbers_are_weakly_typed():
    h = np.array([1, 2, 3, 65504], np.float16)
    i8 = np.array([1, 2, 3, 127], np.int8)
    u8 = np.array([0, 1, 2, 255], np.uint8)
    out_h, out_i8 = np.zeros(4, np.float16), np.zeros(4, np.int8)
    out_u8, out_f = np.zeros(4, np.uint8), np.zeros(4, np.float32)
    weak_kernel[(1,)](h, i8, u8, out_h, out_i8, out_u8, out_f)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out_h, h * np.float16(2) + (np.float16(1) + h))
    np.testing.assert_array_equal(out_i8, ((i8 + np.int8(1)).astype(np.int8) * np.int8(100)).astype(np.int8))
    np.testing.assert_array_equal(out_u8, (np.uint8(2) - u8 * np.uint8(3)).astype(np.uint8))
    np.testing.assert_array_equal(out_f, i8 * np.float32(0.5))


@triton.jit
def bf16_meets_kernel(x_ptr, i_ptr, h_ptr, out_ptr):
    offs = tl.arange(0, 4)
    x, i, h = tl.load(x_ptr + offs), tl.load(i_ptr + offs), tl.load(h_ptr + offs)
    xi = x * i
    tl.static_assert(xi.dtype == tl.float32, "bf16 and an integer meet at fp32")
    tl.static_assert((x * x).dtype == tl.bfloat16, "bf16 stays bf16 only with bf16")
    tl.static_assert((x + h).dtype == tl.float16, "fp16 comes before bf16")
    tl.store(out_ptr + offs, xi)


def test_bf16_meets_an_integer_in_fp32():
    """Triton: "return bf16 only if both operands are of bf16"; with an integer it is fp32, so
    100001 is not rounded to bf16 first. (Found by the fuzzer.)"""
    x = np.array([1.5, -2.0, 3.25, 256.0], np.float32)
    i = np.array([3, 100001, -7, 1000003], np.int32)
    out = np.full(4, np.nan, np.float32)
    bf16_meets_kernel[(1,)](triton.reinterpret((x.view(np.uint32) >> 16).astype(np.uint16), tl.bfloat16), i,
                            np.ones(4, np.float16), out)
    np.testing.assert_array_equal(out, x * i.astype(np.float32))


@triton.jit
def numbers_as_typed_kernel(h_ptr, i_ptr, f_ptr, u_ptr):
    offs = tl.arange(0, 4)
    h = tl.load(h_ptr + offs)
    q, r = h / 0.1, h % 0.1
    tl.static_assert(q.dtype == tl.float32 and r.dtype == tl.float32, "a 16-bit float is divided in fp32")
    f = tl.fma(h, 0.1, h)
    tl.static_assert(f.dtype == tl.float32, "tl.fma makes 0.1 an fp32 tensor (to_tensor): not weak")
    u = tl.umulhi(tl.load(i_ptr + offs), 3000000000)
    tl.static_assert(u.dtype == tl.uint32, "3000000000 is a uint32 tensor, and int32 meets it at uint32")
    tl.store(f_ptr + offs, q)
    tl.store(f_ptr + 4 + offs, r)
    tl.store(f_ptr + 8 + offs, f)
    tl.store(u_ptr + offs, u)


def test_numbers_in_16_bit_divisions_and_in_fma_are_fp32():
    """`h / 0.1` and `h % 0.1` on fp16 divide by fp32(0.1), not by fp16(0.1) widened; tl.fma and
    tl.umulhi take a number as a tensor of its own type. (Found by the fuzzer.)"""
    h = np.array([1.0, 2.5, -3.0, 0.3], np.float16)
    i = np.array([7, -1, 123456, 2**31 - 1], np.int32)
    out, hi = np.full(12, np.nan, np.float32), np.zeros(4, np.uint32)
    numbers_as_typed_kernel[(1,)](h, i, out, hi)
    wide, tenth = h.astype(np.float32), np.float32(0.1)
    np.testing.assert_array_equal(out[:4], wide / tenth)
    np.testing.assert_array_equal(out[4:8], np.fmod(wide, tenth))
    np.testing.assert_array_equal(out[8:], (wide.astype(np.float64) * np.float64(tenth) + wide).astype(np.float32))
    np.testing.assert_array_equal(hi, (i.astype(np.uint32).astype(np.uint64) * 3000000000) >> 32)


@triton.jit
def bf16_bits_kernel(x_ptr, copy_ptr, bits_ptr, made_ptr):
    offs = tl.arange(0, 4)
    x = tl.load(x_ptr + offs)
    tl.store(copy_ptr + offs, x)
    tl.store(bits_ptr + offs, x.to(tl.int16, bitcast=True))
    tl.store(made_ptr + offs, x - x)


def test_bf16_keeps_its_bits_until_an_op_makes_a_value():
    """A load, a store and a bitcast move bits, NaN payloads included, as on the GPU; an op's NaN
    is 0x7FFF, what the GPU's conversion to bf16 gives. (Found by the fuzzer.)"""
    bits = np.array([0x7FC1, 0xFFC0, 0x7F81, 0x7F80], np.uint16)  # NaNs, a signalling one, infinity
    copy, made = np.zeros(4, np.uint16), np.zeros(4, np.uint16)
    as_int = np.zeros(4, np.int16)
    bf16_bits_kernel[(1,)](*(triton.reinterpret(a, tl.bfloat16) for a in (bits, copy)), as_int,
                           triton.reinterpret(made, tl.bfloat16))
    assert list(copy) == list(bits) and list(as_int.view(np.uint16)) == list(bits)
    assert list(made) == [0x7FFF] * 4


@triton.jit
def scalar_args_kernel(out_ptr, i, big, f, b):
    tl.static_assert(i.dtype == tl.int32 and big.dtype == tl.int64 and f.dtype == tl.float32)
    tl.static_assert(b.dtype == tl.int1)
    tl.store(out_ptr, i + 0.5)
    tl.store(out_ptr + 1, (big - 2 ** 40).to(tl.float64))
    tl.store(out_ptr + 2, f * 2)
    tl.store(out_ptr + 3, tl.where(b, 1.0, 0.0))


def test_scalar_argument_types():
    out = np.zeros(4, np.float64)
    scalar_args_kernel[(1,)](out, 3, 2 ** 40 + 5, 1.25, True)
    assert list(out) == [3.5, 5, 2.5, 1]


# --------------------------------------------------------------------------------- @jit helpers

@triton.jit
def _square_and_cube(x):
    return x * x, x * x * x


@triton.jit
def _scaled(x, FACTOR: tl.constexpr, SHIFT: tl.constexpr = 0):
    if FACTOR > 2:  # a constexpr parameter folds inside the helper
        return x * FACTOR + SHIFT
    return x + SHIFT


@triton.jit
def _nothing_returned(ptr, value):
    tl.store(ptr, value)


@triton.jit
def _outer(x):
    sq, cu = _square_and_cube(x)
    return _scaled(sq + cu, 3)


@triton.jit
def helpers_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    sq, cu = _square_and_cube(x)
    tl.store(out_ptr + offs, sq)
    tl.store(out_ptr + BLOCK + offs, cu)
    tl.store(out_ptr + 2 * BLOCK + offs, _scaled(x, 4, SHIFT=1))
    tl.store(out_ptr + 3 * BLOCK + offs, _scaled(x, FACTOR=2))
    tl.store(out_ptr + 4 * BLOCK + offs, _outer(x))
    pair = _square_and_cube(x)
    tl.store(out_ptr + 5 * BLOCK + offs, pair[1])
    _nothing_returned(out_ptr + 6 * BLOCK, tl.sum(x, axis=0))


def test_nested_jit_helpers():
    x = np.array([1, 2, 3, 4], np.float32)
    out = np.full(6 * 4 + 1, np.nan, np.float32)
    helpers_kernel[(1,)](x, out, BLOCK=4)
    parts = out[:24].reshape(6, 4)
    np.testing.assert_array_equal(parts[0], x ** 2)
    np.testing.assert_array_equal(parts[1], x ** 3)
    np.testing.assert_array_equal(parts[2], x * 4 + 1)
    np.testing.assert_array_equal(parts[3], x + 2 - 2 + 0)
    np.testing.assert_array_equal(parts[4], (x ** 2 + x ** 3) * 3)
    np.testing.assert_array_equal(parts[5], x ** 3)
    assert out[24] == x.sum()


@triton.jit
def _helper_with_loop(x, n):
    acc = x * 0
    for i in range(n):
        acc += x
    return acc


@triton.jit
def _helper_early_return(x, flag: tl.constexpr):
    if flag:
        return x + 1
    return x - 1


@triton.jit
def helper_control_kernel(x_ptr, out_ptr, n):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.store(out_ptr + tl.arange(0, 4), _helper_with_loop(x, n) + _helper_early_return(x, True)
             + _helper_early_return(x, False))


def test_helpers_with_loops_and_returns():
    x = np.array([1, 2, 3, 4], np.int32)
    out = np.zeros(4, np.int32)
    helper_control_kernel[(1,)](x, out, 5)
    np.testing.assert_array_equal(out, 5 * x + (x + 1) + (x - 1))


# ----------------------------------------------------------------------------- misc tensor API

@triton.jit
def tensor_api_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.static_assert(x.shape[0] == BLOCK and len(x.shape) == 1 and x.numel == BLOCK)
    tl.static_assert(x_ptr.dtype.element_ty == tl.float32 and x.dtype.is_floating())
    y = tl.cast(x, tl.int32).to(tl.float32)
    z = (x ** 2) + tl.fdiv(x, 2.0) + tl.math.pow(x, 2.0)
    tl.store(out_ptr + offs, y)
    tl.store(out_ptr + BLOCK + offs, z)
    pairs = tl.ravel(x[:, None] * tl.full((1, 2), 1.0, tl.float32))  # (BLOCK * 2,): x0, x0, x1, x1, ...
    tl.store(out_ptr + 2 * BLOCK + offs, pairs.reshape(BLOCK, 2).sum(1))
    tl.store(out_ptr + 3 * BLOCK + offs, tl.exp(x).log())


def test_tensor_api():
    x = np.array([1.5, -2.5, 3.0, 0.25], np.float32)
    out = np.full(16, np.nan, np.float32)
    tensor_api_kernel[(1,)](x, out, BLOCK=4)
    np.testing.assert_array_equal(out[:4], np.trunc(x))
    np.testing.assert_allclose(out[4:8], 2 * x ** 2 + x / 2, rtol=1e-6)
    np.testing.assert_allclose(out[8:12], 2 * x)
    np.testing.assert_allclose(out[12:], x, rtol=1e-6)


@triton.jit
def tensor_methods_kernel(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    y = x.exp2().log2() + x.abs() + x.fma(x, x) + x.floor() + x.ravel() + x.cumprod(0) * 0 + x.sqrt() ** 2
    tl.store(Y + offs, y + abs(x) + offs.cdiv(2) + x.cumsum(0) - x.sum(0) + x.max(0) + x.argmin(0))


def test_tensor_methods():
    x = np.arange(1, 5, dtype=np.float32)
    y = np.zeros(4, np.float32)
    tensor_methods_kernel[(1,)](x, y, BLOCK=4)
    expected = 7 * x + x * x + (np.arange(4) + 1) // 2 + np.cumsum(x) - x.sum() + x.max() + 0
    np.testing.assert_allclose(y, expected, rtol=1e-5)


@triton.jit
def chained_compare_kernel(x_ptr, out_ptr, lo, hi, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, lo <= x < hi)


def test_chained_comparison():
    x = np.arange(8, dtype=np.int32)
    out = np.zeros(8, np.bool_)
    chained_compare_kernel[(1,)](x, out, 2, 5, BLOCK=8)
    np.testing.assert_array_equal(out, (x >= 2) & (x < 5))


@triton.jit
def assert_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_assert(x >= 0, "x must not be negative")
    tl.static_assert(BLOCK >= 2)


def test_device_assert():
    assert_kernel[(1,)](np.arange(4, dtype=np.int32), BLOCK=4)
    with pytest.raises(triton.InterpreterError, match="x must not be negative"):
        assert_kernel[(1,)](np.array([0, 1, -1, 2], np.int32), BLOCK=4)


# ------------------------------------------------------------------ methods and the small API

@triton.jit
def methods_kernel(x_ptr, out_ptr, ints_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    (out_ptr + offs).store(x.sigmoid())
    (out_ptr + N + offs).store(x.softmax())
    (out_ptr + 2 * N + offs).store(x.sqrt_rn() + x.abs().sqrt() * 0)
    (out_ptr + 3 * N + offs).store(x.cast(tl.int32).cast(tl.float32))
    (out_ptr + 4 * N + offs).store(x.to(tl.int32, bitcast=True).to(tl.float32, bitcast=True))
    (out_ptr + 5 * N).store(x.reduce(0, _sum_combine))
    (out_ptr + 5 * N + 1).store(tl.load(x_ptr + tl.arange(0, 1)).item())
    positive = x > 0
    ints = x.to(tl.int32)
    (ints_ptr + offs).store(positive.logical_and(x < 2).to(tl.int32))
    (ints_ptr + N + offs).store(positive.logical_or(x < -2).to(tl.int32))
    (ints_ptr + 2 * N).store(positive.to(tl.int32).reduce_or(0))
    (ints_ptr + 2 * N + 1).store(positive.to(tl.int32).reduce_and(0))
    (ints_ptr + 2 * N + 2).store(ints.xor_sum(0))
    (ints_ptr + 2 * N + 3).atomic_add(5)
    (ints_ptr + 2 * N + 3).atomic_max(7, sem="relaxed", scope="cta")
    (ints_ptr + 2 * N + 4).atomic_xchg(9, sem="release")
    (ints_ptr + 2 * N + 5).atomic_cas(0, 11, sem="acquire", scope="gpu")
    (ints_ptr + 2 * N + 6).store(tl.add(tl.mul(3, tl.sub(5, 1)), 1))


@triton.jit
def _sum_combine(a, b):
    return a + b


def test_tensor_methods_as_in_triton():
    """The methods tl.tensor has in Triton 3.6: the free functions as methods, @jit ones included
    (x.sigmoid(), x.softmax()), pointers' store and atomics, x.reduce with a combine function."""
    rng = np.random.default_rng(31)
    n = 16
    x = rng.uniform(-3, 3, n).astype(np.float32)
    out, ints = np.full(6 * n, np.nan, np.float32), np.zeros(3 * n, np.int32)
    methods_kernel[(1,)](x, out, ints, N=n)
    np.testing.assert_allclose(out[:n], 1 / (1 + np.exp(-x)), rtol=1e-6)
    e = np.exp(x - x.max())
    np.testing.assert_allclose(out[n:2 * n], e / e.sum(), rtol=1e-6)
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(out[2 * n:3 * n], np.sqrt(x), rtol=1e-6)  # NaN for negatives
    np.testing.assert_array_equal(out[3 * n:4 * n], np.trunc(x))
    np.testing.assert_array_equal(out[4 * n:5 * n], x)
    np.testing.assert_allclose(out[5 * n], x.sum(), rtol=1e-5)
    assert out[5 * n + 1] == x[0]
    np.testing.assert_array_equal(ints[:n], (x > 0) & (x < 2))
    np.testing.assert_array_equal(ints[n:2 * n], (x > 0) | (x < -2))
    ints_x = np.trunc(x).astype(np.int32)
    assert list(ints[2 * n:2 * n + 7]) == [int((x > 0).any()), int((x > 0).all()),
                                           int(np.bitwise_xor.reduce(ints_x)), 7, 9, 11, 13]


@triton.jit
def item_kernel(x_ptr, out_ptr, SHAPE: tl.constexpr):
    tl.store(out_ptr, tl.load(x_ptr + tl.arange(0, SHAPE)).item())


def test_item_needs_one_element():
    with pytest.raises(triton.CompilationError, match=r"item\(\) needs a tile of one element"):
        item_kernel[(1,)](np.zeros(4, np.float32), np.zeros(1, np.float32), SHAPE=4)


@triton.jit
def dtype_by_name_kernel(out_ptr, NAME: tl.constexpr):
    dtype: tl.constexpr = tl.dtype(NAME)
    tl.store(out_ptr, tl.full((), 300, tl.int32).to(dtype).to(tl.int32))
    tl.static_assert(tl.pi32_t == tl.pointer_type(tl.int32))
    tl.static_assert(tl.constexpr_type(3) == tl.constexpr_type(3))
    tl.static_assert(tl.TRITON_MAX_TENSOR_NUMEL == 1048576)


@triton.jit
def number_type_kernel(out_ptr, strides):
    tl.static_assert(isinstance((3).type, tl.constexpr_type) and (3).type == tl.constexpr_type(3))
    tl.static_assert(isinstance(strides[1].type, tl.constexpr_type))  # specialized to 1 on the GPU
    tl.store(out_ptr, strides[0] * strides[1])


@pytest.mark.parametrize("mode", ["interpreter", "compiled"])
def test_a_number_s_type_is_a_constexpr_type(mode):
    """A number in a kernel is a compile-time constant, as in Triton: its `.type` is a
    `tl.constexpr_type`, also for an int argument specialized to 1 (a contiguous stride)."""
    if mode == "interpreter":
        number_type_kernel[(1,)](np.zeros(1, np.int32), (5, tl.constexpr(1)))
    else:
        ttir = number_type_kernel.warmup(np.zeros(1, np.int32), (5, 1), grid=(1,), target="sm_90a").asm["ttir"]
        assert "mul %strides.0, %0" in ttir and "constant 1 : i32" in ttir


@pytest.mark.parametrize("name, expect", [("int8", 44), ("uint8", 44), ("int16", 300), ("fp16", 300)])
def test_a_dtype_built_from_its_name(name, expect):
    out = np.zeros(1, np.int32)
    dtype_by_name_kernel[(1,)](out, NAME=name)
    assert out[0] == expect and tl.dtype(name) == getattr(tl, {"fp16": "float16"}.get(name, name))


def test_an_unknown_dtype_name_says_which_exist():
    with pytest.raises(ValueError, match="unknown dtype 'int7'.*int8"):
        tl.dtype("int7")


@triton.jit
def rtz_kernel(x_ptr, half_ptr, bf16_ptr, narrowed_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(half_ptr + offs, x.to(tl.float16, fp_downcast_rounding="rtz"))
    tl.store(half_ptr + N + offs, tl.cast(x, tl.float16, fp_downcast_rounding="rtne"))
    tl.store(bf16_ptr + offs, tl.cast(x, tl.bfloat16, "rtz").to(tl.uint16, bitcast=True))
    tl.store(narrowed_ptr + offs, x.to(tl.float64).to(tl.float32, fp_downcast_rounding="rtz"))


def _toward_zero_reference(x: np.ndarray, dtype) -> np.ndarray:
    """Round to nearest, then one step toward zero where that went past x (exact comparisons in float64)."""
    with np.errstate(over="ignore"):
        nearest = x.astype(dtype)
    past = np.abs(nearest.astype(np.float64)) > np.abs(x.astype(np.float64))
    return np.where(past, np.nextafter(nearest, dtype(0)), nearest).astype(dtype)


def test_fp_downcast_rounding_toward_zero():
    rng = np.random.default_rng(32)
    n = 64
    x = (rng.standard_normal(n) * 1000).astype(np.float32)
    x[:4] = [70000.0, -70000.0, 1e-9, -0.0]  # past fp16's range: the largest finite, not inf
    x[4:8] = [65519.0, 65520.0, -65520.0, 65536.0]  # rtne: 65504, inf, -inf, inf; rtz: all finite
    half, bf16 = np.zeros(2 * n, np.float16), np.zeros(n, np.uint16)
    narrowed = np.zeros(n, np.float32)
    rtz_kernel[(1,)](x, half, bf16, narrowed, N=n)
    np.testing.assert_array_equal(half[:n], _toward_zero_reference(x, np.float16))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(half[n:], x.astype(np.float16))
    assert list(half[:2]) == [65504, -65504] and list(half[4:8]) == [65504, 65504, -65504, 65504]
    np.testing.assert_array_equal(bf16, (x.view(np.uint32) >> 16).astype(np.uint16))  # truncated bits
    np.testing.assert_array_equal(narrowed, x)


@triton.jit
def widening_rtz_kernel(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr).to(tl.float64, fp_downcast_rounding="rtz").to(tl.float32))


def test_fp_downcast_rounding_only_on_narrowing_casts():
    with pytest.raises(triton.CompilationError, match="only for truncating fp conversions"):
        widening_rtz_kernel[(1,)](np.zeros(1, np.float32))


@triton.jit
def shifts_kernel(a_ptr, s_ptr, b_ptr, t_ptr, out_a_ptr, out_b_ptr, out_c_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    a, s = tl.load(a_ptr + offs), tl.load(s_ptr + offs)  # int16, uint16
    b, t = tl.load(b_ptr + offs), tl.load(t_ptr + offs)  # uint8, int32
    tl.store(out_a_ptr + offs, a >> s)  # meets at uint16, shifted arithmetically (a is signed)
    tl.store(out_b_ptr + offs, b >> t)  # meets at int32, shifted logically (b is unsigned)
    tl.store(out_c_ptr + offs, -256 >> s.to(tl.int32))


def test_right_shift_takes_its_signedness_from_the_left_operand():
    rng = np.random.default_rng(33)
    n = 32
    a = rng.integers(-2 ** 15, 2 ** 15, n).astype(np.int16)
    s = rng.integers(0, 16, n).astype(np.uint16)
    b = rng.integers(0, 256, n).astype(np.uint8)
    t = rng.integers(0, 8, n).astype(np.int32)
    out_a, out_b, out_c = np.zeros(n, np.uint16), np.zeros(n, np.int32), np.zeros(n, np.int32)
    shifts_kernel[(1,)](a, s, b, t, out_a, out_b, out_c, N=n)
    np.testing.assert_array_equal(out_a, (a >> s.astype(np.int16)).view(np.uint16))
    np.testing.assert_array_equal(out_b, b.astype(np.int32) >> t)
    np.testing.assert_array_equal(out_c, np.int32(-256) >> s.astype(np.int32))


@triton.jit
def scalar_rules_kernel(x_ptr, h_ptr, out_ptr, CASE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 4))  # uint8
    h = tl.load(h_ptr + tl.arange(0, 4))  # fp16
    if CASE == "too_big":
        tl.store(out_ptr + tl.arange(0, 4), x + 300)
    elif CASE == "negative":
        tl.store(out_ptr + tl.arange(0, 4), x - -1)
    else:
        tl.static_assert((x + 255).dtype == tl.uint8)  # a number takes the tile's type
        tl.static_assert((x + 1.5).dtype == tl.float32)  # unless of a higher kind
        tl.static_assert((h * 2.5).dtype == tl.float16)
        tl.static_assert(tl.maximum(h, 0.0).dtype == tl.float32)  # numbers are typed on their own here
        tl.static_assert(tl.where(x > 1, h, 0.0).dtype == tl.float16)  # ...but not here
        tl.static_assert(tl.to_tensor(2 ** 31).dtype == tl.uint32)
        tl.static_assert(tl.to_tensor(2 ** 32).dtype == tl.int64)
        tl.store(out_ptr + tl.arange(0, 4), x + 255)


def test_python_numbers_meet_tiles_by_triton_rules():
    x, h, out = np.arange(4, dtype=np.uint8), np.zeros(4, np.float16), np.zeros(4, np.uint8)
    scalar_rules_kernel[(1,)](x, h, out, CASE="ok")
    np.testing.assert_array_equal(out, (x + 255).astype(np.uint8))
    with pytest.raises(triton.CompilationError, match="Scalar 300 is out of range for type uint8"):
        scalar_rules_kernel[(1,)](x, h, out, CASE="too_big")
    with pytest.raises(triton.CompilationError, match="unsigned tensor .* negative scalar"):
        scalar_rules_kernel[(1,)](x, h, out, CASE="negative")


@triton.jit
def const_kernel(x_ptr: tl.const, y_ptr, n, BLOCK: tl.constexpr, WRITE_X: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x_ptrs = x_ptr + offs
    tl.static_assert(x_ptrs.dtype.is_const() and not y_ptr.dtype.is_const())
    tl.store(y_ptr + offs, tl.load(x_ptrs, mask=offs < n) + 1, mask=offs < n)
    if WRITE_X == "store":
        tl.store(x_ptrs, 0.0, mask=offs < n)
    elif WRITE_X == "atomic":
        tl.atomic_add(x_ptrs, 1.0, mask=offs < n)


def test_a_const_pointer_is_read_and_never_written():
    x = np.arange(100, dtype=np.float32)
    y = np.full(100, np.nan, np.float32)
    const_kernel[(4,)](x, y, 100, BLOCK=32, WRITE_X="")
    np.testing.assert_array_equal(y, x + 1)
    for how in ("store", "atomic"):
        with pytest.raises(triton.CompilationError, match="Cannot store to a constant pointer"):
            const_kernel[(4,)](x, y, 100, BLOCK=32, WRITE_X=how)
    np.testing.assert_array_equal(x, np.arange(100, dtype=np.float32))


@triton.jit
def fp64_exp_kernel(x_ptr, out_ptr):
    offs = tl.arange(0, 16)
    tl.store(out_ptr + offs, tl.exp(tl.load(x_ptr + offs)) + tl.erf(tl.load(x_ptr + offs)))


def test_fp64_math_is_not_narrowed_to_fp32():
    x = np.linspace(-3, 3, 16)
    out = np.zeros(16)
    fp64_exp_kernel[(1,)](x, out)
    np.testing.assert_allclose(out, np.exp(x) + np.array([math.erf(v) for v in x]), rtol=1e-15)
    llir = fp64_exp_kernel.warmup(x, out, grid=(1,), target="sm_90a").asm["llir"]
    assert 'double @"__nv_exp"(double' in llir and 'double @"__nv_erf"(double' in llir  # libdevice's fp64
