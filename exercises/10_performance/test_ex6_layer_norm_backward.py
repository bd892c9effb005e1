"""Tests for exercise 10.6: run with `pytest exercises/10_performance/test_ex6_layer_norm_backward.py`."""
import numpy as np
import pytest
from _impl import load

import minitriton as triton

impl = load("10_performance/ex6_layer_norm_backward")


def forward(x, w, b, eps=1e-5):
    """y, and the mean and rstd per row, in float64."""
    mean = x.mean(axis=1)
    rstd = 1 / np.sqrt(x.var(axis=1) + eps)
    return ((x - mean[:, None]) * rstd[:, None]) * w + b, mean, rstd


def gradients(x, w, dy, mean, rstd):
    """dx, dw, db in float64, by the formulas of the exercise."""
    x, w, dy, mean, rstd = (np.asarray(a, np.float64) for a in (x, w, dy, mean, rstd))
    x_hat = (x - mean[:, None]) * rstd[:, None]
    w_dy = w * dy
    dx = rstd[:, None] * (w_dy - x_hat * (w_dy * x_hat).mean(axis=1, keepdims=True) - w_dy.mean(axis=1, keepdims=True))
    return dx, (dy * x_hat).sum(axis=0), dy.sum(axis=0)


def problem(M, n, seed):
    rng = np.random.default_rng(seed)
    x = (2.0 + rng.standard_normal((M, n)) * rng.uniform(0.5, 2, (M, 1))).astype(np.float32)
    w, dy = rng.standard_normal(n).astype(np.float32), rng.standard_normal((M, n)).astype(np.float32)
    _, mean, rstd = forward(x.astype(np.float64), w, 0.0)
    return x, w, dy, mean.astype(np.float32), rstd.astype(np.float32)


def backward(x, w, dy, mean, rstd, M, n, rows, block, block_p=4, block_n=16):
    """Both kernels, on poisoned outputs: dx (the whole storage), dw, db, and the partial rows."""
    stride, P = x.shape[1], triton.cdiv(M, rows)
    dx = np.full(x.shape, np.nan, np.float32)
    dw_partial, db_partial = np.full((P, n), np.nan, np.float32), np.full((P, n), np.nan, np.float32)
    impl.layer_norm_backward_kernel[(P,)](x, dy, w, mean, rstd, dx, dw_partial, db_partial, M, n, stride,
                                          ROWS=rows, BLOCK=block)
    dw, db = np.full(n + 2, np.nan, np.float32), np.full(n + 2, np.nan, np.float32)
    for partial, out in ((dw_partial, dw), (db_partial, db)):
        impl.sum_rows_kernel[(triton.cdiv(n, block_n),)](partial, out, P, n, BLOCK_P=block_p, BLOCK_N=block_n)
        assert np.isnan(out[n:]).all(), "sum_rows_kernel wrote past column n - 1"
    return dx, dw[:n], db[:n], dw_partial, db_partial


@pytest.mark.parametrize("M, n, rows, block", [(1, 1, 1, 16), (10, 37, 4, 64), (23, 100, 3, 128), (16, 64, 8, 64),
                                               (7, 20, 16, 32)], ids=str)
def test_gradients(M, n, rows, block):
    x, w, dy, mean, rstd = problem(M, n, seed=M * n)
    dx, dw, db, dw_partial, db_partial = backward(x, w, dy, mean, rstd, M, n, rows, block)
    want_dx, want_dw, want_db = gradients(x, w, dy, mean, rstd)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dw, want_dw, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(db, want_db, rtol=1e-4, atol=1e-4)
    x_hat = (x.astype(np.float64) - mean[:, None]) * rstd[:, None]
    for p in range(triton.cdiv(M, rows)):  # each partial row holds its own program's rows
        mine = slice(p * rows, min(p * rows + rows, M))
        np.testing.assert_allclose(dw_partial[p], (dy[mine] * x_hat[mine]).sum(axis=0), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(db_partial[p], dy[mine].sum(axis=0), rtol=1e-4, atol=1e-4)


def test_the_gradient_of_x_by_finite_differences():
    """The loss sum(y * dy) changes by about dx[i, j] * h when x[i, j] moves by h."""
    x, w, dy, mean, rstd = problem(3, 24, seed=5)
    dx = backward(x, w, dy, mean, rstd, 3, 24, 2, 32)[0]
    x64, h = x.astype(np.float64), 1e-6
    for i, j in [(0, 0), (1, 7), (2, 23)]:
        moved = x64.copy()
        moved[i, j] += h
        change = ((forward(moved, w, 0.0)[0] - forward(x64, w, 0.0)[0]) * dy).sum() / h
        assert dx[i, j] == pytest.approx(change, rel=1e-3, abs=1e-4)


def test_rows_and_columns_past_the_matrix():
    """x and dy are the 10 x 30 corner of 13 x 40 arrays of NaN: nothing outside may be read, and dx
    is written only in the corner."""
    x, w, dy, mean, rstd = problem(10, 30, seed=6)
    x_storage, dy_storage = np.full((13, 40), np.nan, np.float32), np.full((13, 40), np.nan, np.float32)
    x_storage[:10, :30], dy_storage[:10, :30] = x, dy
    dx, dw, db, _, _ = backward(x_storage, w, dy_storage, mean, rstd, 10, 30, 4, 32)
    want_dx, want_dw, want_db = gradients(x, w, dy, mean, rstd)
    np.testing.assert_allclose(dx[:10, :30], want_dx, rtol=1e-4, atol=1e-4)
    assert np.isnan(dx[10:]).all() and np.isnan(dx[:, 30:]).all(), "dx was written outside the matrix"
    np.testing.assert_allclose(dw, want_dw, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(db, want_db, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("P, n, block_p, block_n", [(1, 1, 4, 16), (7, 50, 4, 16), (33, 20, 8, 8)], ids=str)
def test_sum_rows(P, n, block_p, block_n):
    partial = np.random.default_rng(P + n).standard_normal((P, n)).astype(np.float32)
    out = np.full(n + 3, np.nan, np.float32)
    impl.sum_rows_kernel[(triton.cdiv(n, block_n),)](partial, out, P, n, BLOCK_P=block_p, BLOCK_N=block_n)
    np.testing.assert_allclose(out[:n], partial.astype(np.float64).sum(axis=0), rtol=1e-5, atol=1e-5)
    assert np.isnan(out[n:]).all(), "sum_rows_kernel wrote past column n - 1"
