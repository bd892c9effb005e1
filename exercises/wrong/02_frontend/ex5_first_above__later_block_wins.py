"""Exercise 2.5, wrong on purpose: each block with a hit replaces the answer, so a later block's
hit wins over an earlier one.

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
        hits = tl.min(tl.where(x > threshold, cols, n_cols), axis=0)
        found = tl.where(hits < n_cols, hits, found)
    tl.store(out_ptr + row, found)
