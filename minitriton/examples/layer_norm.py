"""Layer norm backward, written for minitriton in the style of Triton's tutorial 05: dX row by row,
and dW, dB summed over rows in two steps, the first of them under spin locks.

Every row adds its share of dW and dB (dY * x_hat and dY) to one of GROUPS partial rows, row r to
partial r % GROUPS. Rows of one group meet there, so each group has a lock: a program takes it
with `atomic_cas(lock, 0, 1)` (acquire: what the previous holder wrote is visible), adds, and gives
it back with `atomic_xchg(lock, 0)` (release). A second kernel sums the GROUPS partial rows. The
partial rows and the locks start as zeros. Chapter: 10-performance.
"""
import numpy as np

import minitriton as triton
import minitriton.language as tl
from minitriton.examples.tutorials import _layer_norm_fwd_fused


# --8<-- [start:backward]
@triton.jit
def layer_norm_bwd_dx_kernel(DX, DY, DW_partial, DB_partial, X, W, Mean, Rstd, Locks, stride, N,
                             GROUPS: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(DY + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    x_hat = tl.where(mask, (x - tl.load(Mean + row)) * tl.load(Rstd + row), 0.0)
    w_dy = w * dy
    # dx = rstd * (w dy - mean(w dy * x_hat) x_hat - mean(w dy)), the means over the row's N elements
    dx = (w_dy - (x_hat * (tl.sum(w_dy * x_hat, 0) / N) + tl.sum(w_dy, 0) / N)) * tl.load(Rstd + row)
    tl.store(DX + row * stride + cols, dx.to(DX.dtype.element_ty), mask=mask)
    group = row % GROUPS
    lock = Locks + group
    while tl.atomic_cas(lock, 0, 1, sem="acquire") == 1:
        pass
    partial = group * N + cols
    tl.store(DW_partial + partial, tl.load(DW_partial + partial, mask=mask) + dy * x_hat, mask=mask)
    tl.store(DB_partial + partial, tl.load(DB_partial + partial, mask=mask) + dy, mask=mask)
    tl.debug_barrier()  # every thread's stores are done before the lock is given back
    tl.atomic_xchg(lock, 0, sem="release")


@triton.jit
def layer_norm_bwd_dwdb_kernel(DW_partial, DB_partial, DW, DB, GROUPS, N, BLOCK_G: tl.constexpr,
                               BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    dw = tl.zeros([BLOCK_G, BLOCK_N], tl.float32)
    db = tl.zeros([BLOCK_G, BLOCK_N], tl.float32)
    for start in range(0, GROUPS, BLOCK_G):
        groups = start + tl.arange(0, BLOCK_G)
        mask = (groups[:, None] < GROUPS) & (cols[None, :] < N)
        offs = groups[:, None] * N + cols[None, :]
        dw += tl.load(DW_partial + offs, mask=mask, other=0.0)
        db += tl.load(DB_partial + offs, mask=mask, other=0.0)
    tl.store(DW + cols, tl.sum(dw, 0).to(DW.dtype.element_ty), mask=cols < N)
    tl.store(DB + cols, tl.sum(db, 0).to(DB.dtype.element_ty), mask=cols < N)
# --8<-- [end:backward]


def layer_norm_reference(x, w, b, dy, eps: float):
    """y, dx, dw, db in float64."""
    x, w, b, dy = (np.asarray(t, np.float64) for t in (x, w, b, dy))
    mean, var = x.mean(axis=1, keepdims=True), x.var(axis=1, keepdims=True)
    rstd = 1 / np.sqrt(var + eps)
    x_hat = (x - mean) * rstd
    w_dy = w * dy
    dx = rstd * (w_dy - x_hat * (w_dy * x_hat).mean(axis=1, keepdims=True) - w_dy.mean(axis=1, keepdims=True))
    return x_hat * w + b, dx, (dy * x_hat).sum(axis=0), dy.sum(axis=0)


def run_layer_norm_backward(M: int = 45, N: int = 300, groups: int = 8, eps: float = 1e-5, seed: int = 0,
                            to_device=np.asarray, to_host=np.asarray):
    """The tutorial's forward, then the backward: ((y, dx, dw, db), their float64 references)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((M, N)).astype(np.float32)
    dy = rng.standard_normal((M, N)).astype(np.float32)
    w, b = rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)
    block_n = triton.next_power_of_2(N)
    y, dx = (to_device(np.full((M, N), np.nan, np.float32)) for _ in range(2))
    mean, rstd = (to_device(np.full(M, np.nan, np.float32)) for _ in range(2))
    dw, db = (to_device(np.full(N, np.nan, np.float32)) for _ in range(2))
    dw_partial, db_partial = (to_device(np.zeros((groups, N), np.float32)) for _ in range(2))
    locks = to_device(np.zeros(groups, np.int32))
    x_d, w_d = to_device(x), to_device(w)
    _layer_norm_fwd_fused[(M,)](x_d, y, w_d, to_device(b), mean, rstd, N, N, eps, BLOCK_SIZE=block_n)
    layer_norm_bwd_dx_kernel[(M,)](dx, to_device(dy), dw_partial, db_partial, x_d, w_d, mean, rstd, locks, N, N,
                                   GROUPS=groups, BLOCK_N=block_n)
    layer_norm_bwd_dwdb_kernel[(triton.cdiv(N, 64),)](dw_partial, db_partial, dw, db, groups, N, BLOCK_G=4,
                                                      BLOCK_N=64)
    return tuple(to_host(t) for t in (y, dx, dw, db)), layer_norm_reference(x, w, b, dy, eps)
