"""Exercise 1.3 (a kernel): the sum of each row of a matrix, one program per row.

The reference solution. The task, in full, is in exercises/01_introduction/ex3_row_sum.py.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))
