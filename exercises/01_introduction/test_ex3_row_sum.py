"""Tests for exercise 1.3: run with `make exercise CH=1 EX=3`."""
import numpy as np
import pytest
from _impl import load

import minitriton as triton

impl = load("01_introduction/ex3_row_sum")


@pytest.mark.parametrize("rows, n_cols", [(1, 1), (33, 100), (8, 128), (5, 3)])
def test_row_sums(rows, n_cols):
    rng = np.random.default_rng(rows + n_cols)
    x = rng.standard_normal((rows, n_cols)).astype(np.float32)
    out = np.full(rows, np.nan, np.float32)
    impl.row_sum_kernel[(rows,)](x, out, n_cols, n_cols, BLOCK=triton.next_power_of_2(n_cols))
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_padding_between_rows_is_ignored():
    """Each row is followed by 28 NaNs that are not part of the matrix: the mask must skip them."""
    rng = np.random.default_rng(3)
    storage = np.full((20, 128), np.nan, np.float32)
    storage[:, :100] = rng.standard_normal((20, 100))
    out = np.full(20, np.nan, np.float32)
    impl.row_sum_kernel[(20,)](storage, out, 100, 128, BLOCK=128)
    np.testing.assert_allclose(out, storage[:, :100].sum(axis=1), rtol=1e-5, atol=1e-5)


def test_block_larger_than_needed():
    x = np.arange(30, dtype=np.float32).reshape(3, 10)
    out = np.full(3, np.nan, np.float32)
    impl.row_sum_kernel[(3,)](x, out, 10, 10, BLOCK=64)
    np.testing.assert_array_equal(out, x.sum(axis=1))
