"""Tests for exercise 4.6: run with `make exercise CH=4 EX=6`."""
import pytest
from _impl import load

from minitriton.layouts import BlockedLayout, PermutedLayout

impl = load("04_layouts/ex6_transposed_layout")


def test_the_transpose_of_a_row_major_tile_is_column_major():
    x = BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    assert impl.transposed_layout(x, (1, 0)) == BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1])


@pytest.mark.parametrize("layout, perm, shape", [
    (BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0]), (1, 0), (64, 32)),
    (BlockedLayout([2, 2], [8, 4], [2, 2], [0, 1]), (1, 0), (16, 64)),
    (BlockedLayout([1, 8], [2, 16], [8, 1], [1, 0]), (1, 0), (128, 16)),   # the tile repeats along one side
    (BlockedLayout([1, 2, 4], [2, 4, 4], [2, 1, 2], [2, 1, 0]), (2, 0, 1), (16, 4, 8)),
    (BlockedLayout([1, 2, 4], [2, 4, 4], [2, 1, 2], [2, 1, 0]), (1, 2, 0), (8, 32, 4)),
    (BlockedLayout([4, 1, 1], [1, 8, 4], [1, 2, 2], [0, 2, 1]), (2, 1, 0), (8, 32, 8)),
], ids=str)
def test_every_element_stays_in_the_thread_and_register_that_held_it(layout, perm, shape):
    """Every thread holds, register by register, the renamed elements it held before: what a
    PermutedLayout of x says (chapter 4)."""
    result = impl.transposed_layout(layout, perm)
    view = PermutedLayout(layout, perm)
    for warp in range(layout.num_warps):
        for lane in range(32):
            assert result.elements(warp, lane, shape) == view.elements(warp, lane, shape), (warp, lane)
