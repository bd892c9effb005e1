"""Exercise 3.4, wrong on purpose: the store uses out's strides the way the load uses x's, so the
tile is copied, not transposed.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/03_tile_ir/ex4_transpose.py.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tile = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, tile, mask=mask)
