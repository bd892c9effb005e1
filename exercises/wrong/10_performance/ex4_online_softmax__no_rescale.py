"""Exercise 10.4 (a kernel): the softmax of rows longer than a block, reading each row twice.

A wrong solution, for the tests to catch: the sum so far is not rescaled when a block raises the maximum.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0) * stride
    m = tl.full([], float("-inf"), tl.float32)  # the maximum so far
    l = tl.zeros([], tl.float32)  # the sum so far of exp(x - m)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row + cols, mask=cols < n, other=float("-inf"))  # exp(-inf - m) = 0
        m_new = tl.maximum(m, tl.max(x, 0))
        l = l + tl.sum(tl.exp(x - m_new), 0)
        m = m_new
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row + cols, mask=cols < n, other=float("-inf"))
        tl.store(y_ptr + row + cols, tl.exp(x - m) / l, mask=cols < n)
