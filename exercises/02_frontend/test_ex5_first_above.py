"""Tests for exercise 2.5: run with `pytest exercises/02_frontend/test_ex5_first_above.py`."""
import numpy as np
import pytest
from _impl import load

impl = load("02_frontend/ex5_first_above")


def reference(x: np.ndarray, threshold: float) -> np.ndarray:
    above = x > threshold
    return np.where(above.any(axis=1), above.argmax(axis=1), x.shape[1]).astype(np.int32)


@pytest.mark.parametrize("rows, n_cols, block", [(9, 100, 16), (4, 16, 16), (3, 5, 8), (2, 1000, 64)])
def test_first_above(rows, n_cols, block):
    rng = np.random.default_rng(rows * n_cols)
    x = rng.random((rows, n_cols)).astype(np.float32)
    x[0] = 0.0                    # no hit: n_cols
    x[1, :] = 0.0
    x[1, -1] = 2.0                # the very last element
    x[-1, 0] = 2.0                # the very first element
    out = np.full(rows, -1, np.int32)
    impl.first_above_kernel[(rows,)](x, out, n_cols, n_cols, 0.99, BLOCK=block)
    np.testing.assert_array_equal(out, reference(x, 0.99))


def test_rows_with_padding():
    """Rows of 50 elements, 64 apart; the 14 elements after each row are 9.0 but not in the row."""
    storage = np.full((6, 64), 9.0, np.float32)
    storage[:, :50] = np.random.default_rng(1).random((6, 50))
    out = np.full(6, -1, np.int32)
    impl.first_above_kernel[(6,)](storage, out, 50, 64, 0.95, BLOCK=16)
    np.testing.assert_array_equal(out, reference(storage[:, :50], 0.95))


def test_uses_a_loop():
    x, out = np.zeros(4, np.float32), np.zeros(1, np.int32)
    ttir = impl.first_above_kernel.warmup(x, out, 100, 100, 0.5, BLOCK=16, target="interpreter").asm["ttir"]
    assert "for " in ttir, "scan the row with a for loop over range(0, n_cols, BLOCK)"
