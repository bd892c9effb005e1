"""Exercise 10.4 (a kernel): the softmax of rows longer than a block, reading each row twice.

`softmax_kernel` writes, for each row of an n-column fp32 matrix x, in numpy's words,

    e = np.exp(x - x.max(axis=1, keepdims=True))
    y = e / e.sum(axis=1, keepdims=True)

The softmax of chapter 10 holds a whole row in one tile, so it reads the row once and writes it
once, at the memory ceiling. A row of 100,000 floats does not fit in one program's registers: it
must be walked BLOCK columns at a time. Three walks (the maximum, then the sum, then the output)
read it three times; the *online* softmax needs two. The first walk keeps a running maximum m
and a running sum l of exp(x - m): where a block raises the maximum from m to m_new, the sum so far
was taken against the old maximum, and exp(a - m_new) = exp(a - m) * exp(m - m_new), so l is
multiplied by exp(m - m_new) before the block's own terms are added. The second walk writes
exp(x - m) / l. (Flash attention, exercise 10.7, does this with a block of keys for a block.)

Program `row` handles row `row`; its elements are at `row * stride + c` in both x and y, for c < n.
Elements at or past n are neither read nor written (they may hold anything, NaN included). Rows
may hold numbers far from 0: exp overflows fp32 above about 88, and underflows to 0 below about
-103. The tests also count your kernel's loads of x in its tile IR: at most two.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n, stride, BLOCK: tl.constexpr):
    tl.static_assert(False, "exercise 10.4: softmax_kernel is not written yet")
