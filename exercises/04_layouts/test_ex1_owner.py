"""Tests for exercise 4.1: run with `make exercise CH=4 EX=1`."""
import itertools

import pytest
from _impl import load

from minitriton.layouts import BlockedLayout

impl = load("04_layouts/ex1_owner")


def every_index(shape):
    return itertools.product(*(range(s) for s in shape))


def test_the_chapters_example():
    layout = BlockedLayout([1, 2], [4, 8], [4, 1], [1, 0])
    assert impl.owner(layout, (9, 5), (16, 16)) == [(2, 10, 1)]
    assert impl.owner(layout, (0, 0), (16, 16)) == [(0, 0, 0)]


@pytest.mark.parametrize("layout, shape", [
    (BlockedLayout([1, 2], [4, 8], [4, 1], [1, 0]), (16, 16)),   # exactly one CTA tile
    (BlockedLayout([4], [32], [4], [0]), (1024,)),               # repeats: 8 registers a thread
    (BlockedLayout([1, 8], [8, 4], [4, 1], [1, 0]), (128, 32)),  # matmul's A tile
    (BlockedLayout([2, 1], [8, 4], [1, 2], [0, 1]), (32, 16)),   # column-major order
    (BlockedLayout([2, 2], [4, 8], [2, 2], [1, 0]), (64, 64)),   # row-major, repeats 4 x 2, blocks 2 x 2
    (BlockedLayout([1, 2, 1], [2, 4, 4], [2, 1, 2], [2, 0, 1]), (8, 16, 16)),  # rank 3, repeats 2 x 2 x 2
], ids=["one-tile", "repeats", "matmul-a", "column-major", "row-major-repeats", "rank-3-repeats"])
def test_every_element_of_a_covered_tile(layout, shape):
    for index in every_index(shape):
        assert impl.owner(layout, index, shape) == layout.owner(index, shape), f"element {index}"


@pytest.mark.parametrize("layout, shape", [
    (BlockedLayout([1], [32], [4], [0]), (16,)),                 # 128 threads for 16 elements
    (BlockedLayout([4, 1], [2, 16], [2, 2], [1, 0]), (4, 8)),    # copies in lanes, warps and registers
    (BlockedLayout([1, 1, 2], [2, 4, 4], [1, 2, 2], [2, 0, 1]), (4, 16, 2)),
], ids=["replicas-1d", "replicas-2d", "rank-3"])
def test_replicas_are_all_listed(layout, shape):
    for index in every_index(shape):
        assert impl.owner(layout, index, shape) == layout.owner(index, shape), f"element {index}"


@pytest.mark.parametrize("layout, shape", [
    (BlockedLayout([2, 2], [8, 4], [2, 2], [0, 1]), (64, 32)),
    (BlockedLayout([2, 2], [8, 4], [2, 2], [1, 0]), (64, 32)),
], ids=["column-major", "row-major"])
def test_owners_invert_elements(layout, shape):
    for warp, lane in itertools.product(range(4), range(32)):
        for register, index in enumerate(layout.elements(warp, lane, shape)):
            assert (warp, lane, register) in impl.owner(layout, index, shape)
