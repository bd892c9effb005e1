"""Exercise 4.4 (a puzzle): write the blocked layouts that match three descriptions.

Replace each None by a `BlockedLayout(size_per_thread, threads_per_warp, warps_per_cta, order)`.
The tests check, element by element, that exactly the described thread and register hold it.
`layouts.draw(layout, shape)` (chapter 4) draws your answer if you want to see it.

PUZZLE_A: a tile of 256 elements over 2 warps. Every thread holds 4 consecutive elements (one
16-byte fp32 access), in registers 0 to 3; lane l of warp 0 holds elements 4l to 4l + 3, and warp 1
continues where warp 0 ends. Nothing is repeated or replicated.

PUZZLE_B: a 64 x 64 fp16 tile, row-major, over 4 warps. Every thread holds 8 consecutive elements
of one row (16 bytes); the 8 lanes 8k to 8k + 7 cover one row of 64, and lanes 0-7, 8-15, 16-23,
24-31 take four consecutive rows; warp w holds rows 4w to 4w + 3; past the 16 rows the four warps
cover, the pattern repeats down the tile, in the next registers (row 16 is held like row 0, in
registers 8 to 15).

PUZZLE_C: a 32 x 32 tile of a column-major matrix, where consecutive addresses go down a column.
Every thread holds 4 consecutive elements of one column; lanes 0 to 7 cover column 0 from top to
bottom, lanes 8 to 15 column 1, lanes 16 to 23 column 2, lanes 24 to 31 column 3; warp w holds
columns 4w to 4w + 3; past the 16 columns the four warps cover, the pattern repeats to the right,
in registers 4 to 7.
"""
from minitriton.layouts import BlockedLayout  # noqa: F401

PUZZLE_A = None
PUZZLE_B = None
PUZZLE_C = None
