"""Exercise 4.6 (a compiler piece): the layout of `tl.trans(x, perm)` that moves no element.

The reference solution. The task, in full, is in exercises/04_layouts/ex6_transposed_layout.py.
"""
from minitriton.layouts import BlockedLayout


def transposed_layout(layout: BlockedLayout, perm: tuple[int, ...]) -> BlockedLayout:
    renamed = {e: d for d, e in enumerate(perm)}  # x's dimension e -> the result's
    along = lambda field: tuple(field[e] for e in perm)
    return BlockedLayout(along(layout.size_per_thread), along(layout.threads_per_warp),
                         along(layout.warps_per_cta), tuple(renamed[e] for e in layout.order))
