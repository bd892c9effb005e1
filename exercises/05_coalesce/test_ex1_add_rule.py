"""Tests for exercise 5.1: run with `make exercise CH=5 EX=1`."""
from _impl import load
from hypothesis import given, settings
from hypothesis import strategies as st

from minitriton import ir
from minitriton.passes.axis_info import MAX_DIVISOR, RULES, AxisInfo

impl = load("05_coalesce/ex1_add_rule")


def facts(contiguity, divisibility, constancy):
    return AxisInfo(tuple(contiguity), tuple(divisibility), tuple(constancy))


def compilers_rule(a: AxisInfo, b: AxisInfo, shape) -> AxisInfo:
    """What minitriton's own `add` rule says, for two int32 tiles of `shape`."""
    x, y = ir.Value(ir.tile(shape, ir.int32)), ir.Value(ir.tile(shape, ir.int32))
    op = ir.Op("add", [x, y], [])
    op.results = [ir.Value(ir.tile(shape, ir.int32), op)]
    return RULES["add"](op, [a, b])


def test_program_offset_plus_arange():
    """pid * 512 + arange(0, 512): one run of 512 starting at a multiple of 512 (the chapter's %5)."""
    splat = facts([1], [512], [512])
    arange = facts([512], [MAX_DIVISOR], [1])
    assert impl.add_facts(splat, arange) == facts([512], [512], [1])
    assert impl.add_facts(arange, splat) == facts([512], [512], [1])


def test_two_consecutive_runs_are_not_consecutive():
    arange = facts([64], [MAX_DIVISOR], [1])
    assert impl.add_facts(arange, arange).contiguity == (1,)


def test_runs_are_cut_by_the_shorter_constant_run():
    """A splat constant over runs of 4 (a broadcast) plus arange: consecutive only within runs of 4."""
    stepped = facts([1], [16], [4])
    arange = facts([64], [MAX_DIVISOR], [1])
    assert impl.add_facts(stepped, arange) == facts([4], [4], [1])


def test_two_dimensions():
    """rows[:, None] * 64 + cols[None, :] for a 16 x 64 tile: consecutive along dimension 1."""
    rows = facts([1, 1], [64, 64], [1, 64])
    cols = facts([1, 64], [MAX_DIVISOR, MAX_DIVISOR], [16, 1])
    assert impl.add_facts(rows, cols) == facts([1, 64], [64, 64], [1, 1])


powers = st.integers(0, 10).map(lambda k: 1 << k)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.tuples(powers, powers, powers, powers, powers, powers), min_size=1, max_size=3))
def test_agrees_with_the_compiler(per_dimension):
    a = facts(*zip(*[(c, d, k) for c, d, k, *_ in per_dimension]))
    b = facts(*zip(*[(c, d, k) for *_, c, d, k in per_dimension]))
    shape = tuple(1024 for _ in per_dimension)
    assert impl.add_facts(a, b) == compilers_rule(a, b, shape)
