"""Exercise 10.5 (a kernel): layer norm, forward, reading each row twice.

A wrong solution, for the tests to catch: the variance as the mean of the squares less the square of the mean, in fp32.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, n, stride, eps, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    row = pid * stride
    total = tl.zeros([BLOCK], tl.float32)
    squares = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row + cols, mask=cols < n, other=0.0).to(tl.float32)
        total += x
        squares += x * x
    mean = tl.sum(total, 0) / n
    rstd = 1 / tl.sqrt(tl.sum(squares, 0) / n - mean * mean + eps)
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
