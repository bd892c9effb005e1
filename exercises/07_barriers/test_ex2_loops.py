"""Tests for exercise 7.2: run with `make exercise CH=7 EX=2`."""
from _impl import load
from barrier_helpers import block, for_loop, if_else, other, random_program, render, shared

from minitriton.passes.barriers import _walk

impl = load("07_barriers/ex2_loops")


def placed(make):
    """Your barriers in the program `make()` builds, checked against minitriton's own pass on a copy."""
    mine, theirs = make(), make()
    impl.walk(mine, set(), insert=True)
    _walk(theirs, set(), insert=True)
    assert render(theirs) == render(mine), f"minitriton's pass places them as {render(theirs)!r}"
    return render(mine)


def test_one_op_in_a_loop_races_with_itself_on_the_back_edge():
    assert placed(lambda: block(for_loop(other(), shared("A", 0, 16)))) == "for(. | A)"


def test_two_ops_on_disjoint_bytes_need_nothing():
    """B's own barrier orders A's reads before the next trip's A: no hazard, no barrier."""
    assert placed(lambda: block(for_loop(shared("A", 0, 16), shared("B", 16, 32)))) == "for(A B)"


def test_softmax_two_reductions_through_the_same_bytes():
    assert placed(lambda: block(for_loop(other(), shared("max", 0, 16), other(), shared("sum", 0, 16)))) == \
        "for(. | max . | sum)"


def test_reads_before_the_loop_reach_into_it_and_past_it():
    """Layer norm: nothing pending before the first reduction; its reads cross a loop that touches
    no shared memory and meet the second."""
    def program():
        return block(for_loop(other()), shared("first", 0, 16), for_loop(other(), other()), shared("second", 0, 16))
    assert placed(program) == "for(.) first for(. .) | second"


def test_what_the_last_trip_reads_is_pending_after_the_loop():
    assert placed(lambda: block(for_loop(shared("A", 0, 64)), shared("B", 32, 48))) == "for(| A) | B"


def test_a_loop_that_may_not_run_leaves_the_set_before_it():
    assert placed(lambda: block(shared("A", 0, 16), for_loop(shared("B", 64, 80)), shared("C", 0, 16))) == \
        "A for(| B) | C"


def test_if_branches_meet():
    def program():
        return block(shared("A", 0, 16), if_else([shared("B", 0, 16)], [other()]), shared("C", 16, 32),
                     shared("D", 0, 16))
    assert placed(program) == "A if(| B ; .) C D"


def test_nested_loops():
    def program():
        return block(for_loop(shared("A", 0, 16), for_loop(shared("B", 16, 32)), other()))
    assert placed(program) == "for(| A for(| B) .)"


def test_the_returned_set():
    assert impl.walk(block(shared("A", 0, 16), shared("B", 16, 48)), set(), insert=False) == {(16, 48)}
    assert impl.walk(block(for_loop(shared("A", 0, 16))), {(64, 80)}, insert=False) == {(0, 16), (64, 80)}


def test_random_programs_agree_with_the_compiler():
    for seed in range(300):
        mine, theirs = random_program(seed, loops=True), random_program(seed, loops=True)
        assert impl.walk(mine, set(), insert=True) == _walk(theirs, set(), insert=True), f"seed {seed}"
        assert render(mine) == render(theirs), f"seed {seed}"
