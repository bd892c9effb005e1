"""Tests for exercise 4.5: run with `pytest exercises/04_layouts/test_ex5_column_stats.py`."""
import numpy as np
import pytest
from _impl import load

import minitriton as triton

impl = load("04_layouts/ex5_column_stats")


def run(storage: np.ndarray, M: int, N: int, block_m: int, block_n: int):
    """The kernel over the top-left M x N of `storage`; (sums, argmax) with 3 sentinels past N."""
    sums = np.full(N + 3, np.nan, np.float32)
    argmax = np.full(N + 3, -1, np.int32)
    impl.column_stats_kernel[(triton.cdiv(N, block_n),)](storage, sums, argmax, M, N, storage.shape[1],
                                                         BLOCK_M=block_m, BLOCK_N=block_n)
    assert np.isnan(sums[N:]).all() and (argmax[N:] == -1).all(), "the kernel wrote past column N - 1"
    return sums[:N], argmax[:N]


def small_integers(M, N, seed):
    """Negative whole numbers from a short range: sums are exact, and every column has ties."""
    return np.random.default_rng(seed).integers(-40, -30, (M, N)).astype(np.float32)


@pytest.mark.parametrize("M, N, block_m, block_n", [
    (1, 1, 16, 16), (37, 50, 16, 16), (100, 20, 32, 8), (20, 100, 8, 32), (64, 64, 16, 16), (45, 3, 4, 4),
], ids=str)
def test_sums_and_first_maxima(M, N, block_m, block_n):
    x = small_integers(M, N, seed=M * N)
    sums, argmax = run(x, M, N, block_m, block_n)
    np.testing.assert_array_equal(sums, x.sum(axis=0))
    np.testing.assert_array_equal(argmax, x.argmax(axis=0))


def test_random_floats():
    x = np.random.default_rng(5).standard_normal((77, 40)).astype(np.float32)
    sums, argmax = run(x, 77, 40, 16, 16)
    np.testing.assert_allclose(sums, x.astype(np.float64).sum(axis=0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(argmax, x.argmax(axis=0))


def test_a_maximum_in_several_steps_goes_to_the_first():
    """Each column's maximum, 0, sits in rows 3, 20 and 33: three different steps of 16 rows."""
    x = small_integers(40, 24, seed=1)
    x[[3, 20, 33], :] = 0.0
    sums, argmax = run(x, 40, 24, 16, 8)
    np.testing.assert_array_equal(argmax, np.full(24, 3))
    np.testing.assert_array_equal(sums, x.sum(axis=0))


def test_matrix_inside_larger_storage():
    """The 30 x 21 matrix is the corner of a 35 x 32 array whose other elements are 1e30."""
    storage = np.full((35, 32), 1e30, np.float32)
    storage[:30, :21] = small_integers(30, 21, seed=2)
    sums, argmax = run(storage, 30, 21, 8, 16)
    np.testing.assert_array_equal(sums, storage[:30, :21].sum(axis=0))
    np.testing.assert_array_equal(argmax, storage[:30, :21].argmax(axis=0))
