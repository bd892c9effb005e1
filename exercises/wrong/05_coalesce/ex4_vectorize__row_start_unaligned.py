"""Exercise 5.4, wrong on purpose: only n_cols gets a hint; nothing says where a row starts, so
every access but row 0's may be misaligned and stays scalar.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/05_coalesce/ex4_vectorize.py.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def scale_rows(x_ptr, out_ptr, n_cols, row_stride, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    n_cols = tl.multiple_of(n_cols, 4)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask)
    tl.store(out_ptr + row * row_stride + cols, x * scale, mask=mask)
