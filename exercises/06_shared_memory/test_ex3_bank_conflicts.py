"""Tests for exercise 6.3: run with `make exercise CH=6 EX=3`."""
from _impl import load

from minitriton.layouts import SharedLayout

impl = load("06_shared_memory/ex3_bank_conflicts")
LANES = range(32)


def test_consecutive_words():
    assert impl.cycles([4 * lane for lane in LANES]) == 1


def test_everyone_reads_one_word():
    assert impl.cycles([256] * 32) == 1


def test_strides():
    assert impl.cycles([8 * lane for lane in LANES]) == 2     # every other word: two per bank
    assert impl.cycles([128 * lane for lane in LANES]) == 32  # all in bank 0
    assert impl.cycles([4 * (lane // 2) for lane in LANES]) == 1  # pairs share a word


def tile_column(layout: SharedLayout, column: int, row_length: int = 32) -> list[int]:
    """The byte addresses of one column of a 32 x row_length fp32 tile: lane l reads row l."""
    return [4 * layout.offset((lane, column), (32, row_length)) for lane in LANES]


def test_a_column_of_a_plain_tile_is_a_32_way_conflict():
    plain = SharedLayout(1, 1, 1, (1, 0))
    assert impl.cycles(tile_column(plain, 0)) == 32
    assert impl.cycles([4 * (lane + 0) for lane in LANES]) == 1  # a row of it: no conflict


def test_padding_a_row_by_one_word_removes_it():
    assert impl.cycles([4 * (lane * 33 + 5) for lane in LANES]) == 1


def test_the_swizzle_removes_it_without_padding():
    swizzled = SharedLayout(1, 1, 32, (1, 0))  # element c of row r is stored at column c xor r
    for column in range(32):
        assert impl.cycles(tile_column(swizzled, column)) == 1
    assert impl.cycles([4 * swizzled.offset((5, c), (32, 32)) for c in LANES]) == 1  # rows stay fine
