"""Tests for exercise 8.2: run with `make exercise CH=8 EX=2`."""
import pytest
from _impl import load

from minitriton.passes.geometry import register_map
from minitriton.layouts import BlockedLayout, SliceLayout

impl = load("08_llvm/ex2_broadcast_map")
A_TILE = BlockedLayout([1, 8], [8, 4], [4, 1], [1, 0])  # matmul's A tile, 128 x 32


def compilers_map(src_layout, src_shape, dst_layout, dst_shape):
    stretched = {d for d, (s, t) in enumerate(zip(src_shape, dst_shape)) if s != t}
    return register_map(src_layout, src_shape, dst_layout, dst_shape,
                        lambda index: tuple(0 if d in stretched else i for d, i in enumerate(index)))


def test_a_column_of_offsets_stretched_along_the_row():
    """offs_am[:, None] * stride, 128 x 1, broadcast to 128 x 32 in the same layout: free. The
    operand's block of 8 along a dimension of size 1 wraps, so its registers 0-7 are copies of one
    element, 8-15 of the next row's, ...; each result register takes the first copy of its row."""
    mapping = impl.broadcast_register_map(A_TILE, (128, 1), A_TILE, (128, 32))
    assert mapping == [0] * 8 + [8] * 8 + [16] * 8 + [24] * 8


def test_different_lanes_need_shared_memory():
    column = BlockedLayout([1, 1], [32, 1], [4, 1], [1, 0])   # one row per lane
    assert impl.broadcast_register_map(column, (128, 1), A_TILE, (128, 32)) is None


def test_lanes_that_differ_even_where_the_registers_match():
    """Each thread holds one register on both sides, but the operand's lanes go down the column and
    the result's along the row: lane 1 needs the element lane 0 holds."""
    down = BlockedLayout([1, 1], [32, 1], [4, 1], [1, 0])
    across = BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0])
    assert impl.broadcast_register_map(down, (4, 1), across, (4, 32)) is None


@pytest.mark.parametrize("src_layout, src_shape, dst_layout, dst_shape", [
    (A_TILE, (128, 1), A_TILE, (128, 32)),
    (A_TILE, (1, 32), A_TILE, (128, 32)),
    (BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0]), (1, 64), BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0]), (64, 64)),
    (BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0]), (64, 1), BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0]), (64, 64)),
    (BlockedLayout([1, 1], [32, 1], [4, 1], [1, 0]), (128, 1), A_TILE, (128, 32)),
    (BlockedLayout([1, 4], [2, 16], [2, 2], [1, 0]), (1, 64), BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0]), (16, 64)),
    (BlockedLayout([2, 1], [4, 8], [1, 4], [0, 1]), (32, 1), BlockedLayout([2, 1], [4, 8], [1, 4], [0, 1]), (32, 64)),
    (BlockedLayout([4], [32], [4], [0]), (1,), BlockedLayout([4], [32], [4], [0]), (1024,)),
], ids=str)
def test_agrees_with_the_compiler(src_layout, src_shape, dst_layout, dst_shape):
    assert impl.broadcast_register_map(src_layout, src_shape, dst_layout, dst_shape) == \
        compilers_map(src_layout, src_shape, dst_layout, dst_shape)


def test_slices_work_too():
    """The operand of a broadcast may itself be laid out as a slice, after a reduction and an
    expand_dims; the rule is the same."""
    parent = BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0])
    src = SliceLayout(1, parent)
    assert impl.broadcast_register_map(src, (1,), src, (64,)) == compilers_map(src, (1,), src, (64,))
