"""Tests for exercise 10.1: run with `make exercise CH=10 EX=1`."""
import pytest
from _impl import load

impl = load("10_performance/ex1_stage_schedule")


def test_three_stages_four_iterations():
    assert impl.schedule(4, 3) == [
        ("copy", 0, 0), ("copy", 1, 1),
        ("read", 0, 0), ("copy", 2, 2),
        ("read", 1, 1), ("copy", 3, 0),
        ("read", 2, 2), ("copy", 4, 1),
        ("read", 3, 0), ("copy", 5, 2),
    ]


def test_one_stage_copies_then_reads():
    assert impl.schedule(2, 1) == [("copy", 0, 0), ("read", 0, 0), ("copy", 1, 0), ("read", 1, 0)]


@pytest.mark.parametrize("iterations, stages", [(1, 2), (7, 2), (9, 3), (12, 4), (5, 6)])
def test_every_read_finds_its_iteration_and_no_copy_overwrites_unread_data(iterations, stages):
    held = {}  # stage -> iteration it holds
    read = set()
    for kind, iteration, stage in impl.schedule(iterations, stages):
        assert 0 <= stage < stages
        if kind == "copy":
            assert held.get(stage) is None or held[stage] in read, "a copy overwrote a tile nobody read"
            held[stage] = iteration
        else:
            assert held.get(stage) == iteration, f"iteration {iteration} read a stage holding {held.get(stage)}"
            read.add(iteration)
    assert read == set(range(iterations))
