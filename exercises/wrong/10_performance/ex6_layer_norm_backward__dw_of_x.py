"""Exercise 10.6 (a kernel): layer norm, backward: the gradients of x, w and b.

A wrong solution, for the tests to catch: dw sums dy * x instead of dy * x_hat.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def layer_norm_backward_kernel(x_ptr, dy_ptr, w_ptr, mean_ptr, rstd_ptr, dx_ptr, dw_partial_ptr, db_partial_ptr,
                               M, n, stride, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n
    w = tl.load(w_ptr + cols, mask=inside, other=0.0)
    dw = tl.zeros([BLOCK], tl.float32)
    db = tl.zeros([BLOCK], tl.float32)
    for row in range(pid * ROWS, tl.minimum(pid * ROWS + ROWS, M)):
        x = tl.load(x_ptr + row * stride + cols, mask=inside, other=0.0)
        dy = tl.load(dy_ptr + row * stride + cols, mask=inside, other=0.0)
        rstd = tl.load(rstd_ptr + row)
        x_hat = tl.where(inside, (x - tl.load(mean_ptr + row)) * rstd, 0.0)
        w_dy = w * dy
        dx = rstd * (w_dy - x_hat * (tl.sum(w_dy * x_hat, 0) / n) - tl.sum(w_dy, 0) / n)
        tl.store(dx_ptr + row * stride + cols, dx, mask=inside)
        dw += dy * x
        db += dy
    tl.store(dw_partial_ptr + pid * n + cols, dw, mask=inside)
    tl.store(db_partial_ptr + pid * n + cols, db, mask=inside)


@triton.jit
def sum_rows_kernel(partial_ptr, out_ptr, P, n, BLOCK_P: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    total = tl.zeros([BLOCK_N], tl.float32)
    for start in range(0, P, BLOCK_P):
        rows = start + tl.arange(0, BLOCK_P)
        inside = (rows[:, None] < P) & (cols[None, :] < n)
        total += tl.sum(tl.load(partial_ptr + rows[:, None] * n + cols[None, :], mask=inside, other=0.0), axis=0)
    tl.store(out_ptr + cols, total, mask=cols < n)
