"""Tests for exercise 1.1: run with `make exercise CH=1 EX=1`."""
import numpy as np
import pytest
from _impl import load

import minitriton as triton

impl = load("01_introduction/ex1_axpy")


def inputs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)


@pytest.mark.parametrize("n, block", [(1, 16), (127, 128), (128, 128), (1000, 128), (1000, 16)])
def test_kernel_writes_every_element(n, block):
    x, y = inputs(n)
    out = np.full(n, np.nan, np.float32)  # poisoned: an element the kernel skips stays NaN
    impl.axpy_kernel[(triton.cdiv(n, block),)](x, y, out, 2.5, n, BLOCK=block)
    # against float64: the GPU (and the interpreter) may compute a * x + y as one fma, rounded once
    np.testing.assert_allclose(out, 2.5 * x.astype(np.float64) + y, rtol=1e-6, atol=1e-6)


def test_kernel_leaves_memory_past_n_alone():
    x, y = inputs(100)
    out = np.full(128, -7.0, np.float32)  # room for a whole second block; only 100 may change
    impl.axpy_kernel[(2,)](x, y, out, -1.0, 100, BLOCK=64)
    np.testing.assert_allclose(out[:100], y.astype(np.float64) - x, rtol=1e-6, atol=1e-6)
    assert (out[100:] == -7.0).all(), "the kernel wrote past element n - 1"


@pytest.mark.parametrize("n", [1, 300, 4099])
def test_host_function(n):
    x, y = inputs(n, seed=n)
    np.testing.assert_allclose(impl.axpy(0.5, x, y), 0.5 * x + y, rtol=1e-6)


def test_host_function_with_small_blocks():
    x, y = inputs(1000, seed=1)
    np.testing.assert_allclose(impl.axpy(3.0, x, y, block=32), 3.0 * x.astype(np.float64) + y, rtol=1e-6, atol=1e-6)
