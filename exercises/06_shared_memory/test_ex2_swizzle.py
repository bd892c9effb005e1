"""Tests for exercise 6.2: run with `make exercise CH=6 EX=2`."""
import itertools

import pytest
from _impl import load

from minitriton.layouts import SharedLayout, mma_operand_swizzle

impl = load("06_shared_memory/ex2_swizzle")


def test_a_few_elements_of_the_chapters_figure():
    # vec=8, per_phase=2, max_phase=4, rows of 32: rows 2 and 3 swap their chunks 0 and 1.
    assert impl.swizzled_offset(0, 0, 32, 8, 2, 4) == 0
    assert impl.swizzled_offset(2, 0, 32, 8, 2, 4) == 72
    assert impl.swizzled_offset(2, 9, 32, 8, 2, 4) == 65
    assert impl.swizzled_offset(7, 31, 32, 8, 2, 4) == 231


def test_without_phases_it_is_row_major():
    assert [impl.swizzled_offset(r, c, 16, 4, 1, 1) for r, c in [(0, 5), (3, 2), (7, 15)]] == [5, 50, 127]


@pytest.mark.parametrize("layout, shape", [
    (mma_operand_swizzle(32, 16, 0), (16, 32)),    # the matmul A ring of chapter 6
    (mma_operand_swizzle(64, 16, 0), (16, 64)),    # 128-byte rows: a phase per row
    (mma_operand_swizzle(128, 16, 1), (32, 128)),
    (mma_operand_swizzle(32, 32, 0), (16, 32)),    # fp32 (tf32) operands
    (SharedLayout(1, 1, 32, (1, 0)), (32, 32)),    # one-element chunks
], ids=str)
def test_agrees_with_shared_layout(layout, shape):
    rows, cols = shape
    seen = set()
    for r, c in itertools.product(range(rows), range(cols)):
        offset = impl.swizzled_offset(r, c, cols, layout.vec, layout.per_phase, layout.max_phase)
        assert offset == layout.offset((r, c), shape), (r, c)
        seen.add(offset)
    assert seen == set(range(rows * cols)), "two elements share a place"
