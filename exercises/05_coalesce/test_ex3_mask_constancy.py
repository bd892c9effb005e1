"""Tests for exercise 5.3: run with `make exercise CH=5 EX=3`."""
import numpy as np
from _impl import load
from hypothesis import given, settings
from hypothesis import strategies as st

from minitriton import ir
from minitriton.passes.axis_info import MAX_DIVISOR, RULES, AxisInfo

impl = load("05_coalesce/ex3_mask_constancy")
SIZE = 512


def facts(contiguity, divisibility, constancy):
    return AxisInfo((contiguity,), (divisibility,), (constancy,))


def offsets(start):
    """pid * 512 + arange(0, 512) with pid * 512 == start: its facts."""
    return facts(SIZE, 512 if start else MAX_DIVISOR, 1)


def test_bound_a_multiple_of_16():
    assert impl.lt_constancy(offsets(1024), facts(1, 16, SIZE), SIZE) == 16


def test_bound_known_to_nothing():
    assert impl.lt_constancy(offsets(1024), facts(1, 1, SIZE), SIZE) == 1


def test_a_bound_that_varies():
    """x < y with y a tile of its own: only where both are constant."""
    assert impl.lt_constancy(facts(1, 1, 8), facts(1, 1, 4), SIZE) == 4


def true_constancy_holds(mask: np.ndarray, runs: int) -> bool:
    """Every aligned run of `runs` elements of `mask` has one value."""
    return bool((mask.reshape(-1, runs) == mask.reshape(-1, runs)[:, :1]).all())


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(0, 64), st.integers(0, 2048), st.sampled_from([1, 2, 4, 8, 16, 32]))
def test_the_claim_holds_on_real_masks(pid, n, known_divisor):
    """offsets = pid * 512 + arange(512); n is known to be a multiple of `known_divisor` (the largest
    power of two dividing it, as far as the compiler knows): the claimed runs really are constant."""
    n = n - n % known_divisor
    runs = impl.lt_constancy(offsets(pid * SIZE), facts(1, known_divisor, SIZE), SIZE)
    mask = pid * SIZE + np.arange(SIZE) < n
    assert runs >= known_divisor and true_constancy_holds(mask, runs)


def compilers_rule(x: AxisInfo, n: AxisInfo) -> int:
    a, b = ir.Value(ir.tile((SIZE,), ir.int32)), ir.Value(ir.tile((SIZE,), ir.int32))
    op = ir.Op("cmp", [a, b], [], {"predicate": "lt"})
    op.results = [ir.Value(ir.tile((SIZE,), ir.int1), op)]
    return RULES["cmp"](op, [x, n]).constancy[0]


powers = st.integers(0, 9).map(lambda k: 1 << k)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(powers, powers, powers, powers, powers, powers)
def test_agrees_with_the_compiler(xc, xd, xk, nc, nd, nk):
    x, n = facts(xc, xd, xk), facts(nc, nd, nk)
    assert impl.lt_constancy(x, n, SIZE) == compilers_rule(x, n)
