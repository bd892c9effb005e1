"""Tests for exercise 10.8: run with `make exercise CH=10 EX=8`."""
import itertools

import pytest
from _impl import load

from minitriton.passes.geometry import WgmmaOperand

impl = load("10_performance/ex8_tma_boxes")


@pytest.mark.parametrize("lines, k_length, bits, boxes", [
    (128, 64, 16, (64, 128, 128, 1, 16384)),    # fp16 A, BLOCK_K 64: one 128-byte box
    (64, 32, 16, (32, 64, 64, 1, 4096)),        # 64-byte lines: a 64-byte swizzle
    (64, 16, 16, (16, 64, 32, 1, 2048)),        # 32-byte lines
    (128, 128, 16, (64, 128, 128, 2, 16384)),   # 256-byte lines: two blocks of K
    (64, 64, 32, (32, 64, 128, 2, 8192)),       # tf32: 64 elements are 256 bytes
    (64, 128, 8, (128, 64, 128, 1, 8192)),      # fp8: 128 elements in 128 bytes
])
def test_a_k_major_operand(lines, k_length, bits, boxes):
    assert impl.tma_boxes(lines, k_length, bits, True) == boxes


@pytest.mark.parametrize("lines, k_length, boxes", [
    (64, 64, (64, 64, 128, 1, 8192)),
    (128, 32, (64, 32, 128, 2, 4096)),       # two atom columns, each after all of K
    (256, 64, (64, 64, 128, 4, 8192)),
])
def test_an_n_major_operand(lines, k_length, boxes):
    assert impl.tma_boxes(lines, k_length, 16, False) == boxes


@pytest.mark.parametrize("lines, k_length, bits, k_major", [
    (64, 24, 16, True),    # 48-byte lines: no swizzle atom
    (64, 96, 16, True),    # 192 bytes: not whole 128-byte blocks
    (512, 64, 16, True),   # more than 256 lines in a box
    (96, 64, 16, False),   # not whole atoms of 64 lines
    (64, 64, 32, False),   # only 16-bit operands are M- or N-major
])
def test_where_no_box_fits(lines, k_length, bits, k_major):
    assert impl.tma_boxes(lines, k_length, bits, k_major) is None


def test_the_compilers_boxes():
    """The same boxes the pipeliner asks for, on every operand shape it could meet."""
    for op_idx, a, b, bits, major in itertools.product((0, 1), (16, 64, 128, 256), (16, 32, 64, 128, 256),
                                                        (8, 16, 32), (False, True)):
        operand = WgmmaOperand(op_idx, a, b, bits, k_contiguous=major and op_idx == 1,
                               m_contiguous=major and op_idx == 0)
        copies = operand.tma_copies()
        want = None if copies is None else (copies.inner, copies.outer, copies.swizzle, copies.count, copies.stride)
        assert impl.tma_boxes(operand.lines, operand.k_length, bits, operand.k_major) == want, operand
