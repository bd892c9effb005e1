"""Tests for exercise 1.4: run with `make exercise CH=1 EX=4`."""
import numpy as np
import pytest
from _impl import load

import minitriton as triton
import minitriton.language as tl
from minitriton import LaunchError

impl = load("01_introduction/ex4_grid")


@pytest.mark.parametrize("grid, expected", [
    (7, (7, 1, 1)), ((7,), (7, 1, 1)), ((2, 3), (2, 3, 1)), ((2, 3, 4), (2, 3, 4)), ((0,), (0, 1, 1)),
])
def test_plain_grids(grid, expected):
    assert impl.launch_grid(grid, {}) == expected


def test_callable_grid_sees_the_meta_parameters():
    meta = {"n": 1000, "BLOCK": 128}
    assert impl.launch_grid(lambda m: (triton.cdiv(m["n"], m["BLOCK"]),), meta) == (8, 1, 1)
    assert impl.launch_grid(lambda m: m["BLOCK"] // 64, meta) == (2, 1, 1)


@pytest.mark.parametrize("grid", [(), (1, 2, 3, 4), (4, -1)])
def test_bad_grids_are_launch_errors(grid):
    with pytest.raises(LaunchError, match="grid"):
        impl.launch_grid(grid, {})


def test_program_ids_x_fastest():
    assert impl.program_ids((2, 2, 1)) == [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]
    assert len(impl.program_ids((3, 4, 5))) == 60
    assert impl.program_ids((3, 4, 5))[:4] == [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0)]
    assert impl.program_ids((2, 1, 2))[-1] == (1, 0, 1)


@triton.jit
def record_order(order_ptr, counter_ptr):
    """Each program takes a ticket from a shared counter and files it under its own linear id."""
    pid = tl.program_id(0) + tl.num_programs(0) * (tl.program_id(1) + tl.num_programs(1) * tl.program_id(2))
    tl.store(order_ptr + pid, tl.atomic_add(counter_ptr, 1))


def test_program_ids_match_the_interpreter():
    grid = (3, 2, 2)
    order, counter = np.full(12, -1, np.int32), np.zeros(1, np.int32)
    record_order[grid](order, counter)
    ran = [None] * 12  # ran[ticket] = the program that took that ticket
    for linear, ticket in enumerate(order):
        ran[ticket] = (linear % 3, linear // 3 % 2, linear // 6)
    assert impl.program_ids(grid) == ran
