"""Exercise 2.7, wrong on purpose: the merge moves the mean by delta * n_a / n, weighting the
step by the wrong set.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/02_frontend/ex7_welford.py.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def merge(mean_a, m2_a, n_a, mean_b, m2_b, n_b):
    n = n_a + n_b
    share_a = tl.where(n > 0, n_a / tl.maximum(n, 1.0), 0.0)
    share_b = tl.where(n > 0, n_b / tl.maximum(n, 1.0), 0.0)
    delta = mean_b - mean_a
    return mean_a + delta * share_a, m2_a + m2_b + delta * delta * n_a * share_b, n


@triton.jit
def welford_kernel(x_ptr, mean_ptr, var_ptr, n_cols, stride, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    row = x_ptr + pid * stride
    mean = tl.zeros([BLOCK], tl.float32)
    m2 = tl.zeros([BLOCK], tl.float32)
    count = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(row + offs, mask=mask, other=0.0).to(tl.float32)
        mean, m2, count = merge(mean, m2, count, x, tl.zeros_like(x), mask.to(tl.float32))
    mean, m2, count = tl.reduce((mean, m2, count), 0, merge)
    tl.store(mean_ptr + pid, mean)
    tl.store(var_ptr + pid, m2 / count)
