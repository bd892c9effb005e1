"""Exercise 4.2 (a compiler piece): Triton's default blocked layout of a two-dimensional tile.

The reference solution. The task, in full, is in exercises/04_layouts/ex2_default_blocked.py.
"""
from minitriton.layouts import BlockedLayout


def default_blocked_2d(shape: tuple[int, int], num_warps: int,
                       size_per_thread: tuple[int, int] = (1, 1)) -> BlockedLayout:
    rows, cols = shape
    threads = min(num_warps * 32, max(1, cols // size_per_thread[1]))
    lanes_1 = min(threads, 32)
    warps_1 = min(max(threads // lanes_1, 1), num_warps)
    return BlockedLayout(size_per_thread, (32 // lanes_1, lanes_1), (num_warps // warps_1, warps_1), (1, 0))
