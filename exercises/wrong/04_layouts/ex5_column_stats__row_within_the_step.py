"""Exercise 4.5 (a kernel): reductions along the first axis of 2-D tiles: each column's sum and
the row of its maximum.

A wrong solution, for the tests to catch: the row of a maximum is counted from the top of its step, not of the matrix.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def column_stats_kernel(x_ptr, sums_ptr, argmax_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_inside = cols < N
    sums = tl.zeros([BLOCK_N], tl.float32)
    best = tl.full([BLOCK_N], float("-inf"), tl.float32)
    best_row = tl.zeros([BLOCK_N], tl.int32)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        inside = (rows[:, None] < M) & col_inside[None, :]
        # -inf never wins a maximum; the sum gets 0 for the same elements
        tile = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=inside, other=float("-inf"))
        sums += tl.sum(tl.where(inside, tile, 0.0), axis=0)
        tile_max, tile_row = tl.max(tile, axis=0, return_indices=True)
        better = tile_max > best  # an equal maximum further down loses to the one above
        best = tl.where(better, tile_max, best)
        best_row = tl.where(better, tile_row, best_row)
    tl.store(sums_ptr + cols, sums, mask=col_inside)
    tl.store(argmax_ptr + cols, best_row, mask=col_inside)
