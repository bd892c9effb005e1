"""Exercise 1.2 (a kernel): the outer product out[i, j] = x[i] * y[j], over a 2-D grid of tiles.

Program (pid_m, pid_n) = (tl.program_id(0), tl.program_id(1)) computes the BLOCK_M x BLOCK_N
tile of `out` whose first row is pid_m * BLOCK_M and first column pid_n * BLOCK_N. `out` is M x N,
stored row-major with `stride_om` elements from one row to the next (stride_om >= N). Hint: turn
a 1-D tile of row indices into a column with `rows[:, None]`, and columns into a row with
`cols[None, :]`; the two broadcast to a 2-D tile.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def outer_kernel(x_ptr, y_ptr, out_ptr, M, N, stride_om, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + rows, mask=rows < M)
    y = tl.load(y_ptr + cols, mask=cols < N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], x[:, None] * y[None, :], mask=mask)
