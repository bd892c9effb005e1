"""Tests for exercise 10.4: run with `pytest exercises/10_performance/test_ex4_online_softmax.py`."""
import numpy as np
import pytest
from _impl import load
from load_count import loads_from

impl = load("10_performance/ex4_online_softmax")


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def run(storage: np.ndarray, n: int, block: int) -> np.ndarray:
    """The kernel over the first n columns of each row of `storage`; the whole output storage."""
    y = np.full(storage.shape, np.nan, np.float32)  # poisoned: what the kernel skips stays NaN
    impl.softmax_kernel[(storage.shape[0],)](storage, y, n, storage.shape[1], BLOCK=block)
    return y


@pytest.mark.parametrize("rows, n, block", [(3, 1, 16), (4, 37, 16), (3, 300, 64), (2, 1000, 128), (5, 64, 64)],
                         ids=str)
def test_matches_numpy(rows, n, block):
    x = (np.random.default_rng(n).standard_normal((rows, n)) * 3).astype(np.float32)
    np.testing.assert_allclose(run(x, n, block), softmax(x), rtol=1e-5, atol=1e-7)


def test_a_maximum_that_grows_block_after_block():
    """Each block's numbers are larger than the last's: the sum must be rescaled every time."""
    rng = np.random.default_rng(1)
    x = (np.arange(500) * 0.05 + rng.standard_normal((3, 500))).astype(np.float32)
    np.testing.assert_allclose(run(x, 500, 64), softmax(x), rtol=1e-5, atol=1e-7)


def test_numbers_far_from_zero():
    """Rows around 150 (exp overflows) and around -1000 (exp underflows to 0)."""
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.uniform(100, 200, (2, 333)), rng.uniform(-1010, -990, (2, 333))]).astype(np.float32)
    np.testing.assert_allclose(run(x, 333, 64), softmax(x), rtol=1e-5, atol=1e-7)


def test_rows_inside_wider_storage():
    """Rows of 200 numbers, 256 apart; the 56 elements after each row are NaN and not part of it."""
    storage = np.full((4, 256), np.nan, np.float32)
    storage[:, :200] = np.random.default_rng(3).uniform(-20, -10, (4, 200))
    y = run(storage, 200, 64)
    np.testing.assert_allclose(y[:, :200], softmax(storage[:, :200]), rtol=1e-5, atol=1e-7)
    assert np.isnan(y[:, 200:]).all(), "the kernel wrote past the end of a row"


def test_each_row_is_read_twice():
    x = np.zeros((2, 300), np.float32)
    ttir = impl.softmax_kernel.warmup(x, x, 300, 300, BLOCK=64, target="sm_80").asm["ttir"]
    loads = loads_from(ttir, "x_ptr")
    assert 1 <= loads <= 2, f"the kernel loads x {loads} times: walk the row once for m and l, once for y"
