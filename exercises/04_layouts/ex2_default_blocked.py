"""Exercise 4.2 (a compiler piece): Triton's default blocked layout of a two-dimensional tile.

Write `default_blocked_2d(shape, num_warps, size_per_thread)`: the `BlockedLayout` a tile of
`shape` = (rows, cols) gets when nothing else decides, with order (1, 0) (columns fastest) and 32
lanes per warp. Each thread holds `size_per_thread`; the rule fills the fast dimension first:

- dimension 1 can use `max(1, cols // size_per_thread[1])` threads; it gets that many, but no more
  than the CTA has (num_warps * 32);
- of those, up to 32 are lanes of one warp (threads_per_warp[1]); if it uses more threads than a
  warp has, warps go along dimension 1 too: threads // threads_per_warp[1] of them, at most
  num_warps (warps_per_cta[1]);
- every lane and warp left over goes to dimension 0: threads_per_warp[0] = 32 // threads_per_warp[1],
  warps_per_cta[0] = num_warps // warps_per_cta[1], even where dimension 0 is too small to use them
  (the layout then replicates).

All sizes are powers of two.
"""
from minitriton.layouts import BlockedLayout


def default_blocked_2d(shape: tuple[int, int], num_warps: int,
                       size_per_thread: tuple[int, int] = (1, 1)) -> BlockedLayout:
    raise NotImplementedError("exercise 4.2: default_blocked_2d")
