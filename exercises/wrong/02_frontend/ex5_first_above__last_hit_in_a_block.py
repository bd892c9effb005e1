"""Exercise 2.5, wrong on purpose: within a block it keeps the last hit, not the first.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/02_frontend/ex5_first_above.py.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def first_above_kernel(x_ptr, out_ptr, n_cols, stride_row, threshold, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    found = n_cols
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=float("-inf"))
        last = tl.max(tl.where(x > threshold, cols, -1), axis=0)
        found = tl.minimum(found, tl.where(last >= 0, last, n_cols))
    tl.store(out_ptr + row, found)
