"""Exercise 2.5, wrong on purpose: `>=` instead of `>`, so an element equal to the threshold
counts as above it.

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
        hits = tl.where(x >= threshold, cols, n_cols)
        found = tl.minimum(found, tl.min(hits, axis=0))
    tl.store(out_ptr + row, found)
