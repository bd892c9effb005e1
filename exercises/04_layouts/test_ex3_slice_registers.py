"""Tests for exercise 4.3: run with `make exercise CH=4 EX=3`."""
import pytest
from _impl import load

from minitriton.layouts import BlockedLayout, SliceLayout

impl = load("04_layouts/ex3_slice_registers")


def test_rows_of_the_chapters_tile():
    parent = BlockedLayout([1, 2], [4, 8], [4, 1], [1, 0])
    assert impl.slice_register_offsets(parent, 1, (16,)) == [(0,)]       # one row sum per thread
    assert impl.slice_register_offsets(parent, 0, (16,)) == [(0,), (1,)]  # two column sums


def test_a_row_reduction_over_a_repeated_tile():
    parent = BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0])               # CTA tile 8 x 64
    assert impl.slice_register_offsets(parent, 1, (16,)) == [(0,), (8,)]
    assert impl.slice_register_offsets(parent, 0, (128,)) == [(0,), (1,), (2,), (3,), (64,), (65,), (66,), (67,)]


@pytest.mark.parametrize("parent, dim, shape", [
    (BlockedLayout([1, 8], [8, 4], [4, 1], [1, 0]), 0, (32,)),
    (BlockedLayout([1, 8], [8, 4], [4, 1], [1, 0]), 1, (128,)),
    (BlockedLayout([2, 2], [4, 8], [2, 2], [0, 1]), 0, (64,)),
    (BlockedLayout([2, 2], [4, 8], [2, 2], [0, 1]), 1, (16,)),
    (BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1]), 1, (2,)),             # a block larger than the shape
    (BlockedLayout([1, 2, 4], [2, 4, 4], [2, 1, 2], [2, 1, 0]), 1, (8, 32)),
    (BlockedLayout([1, 2, 4], [2, 4, 4], [2, 1, 2], [2, 1, 0]), 2, (4, 16)),
], ids=str)
def test_agrees_with_slice_layout(parent, dim, shape):
    assert impl.slice_register_offsets(parent, dim, shape) == SliceLayout(dim, parent).register_offsets(shape)
