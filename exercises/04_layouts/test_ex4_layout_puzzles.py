"""Tests for exercise 4.4: run with `make exercise CH=4 EX=4`."""
import itertools

from _impl import load

from minitriton.layouts import BlockedLayout

impl = load("04_layouts/ex4_layout_puzzles")


def check(layout, shape, expected_owner):
    """Every element of `shape` is held by exactly expected_owner(index) = (warp, lane, register)."""
    assert isinstance(layout, BlockedLayout), f"expected a BlockedLayout, got {layout!r}"
    for index in itertools.product(*(range(s) for s in shape)):
        assert layout.owner(index, shape) == [expected_owner(*index)], f"element {index}"


def test_puzzle_a():
    check(impl.PUZZLE_A, (256,), lambda e: (e // 128, (e % 128) // 4, e % 4))


def test_puzzle_b():
    check(impl.PUZZLE_B, (64, 64), lambda r, c: ((r // 4) % 4, (r % 4) * 8 + c // 8, (r // 16) * 8 + c % 8))


def test_puzzle_c():
    check(impl.PUZZLE_C, (32, 32), lambda r, c: ((c % 16) // 4, r // 4 + 8 * (c % 4), (c // 16) * 4 + r % 4))
