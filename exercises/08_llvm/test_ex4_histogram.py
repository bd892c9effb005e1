"""Tests for exercise 8.4: run with `pytest exercises/08_llvm/test_ex4_histogram.py`."""
import re

import numpy as np
import pytest
from _impl import load

import minitriton as triton

impl = load("08_llvm/ex4_histogram")


def expected(x: np.ndarray, num_bins: int) -> np.ndarray:
    return np.bincount(x[(x >= 0) & (x < num_bins)], minlength=num_bins).astype(np.int32)


def values(n: int, num_bins: int, seed: int) -> np.ndarray:
    """Mostly in the bins, some below 0 and some past the last bin; few 0s, so miscounted 0s show."""
    return np.random.default_rng(seed).integers(-4, num_bins + 4, n).astype(np.int32)


def run(x: np.ndarray, bins: np.ndarray, num_bins: int, block: int) -> None:
    impl.histogram_kernel[(triton.cdiv(len(x), block),)](x, bins, len(x), NUM_BINS=num_bins, BLOCK=block)


@pytest.mark.parametrize("n, num_bins, block", [(1, 16, 16), (100, 16, 128), (1000, 32, 128), (4099, 64, 256),
                                                (517, 8, 32)], ids=str)
def test_counts_of_many_programs(n, num_bins, block):
    x = values(n, num_bins, seed=n)
    bins = np.zeros(num_bins + 8, np.int32)
    bins[num_bins:] = -7  # past the last bin: must stay as it is
    run(x, bins, num_bins, block)
    np.testing.assert_array_equal(bins[:num_bins], expected(x, num_bins))
    assert (bins[num_bins:] == -7).all(), "the kernel wrote past the last bin"


def test_adds_to_the_counts_already_there():
    first, second = values(300, 16, seed=1), values(45, 16, seed=2)
    bins = np.zeros(16, np.int32)
    run(first, bins, 16, 64)
    run(second, bins, 16, 64)
    np.testing.assert_array_equal(bins, expected(first, 16) + expected(second, 16))


def test_values_past_n_are_not_counted():
    """x is the first 70 values of an array of 128 zeros: the 58 zeros past n are not data."""
    storage = np.zeros(128, np.int32)
    storage[:70] = values(70, 8, seed=3) + 9  # none of them 0
    bins = np.zeros(8, np.int32)
    impl.histogram_kernel[(2,)](storage, bins, 70, NUM_BINS=8, BLOCK=64)
    np.testing.assert_array_equal(bins, expected(storage[:70], 8))


def test_the_gpu_code_adds_atomically():
    x, bins = values(1000, 32, seed=4), np.zeros(32, np.int32)
    ptx = impl.histogram_kernel.warmup(x, bins, 1000, NUM_BINS=32, BLOCK=128, target="sm_80").asm["ptx"]
    assert re.search(r"\batom\.shared\.[\w.]*add", ptx), "count the block with tl.histogram"
    assert re.search(r"\b(atom|red)\.global\.[\w.]*add", ptx), "add into the bins with tl.atomic_add"
