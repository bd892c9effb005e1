"""Exercise 4.6, wrong on purpose: the fields move with their dimensions, the order stays as x's.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/04_layouts/ex6_transposed_layout.py.
"""
from minitriton.layouts import BlockedLayout


def transposed_layout(layout: BlockedLayout, perm: tuple[int, ...]) -> BlockedLayout:
    along = lambda field: tuple(field[e] for e in perm)
    return BlockedLayout(along(layout.size_per_thread), along(layout.threads_per_warp),
                         along(layout.warps_per_cta), layout.order)
