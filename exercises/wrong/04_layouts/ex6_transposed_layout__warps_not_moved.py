"""Exercise 4.6, wrong on purpose: the warps stay where they were: each warp's tile is renamed,
but the warps are laid over the result as they were over x.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/04_layouts/ex6_transposed_layout.py.
"""
from minitriton.layouts import BlockedLayout


def transposed_layout(layout: BlockedLayout, perm: tuple[int, ...]) -> BlockedLayout:
    renamed = {e: d for d, e in enumerate(perm)}
    along = lambda field: tuple(field[e] for e in perm)
    return BlockedLayout(along(layout.size_per_thread), along(layout.threads_per_warp),
                         layout.warps_per_cta, tuple(renamed[e] for e in layout.order))
