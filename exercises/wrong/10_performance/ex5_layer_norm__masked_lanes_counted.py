"""Exercise 10.5 (a kernel): layer norm, forward, reading each row twice.

A wrong solution, for the tests to catch: every lane of the last block is counted, those past n too.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def merge(mean_a, m2_a, n_a, mean_b, m2_b, n_b):
    """Welford's merge of two sets, each given by its mean, M2 and count (exercise 2.7)."""
    n = n_a + n_b
    share_b = tl.where(n > 0, n_b / tl.maximum(n, 1.0), 0.0)
    delta = mean_b - mean_a
    return mean_a + delta * share_b, m2_a + m2_b + delta * delta * n_a * share_b, n


@triton.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, n, stride, eps, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    row = pid * stride
    mean = tl.zeros([BLOCK], tl.float32)
    m2 = tl.zeros([BLOCK], tl.float32)
    count = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        inside = cols < n
        x = tl.load(x_ptr + row + cols, mask=inside, other=0.0).to(tl.float32)
        mean, m2, count = merge(mean, m2, count, x, tl.zeros_like(x), tl.full([BLOCK], 1.0, tl.float32))
    mean, m2, count = tl.reduce((mean, m2, count), 0, merge)
    rstd = 1 / tl.sqrt(m2 / count + eps)
    tl.store(mean_ptr + pid, mean)
    tl.store(rstd_ptr + pid, rstd)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        inside = cols < n
        x = tl.load(x_ptr + row + cols, mask=inside, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=inside)
        b = tl.load(b_ptr + cols, mask=inside)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + row + cols, y.to(y_ptr.dtype.element_ty), mask=inside)
