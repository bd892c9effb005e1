"""Exercise 1.3 (a kernel): the sum of each row of a matrix, one program per row.

Program `row` adds up the `n_cols` elements of its row and writes the total to out[row]. Row `row`
starts `row * stride_row` elements after `x_ptr`; the elements between n_cols and the next row are
not part of the matrix (they may hold anything, NaN included). BLOCK >= n_cols is a power of two:
load the whole row as one tile, with a mask and a neutral `other` for the lanes past the end, and
reduce it with tl.sum.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))
