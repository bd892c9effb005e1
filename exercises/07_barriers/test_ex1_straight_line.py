"""Tests for exercise 7.1: run with `make exercise CH=7 EX=1`."""
import numpy as np
import pytest
from _impl import load
from barrier_helpers import barrier, block, other, races, random_program, render, shared
from barrier_kernels import softmax_row, two_sums

from minitriton import exercise_hooks
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


# Exercise mode: your walk places the barriers of real kernels without loops, compiled for sm_80.

def aligned() -> np.ndarray:
    raw = np.zeros(68, np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start:start + 4].view(np.float32)


x = aligned()
KERNELS = {
    "two sums": lambda: two_sums.warmup(x, x, BLOCK=1024, num_warps=4, target="sm_80"),
    "softmax of one row": lambda: softmax_row.warmup(x, x, 1000, BLOCK=1024, num_warps=8, target="sm_80"),
}


@pytest.mark.parametrize("name", list(KERNELS))
def test_your_barriers_in_real_kernels(name):
    given = []

    def straight_line_walk(block, pending, insert):
        """What the compiler's walk is called as, done by yours: the kernel's body has no loops."""
        given.append(block)
        impl.insert_barriers(block)

    with exercise_hooks.use({"barriers.walk": straight_line_walk}):
        yours = KERNELS[name]()
    assert yours.asm["layout"] == KERNELS[name]().asm["layout"]
    body = given[0]
    assert races(body) == [], "a race your barriers leave"
    assert [op.name for op in body.ops].count("barrier") == 1
