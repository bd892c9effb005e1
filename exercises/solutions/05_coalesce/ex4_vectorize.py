"""Exercise 5.4 (a kernel): a row copy whose every access is 16 bytes wide.

The reference solution. The task, in full, is in exercises/05_coalesce/ex4_vectorize.py.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def scale_rows(x_ptr, out_ptr, n_cols, row_stride, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    # Both are multiples of 4 elements (16 bytes): the mask is constant over runs of 4, and every
    # row starts on a 16-byte boundary.
    n_cols = tl.multiple_of(n_cols, 4)
    row_stride = tl.multiple_of(row_stride, 4)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask)
    tl.store(out_ptr + row * row_stride + cols, x * scale, mask=mask)
