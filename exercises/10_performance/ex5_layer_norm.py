"""Exercise 10.5 (a kernel): layer norm, forward, reading each row twice.

`layer_norm_kernel` normalizes each row of x to mean 0 and variance 1, then scales and shifts it;
in numpy (float64 here, float32 in the kernel):

    mean = x.mean(axis=1)
    rstd = 1 / np.sqrt(x.var(axis=1) + eps)      # the population variance: divided by n
    y = (x - mean[:, None]) * rstd[:, None] * w + b

x and y are fp32 or fp16 (y of x's dtype), n columns, rows `stride` elements apart; w and b are
fp32 vectors of n. Program `row` writes its row of y, and mean[row] and rstd[row] (fp32), which
the backward pass (exercise 10.6) reads. Elements at or past n are neither read nor written (they
may hold anything, NaN included), and they are not part of the statistics. Compute in fp32.

A row may be longer than BLOCK. Triton's tutorial walks it three times (the mean, the variance,
the output); layer norm is memory-bound (chapter 10), so read it twice: the statistics in one walk,
the output in the second. A sum and a sum of squares lose everything in fp32 when the mean is large
beside the spread (the tests add 10000 to numbers of spread 1); Welford's merge does not
(exercise 2.7: a running (mean, M2, count) per lane, folded by one `tl.reduce`). The tests count
the loads of x in your kernel's tile IR: at most two.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, n, stride, eps, BLOCK: tl.constexpr):
    tl.static_assert(False, "exercise 10.5: layer_norm_kernel is not written yet")
