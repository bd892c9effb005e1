"""Exercise 1.3, wrong on purpose: row `row` is taken to start at row * n_cols, ignoring `stride_row`.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/01_introduction/ex3_row_sum.py.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))
