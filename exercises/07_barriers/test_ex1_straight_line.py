"""Tests for exercise 7.1: run with `make exercise CH=7 EX=1`."""
from _impl import load
from barrier_helpers import barrier, block, other, random_program, render, shared

from minitriton.passes.barriers import _walk

impl = load("07_barriers/ex1_straight_line")


def run(make):
    """Your barriers in the block `make()` builds, checked against minitriton's own pass on a copy."""
    mine, theirs = make(), make()
    inserted = impl.insert_barriers(mine)
    _walk(theirs, set(), insert=True)
    assert render(theirs) == render(mine), f"minitriton's pass places them as {render(theirs)!r}"
    return inserted, render(mine)


def test_same_bytes_need_a_barrier():
    assert run(lambda: block(shared("A", 0, 16), shared("B", 0, 16))) == (1, "A | B")


def test_disjoint_bytes_need_none():
    assert run(lambda: block(shared("A", 0, 16), other(), shared("B", 16, 32))) == (0, "A . B")


def test_a_partial_overlap_is_an_overlap():
    assert run(lambda: block(shared("A", 0, 16), other(), shared("B", 8, 24))) == (1, "A . | B")


def test_an_op_in_between_orders_what_came_before():
    """B's own barrier orders A's reads: C may reuse A's bytes without a barrier of its own."""
    assert run(lambda: block(shared("A", 0, 64), shared("B", 64, 128), shared("C", 0, 16))) == (0, "A B C")


def test_an_existing_barrier_counts():
    assert run(lambda: block(shared("A", 0, 16), barrier(), shared("B", 0, 16))) == (0, "A | B")


def test_three_in_a_row():
    assert run(lambda: block(shared("A", 0, 16), shared("B", 0, 16), shared("C", 0, 16))) == (2, "A | B | C")


def test_random_blocks_agree_with_the_compiler():
    for seed in range(200):
        mine, theirs = random_program(seed, loops=False), random_program(seed, loops=False)
        before = sum(op.name == "barrier" for op in mine.ops)
        inserted = impl.insert_barriers(mine)
        _walk(theirs, set(), insert=True)
        assert render(mine) == render(theirs), f"seed {seed}"
        assert inserted == sum(op.name == "barrier" for op in mine.ops) - before
