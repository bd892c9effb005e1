"""Exercise 4.5 (a kernel): reductions along the first axis of 2-D tiles: each column's sum and
the row of its maximum.

For an M x N float32 matrix x, `column_stats_kernel` writes, in numpy's words,

    sums[j] = x[:, j].sum()          (float32)
    argmax[j] = x[:, j].argmax()     (int32: the first row, from the top, among equal maxima)

Element (i, j) is at `x_ptr + i * stride + j` (stride >= N); nothing outside the M x N matrix may
be read (the tests put huge numbers there). Program `pid` owns the BLOCK_N columns from
pid * BLOCK_N and walks down them BLOCK_M rows at a time, each step a BLOCK_M x BLOCK_N tile.

`tl.sum(tile, axis=0)` folds a tile's rows into one value per column, and `tl.max(tile, axis=0,
return_indices=True)` gives each column's maximum and its row within the tile (the first among
equals). Their results are BLOCK_N tiles laid out as the slice of the tile's layout along
dimension 0 (chapter 4), the layout to keep the running sums, maxima and rows in from one step to
the next. Think about what a masked-off element must be for each reduction, and which of two
equal maxima from different steps wins.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def column_stats_kernel(x_ptr, sums_ptr, argmax_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tl.static_assert(False, "exercise 4.5: column_stats_kernel is not written yet")
