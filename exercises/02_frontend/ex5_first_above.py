"""Exercise 2.5 (a kernel): the first element above a threshold, searched with a loop.

Program `row` scans row `row` of a matrix (n_cols elements, starting `row * stride_row` elements
after x_ptr) in blocks of BLOCK columns, with a `for` loop over range(0, n_cols, BLOCK), and writes
to out[row] the index of the first element greater than `threshold`, or n_cols if there is none.
n_cols may be much larger than BLOCK. Carry the best index so far from one iteration to the next:
a variable assigned before the loop and updated in it becomes a loop-carried value, and it must
keep one type (here an int32 scalar). `tl.where` and `tl.min` find the first hit within a block.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def first_above_kernel(x_ptr, out_ptr, n_cols, stride_row, threshold, BLOCK: tl.constexpr):
    tl.static_assert(False, "exercise 2.5: first_above_kernel is not written yet")
