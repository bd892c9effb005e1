"""Tests for exercise 10.5: run with `pytest exercises/10_performance/test_ex5_layer_norm.py`."""
import numpy as np
import pytest
from _impl import load
from load_count import loads_from

impl = load("10_performance/ex5_layer_norm")


def reference(x, w, b, eps):
    """y, mean and rstd in float64."""
    x = x.astype(np.float64)
    mean, var = x.mean(axis=1), x.var(axis=1)
    rstd = 1 / np.sqrt(var + eps)
    return (x - mean[:, None]) * rstd[:, None] * w + b, mean, rstd


def run(storage, n, w, b, eps, block):
    """The kernel over the first n columns of each row of `storage`: the whole y storage, mean, rstd."""
    rows, stride = storage.shape
    y = np.full(storage.shape, np.nan, storage.dtype)  # poisoned: what the kernel skips stays NaN
    mean, rstd = np.full(rows, np.nan, np.float32), np.full(rows, np.nan, np.float32)
    impl.layer_norm_kernel[(rows,)](storage, y, w, b, mean, rstd, n, stride, eps, BLOCK=block)
    return y, mean, rstd


def inputs(rows, n, seed, offset=0.0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    x = (offset + rng.standard_normal((rows, n)) * rng.uniform(0.5, 2, (rows, 1))).astype(dtype)
    return x, rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)


def check(x, w, b, eps, block, y_tolerance=1e-4):
    n = x.shape[1]
    y, mean, rstd = run(x, n, w, b, eps, block)
    want_y, want_mean, want_rstd = reference(x, w, b, eps)
    np.testing.assert_allclose(mean, want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, want_rstd, rtol=1e-3)
    np.testing.assert_allclose(y, want_y, rtol=y_tolerance, atol=y_tolerance)


@pytest.mark.parametrize("rows, n, block", [(3, 1, 16), (4, 37, 16), (3, 300, 128), (2, 1000, 256), (5, 64, 64)],
                         ids=str)
def test_matches_numpy(rows, n, block):
    x, w, b = inputs(rows, n, seed=n, offset=3.0)
    check(x, w, b, 1e-5, block)


def test_far_from_zero():
    """10000 plus numbers of spread about 1: a sum of squares in fp32 gets the variance wrong."""
    x, w, b = inputs(3, 500, seed=1, offset=1e4)
    check(x, w, b, 1e-5, 64, y_tolerance=2e-2)


def test_eps_is_added_to_the_variance():
    x, w, b = inputs(3, 100, seed=2)
    check(x, w, b, 0.5, 32)


def test_fp16_rows():
    x, w, b = inputs(4, 700, seed=3, offset=40.0, dtype=np.float16)
    y, mean, rstd = run(x, 700, w, b, 1e-5, 128)
    want_y, want_mean, want_rstd = reference(x, w, b, 1e-5)
    assert y.dtype == np.float16
    np.testing.assert_allclose(mean, want_mean, rtol=1e-5)
    np.testing.assert_allclose(rstd, want_rstd, rtol=1e-3)
    np.testing.assert_allclose(y, want_y.astype(np.float16), rtol=4e-3, atol=4e-3)


def test_rows_inside_wider_storage():
    """Rows of 45 numbers around 5, 64 apart; the 19 elements after each row are NaN."""
    storage = np.full((3, 64), np.nan, np.float32)
    x, w, b = inputs(3, 45, seed=4, offset=5.0)
    storage[:, :45] = x
    y, mean, rstd = run(storage, 45, w, b, 1e-5, 16)
    want_y, want_mean, want_rstd = reference(x, w, b, 1e-5)
    np.testing.assert_allclose(mean, want_mean, rtol=1e-5)
    np.testing.assert_allclose(rstd, want_rstd, rtol=1e-3)
    np.testing.assert_allclose(y[:, :45], want_y, rtol=1e-4, atol=1e-4)
    assert np.isnan(y[:, 45:]).all(), "the kernel wrote past the end of a row"


def test_each_row_is_read_twice():
    x, w, b = inputs(2, 300, seed=5)
    stats = np.zeros(2, np.float32)
    ttir = impl.layer_norm_kernel.warmup(x, x, w, b, stats, stats, 300, 300, 1e-5, BLOCK=64,
                                         target="sm_80").asm["ttir"]
    loads = loads_from(ttir, "x_ptr")
    assert 1 <= loads <= 2, f"the kernel loads x {loads} times: once for the statistics, once for y"
