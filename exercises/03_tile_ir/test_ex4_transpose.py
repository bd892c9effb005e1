"""Tests for exercise 3.4: run with `make exercise CH=3 EX=4`."""
import numpy as np
import pytest
from _impl import load

import minitriton as triton

impl = load("03_tile_ir/ex4_transpose")


def launch(x_storage, out_storage, M, N, x_strides, out_strides, block=(16, 16)):
    grid = (triton.cdiv(M, block[0]), triton.cdiv(N, block[1]))
    impl.transpose_kernel[grid](x_storage, out_storage, M, N, *x_strides, *out_strides,
                                BLOCK_M=block[0], BLOCK_N=block[1])


@pytest.mark.parametrize("M, N", [(37, 50), (1, 1), (16, 16), (3, 70)])
def test_packed_matrices(M, N):
    x = np.random.default_rng(M + N).standard_normal((M, N)).astype(np.float32)
    out = np.full((N, M), np.nan, np.float32)
    launch(x, out, M, N, (N, 1), (M, 1))
    np.testing.assert_array_equal(out, x.T)


def test_matrix_inside_a_wider_array():
    """x is the left 50 columns of a 37 x 64 array; out the top 50 rows of a 60 x 40 array."""
    storage = np.random.default_rng(1).standard_normal((37, 64)).astype(np.float32)
    out = np.full((60, 40), -1.0, np.float32)
    launch(storage, out, 37, 50, (64, 1), (40, 1))
    np.testing.assert_array_equal(out[:50, :37], storage[:, :50].T)
    assert (out[50:] == -1).all() and (out[:, 37:] == -1).all(), "the kernel wrote outside the output"


def test_column_major_input():
    x = np.asfortranarray(np.random.default_rng(2).standard_normal((21, 33)).astype(np.float32))
    out = np.full((33, 21), np.nan, np.float32)
    launch(x, out, 21, 33, (1, 21), (21, 1), block=(8, 32))
    np.testing.assert_array_equal(out, x.T)
