"""Exercise 4.2, wrong on purpose: every warp goes to dimension 0, even when dimension 1 has
threads for more than one warp.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/04_layouts/ex2_default_blocked.py.
"""
from minitriton.layouts import BlockedLayout


def default_blocked_2d(shape: tuple[int, int], num_warps: int,
                       size_per_thread: tuple[int, int] = (1, 1)) -> BlockedLayout:
    rows, cols = shape
    threads = min(num_warps * 32, max(1, cols // size_per_thread[1]))
    lanes_1 = min(threads, 32)
    return BlockedLayout(size_per_thread, (32 // lanes_1, lanes_1), (num_warps, 1), (1, 0))
