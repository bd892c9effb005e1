"""Exercise 1.2, wrong on purpose: the store is masked by the rows only, so the last column tile
writes past column N - 1.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/01_introduction/ex2_outer.py.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def outer_kernel(x_ptr, y_ptr, out_ptr, M, N, stride_om, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + rows, mask=rows < M)
    y = tl.load(y_ptr + cols, mask=cols < N)
    mask = rows[:, None] < M
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], x[:, None] * y[None, :], mask=mask)
