"""Exercise 4.2, wrong on purpose: dimension 1 gets one thread per column, forgetting that each
thread holds size_per_thread[1] of them.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/04_layouts/ex2_default_blocked.py.
"""
from minitriton.layouts import BlockedLayout


def default_blocked_2d(shape: tuple[int, int], num_warps: int,
                       size_per_thread: tuple[int, int] = (1, 1)) -> BlockedLayout:
    rows, cols = shape
    threads = min(num_warps * 32, cols)
    lanes_1 = min(threads, 32)
    warps_1 = min(max(threads // lanes_1, 1), num_warps)
    return BlockedLayout(size_per_thread, (32 // lanes_1, lanes_1), (num_warps // warps_1, warps_1), (1, 0))
