"""RMSNorm, forward and backward, written for minitriton as the norm layers of language models
write it: y = x / rms(x) * w, with rms(x) = sqrt(mean(x^2) + eps), a row of x in one block.

The forward pass is one program per row; it saves rstd = 1 / rms(x) per row. The backward pass
gives dx row by row, dx = rstd * (w dy - x_hat * mean(w dy * x_hat)) with x_hat = x * rstd, and
dw = sum over rows of dy * x_hat in two steps without atomics: a fixed number of programs each
takes every P-th row and keeps its share of dw in registers, writing one partial row at the end;
a second kernel sums the partial rows down the columns. Chapter: 10-performance.
"""
import numpy as np

import minitriton as triton
import minitriton.language as tl


# --8<-- [start:rms]
@triton.jit
def rms_norm_fwd_kernel(X, Y, W, Rstd, stride, N, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, 0) / N + eps)
    tl.store(Rstd + row, rstd)
    tl.store(Y + row * stride + cols, (x * rstd * w).to(Y.dtype.element_ty), mask=mask)


@triton.jit
def rms_norm_bwd_kernel(DX, DY, DW_partial, X, W, Rstd, stride, M, N, BLOCK_N: tl.constexpr):
    """Rows program_id, program_id + P, ...: their dx, and their share of dw as one partial row."""
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    dw = tl.zeros([BLOCK_N], tl.float32)
    for row in tl.range(tl.program_id(0), M, tl.num_programs(0)):
        x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(DY + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        rstd = tl.load(Rstd + row)
        x_hat = x * rstd
        w_dy = w * dy
        dx = (w_dy - x_hat * (tl.sum(w_dy * x_hat, 0) / N)) * rstd
        tl.store(DX + row * stride + cols, dx.to(DX.dtype.element_ty), mask=mask)
        dw += dy * x_hat
    tl.store(DW_partial + tl.program_id(0) * N + cols, dw, mask=mask)


@triton.jit
def column_sum_kernel(Partial, Out, ROWS, N, BLOCK_R: tl.constexpr, BLOCK_N: tl.constexpr):
    """Out[c] = the sum of Partial[:, c] (ROWS x N, fp32), BLOCK_N columns a program."""
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    total = tl.zeros([BLOCK_R, BLOCK_N], tl.float32)
    for start in range(0, ROWS, BLOCK_R):
        rows = start + tl.arange(0, BLOCK_R)
        total += tl.load(Partial + rows[:, None] * N + cols[None, :],
                         mask=(rows[:, None] < ROWS) & (cols[None, :] < N), other=0.0)
    tl.store(Out + cols, tl.sum(total, 0).to(Out.dtype.element_ty), mask=cols < N)
# --8<-- [end:rms]


def rms_norm_reference(x, w, dy, eps: float):
    """y, dx, dw in float64."""
    x, w, dy = (np.asarray(t, np.float64) for t in (x, w, dy))
    rstd = 1 / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps)
    x_hat = x * rstd
    w_dy = w * dy
    dx = rstd * (w_dy - x_hat * (w_dy * x_hat).mean(axis=1, keepdims=True))
    return x_hat * w, dx, (dy * x_hat).sum(axis=0)


def run_rms_norm(M: int = 45, N: int = 300, programs: int = 7, eps: float = 1e-6, dtype=np.float32,
                 seed: int = 0, to_device=np.asarray, to_host=np.asarray):
    """Forward, then backward from the forward's rstd: ((y, dx, dw), their float64 references)."""
    rng = np.random.default_rng(seed)
    x, dy = (rng.standard_normal((M, N)).astype(dtype) for _ in range(2))
    w = rng.standard_normal(N).astype(dtype)
    block_n = triton.next_power_of_2(N)
    y, dx = (to_device(np.full((M, N), np.nan, dtype)) for _ in range(2))
    rstd = to_device(np.full(M, np.nan, np.float32))
    partial = to_device(np.full((programs, N), np.nan, np.float32))
    dw = to_device(np.full(N, np.nan, dtype))
    x_d, w_d = to_device(x), to_device(w)
    rms_norm_fwd_kernel[(M,)](x_d, y, w_d, rstd, N, N, eps, BLOCK_N=block_n)
    rms_norm_bwd_kernel[(programs,)](dx, to_device(dy), partial, x_d, w_d, rstd, N, M, N, BLOCK_N=block_n)
    column_sum_kernel[(triton.cdiv(N, 64),)](partial, dw, programs, N, BLOCK_R=4, BLOCK_N=64)
    return tuple(to_host(t) for t in (y, dx, dw)), rms_norm_reference(x, w, dy, eps)
