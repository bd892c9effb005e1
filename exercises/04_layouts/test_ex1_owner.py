"""Tests for exercise 4.1: run with `make exercise CH=4 EX=1`."""
import itertools
import re

import pytest
from _impl import load

from minitriton import exercise_hooks, layouts
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


# Exercise mode: your `owner` draws the layout figures (`layouts.draw`, chapter 4's pictures).

def cells(dot_source: str) -> list[str]:
    """The labels of a drawn tile's cells, row by row: "w2:t10:r1", "w0:t3:r0 x8", ..."""
    return re.findall(r'<TD BGCOLOR="[^"]*">([^<]*)</TD>', dot_source)


@pytest.mark.parametrize("layout, shape", [
    (layouts.default_blocked((16, 16), 4, size_per_thread=(1, 2)), (16, 16)),  # the chapter's figure
    (BlockedLayout([4], [32], [2], [0]), (512,)),                               # repeats
    (BlockedLayout([1], [32], [4], [0]), (16,)),                                # replicas: "x8"
    (BlockedLayout([2, 1], [8, 4], [1, 2], [0, 1]), (32, 16)),                  # column-major
    (BlockedLayout([4, 1], [2, 16], [2, 2], [1, 0]), (4, 8)),                   # copies of every kind
], ids=["chapter", "repeats", "replicas", "column-major", "copies"])
def test_your_owner_draws_the_figure(layout, shape):
    with exercise_hooks.use({"layouts.blocked_owner": impl.owner}):
        yours = layouts.draw(layout, shape)
    compilers = layouts.draw(layout, shape)
    indices = list(itertools.product(*(range(s) for s in ((1,) + shape if len(shape) == 1 else shape))))
    for index, mine, theirs in zip(indices, cells(yours), cells(compilers)):
        assert mine == theirs, f"element {index[-len(shape):]}: your figure says {mine}, the compiler's {theirs}"
    assert yours == compilers


def test_the_chapters_cell():
    with exercise_hooks.use({"layouts.blocked_owner": impl.owner}):
        layout = layouts.default_blocked((16, 16), 4, size_per_thread=(1, 2))
        by_warp = cells(layouts.draw(layout, (16, 16)))  # coloured by warp: the cell says lane and register
        by_register = cells(layouts.draw(layout, (16, 16), color_by="register"))
    assert (by_warp[9 * 16 + 5], by_register[9 * 16 + 5]) == ("t10:r1", "w2:t10")
