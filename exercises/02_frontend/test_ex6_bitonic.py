"""Tests for exercise 2.6: run with `make exercise CH=2 EX=6`."""
import inspect
import re

import numpy as np
import pytest
from _impl import load

impl = load("02_frontend/ex6_bitonic")


def sort_blocks(x: np.ndarray, n: int) -> np.ndarray:
    out = np.full_like(x, -12345)
    impl.bitonic_sort_kernel[(len(x) // n,)](x, out, N=n, LOG_N=n.bit_length() - 1)
    return out


@pytest.mark.parametrize("n, blocks", [(2, 3), (8, 5), (64, 2), (256, 1)])
def test_sorts_every_block(n, blocks):
    x = np.random.default_rng(n).integers(-1000, 1000, n * blocks).astype(np.int32)
    np.testing.assert_array_equal(sort_blocks(x, n), np.sort(x.reshape(blocks, n), axis=1).reshape(-1))
    source = inspect.getsource(impl.bitonic_sort_kernel.fn)
    assert not re.search(r"\bsort\(", source), "build the network yourself: no tl.sort"


def test_ties_and_floats():
    rng = np.random.default_rng(7)
    ties = rng.integers(0, 3, 128).astype(np.int32)
    np.testing.assert_array_equal(sort_blocks(ties, 128), np.sort(ties))
    floats = rng.standard_normal(4 * 32).astype(np.float32)
    np.testing.assert_array_equal(sort_blocks(floats, 32), np.sort(floats.reshape(4, 32), axis=1).reshape(-1))


def test_already_sorted_and_reversed():
    up = np.arange(64, dtype=np.int32)
    np.testing.assert_array_equal(sort_blocks(up, 64), up)
    np.testing.assert_array_equal(sort_blocks(up[::-1].copy(), 64), up)
