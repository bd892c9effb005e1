"""Tests for exercise 1.2: run with `make exercise CH=1 EX=2`."""
import numpy as np
import pytest
from _impl import load

import minitriton as triton

impl = load("01_introduction/ex2_outer")


@pytest.mark.parametrize("M, N, block_m, block_n", [(37, 50, 16, 16), (1, 1, 16, 16), (64, 8, 32, 8),
                                                     (5, 100, 4, 32)])
def test_outer_product(M, N, block_m, block_n):
    rng = np.random.default_rng(M * 1000 + N)
    x, y = rng.standard_normal(M).astype(np.float32), rng.standard_normal(N).astype(np.float32)
    out = np.full((M, N), np.nan, np.float32)
    grid = (triton.cdiv(M, block_m), triton.cdiv(N, block_n))
    impl.outer_kernel[grid](x, y, out, M, N, N, BLOCK_M=block_m, BLOCK_N=block_n)
    np.testing.assert_allclose(out, np.outer(x, y), rtol=1e-6)


def test_row_stride_is_respected():
    """`out` is the left 50 columns of a 37 x 64 array: the 14 columns past N must stay untouched."""
    rng = np.random.default_rng(7)
    x, y = rng.standard_normal(37).astype(np.float32), rng.standard_normal(50).astype(np.float32)
    storage = np.full((37, 64), -1.0, np.float32)
    impl.outer_kernel[(3, 4)](x, y, storage, 37, 50, 64, BLOCK_M=16, BLOCK_N=16)
    np.testing.assert_allclose(storage[:, :50], np.outer(x, y), rtol=1e-6)
    assert (storage[:, 50:] == -1.0).all(), "the kernel wrote outside the M x N matrix"
