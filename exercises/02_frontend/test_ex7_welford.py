"""Tests for exercise 2.7: run with `make exercise CH=2 EX=7`."""
import inspect
import re

import numpy as np
import pytest
from _impl import load

impl = load("02_frontend/ex7_welford")


def run(x: np.ndarray, n_cols: int, block: int):
    rows = x.shape[0]
    mean, var = np.full(rows, np.nan, np.float32), np.full(rows, np.nan, np.float32)
    impl.welford_kernel[(rows,)](x, mean, var, n_cols, x.shape[1], BLOCK=block)
    return mean, var


@pytest.mark.parametrize("rows, n_cols, block", [(3, 1, 16), (5, 37, 16), (4, 1000, 64), (2, 4099, 128)])
def test_mean_and_variance_far_from_zero(rows, n_cols, block):
    """10000 plus numbers of spread about 1: a sum of squares in float32 gets the variance wrong."""
    rng = np.random.default_rng(n_cols)
    x = (1e4 + rng.standard_normal((rows, n_cols)) * rng.uniform(0.5, 2, (rows, 1))).astype(np.float32)
    mean, var = run(x, n_cols, block)
    exact = x.astype(np.float64)
    np.testing.assert_allclose(mean, exact.mean(axis=1), rtol=1e-6)
    np.testing.assert_allclose(var, exact.var(axis=1), rtol=2e-3, atol=1e-6)


def test_rows_inside_wider_storage():
    """Rows of 50 elements, 64 apart: the 14 elements after each row are huge but not in the row."""
    storage = np.full((6, 64), 1e30, np.float32)
    storage[:, :50] = np.random.default_rng(1).random((6, 50))
    mean, var = run(storage, 50, 32)
    np.testing.assert_allclose(mean, storage[:, :50].astype(np.float64).mean(axis=1), rtol=1e-5)
    np.testing.assert_allclose(var, storage[:, :50].astype(np.float64).var(axis=1), rtol=1e-4)


def test_the_lanes_are_folded_by_one_reduction_over_a_tuple():
    source = inspect.getsource(inspect.getmodule(impl.welford_kernel.fn))
    assert re.search(r"tl\.reduce\(\s*[(\[]", source), "fold (mean, M2, n) with one tl.reduce over the tuple"
    assert not re.search(r"tl\.sum\(|\.sum\(", source), "no sums: the merge is the whole method"
