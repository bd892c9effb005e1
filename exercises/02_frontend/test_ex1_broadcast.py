"""Tests for exercise 2.1: run with `make exercise CH=2 EX=1`."""
import numpy as np
import pytest
from _impl import load

from minitriton.language.semantic import SemanticError

impl = load("02_frontend/ex1_broadcast")


@pytest.mark.parametrize("a, b, expected", [
    ((), (), ()), ((), (4,), (4,)), ((4,), (), (4,)), ((8, 1), (1, 16), (8, 16)), ((16,), (8, 16), (8, 16)),
    ((8, 1), (16,), (8, 16)), ((2, 1, 4), (3, 1), (2, 3, 4)), ((1,), (1,), (1,)),
])
def test_known_shapes(a, b, expected):
    assert impl.broadcast_shapes(a, b) == expected
    assert impl.broadcast_shapes(b, a) == expected


@pytest.mark.parametrize("a, b", [((4,), (8,)), ((8, 2), (8, 4)), ((2, 3, 4), (3, 5))])
def test_mismatch_is_a_semantic_error(a, b):
    with pytest.raises(SemanticError, match=r"\[.*\].*\[.*\]"):
        impl.broadcast_shapes(a, b)


def test_agrees_with_numpy():
    """300 random pairs of shapes (sizes 1, 2 or 4, ranks 0 to 3): numpy's answer, or its refusal."""
    rng = np.random.default_rng(0)
    for _ in range(300):
        a = tuple(int(s) for s in rng.choice([1, 2, 4], rng.integers(0, 4)))
        b = tuple(int(s) for s in rng.choice([1, 2, 4], rng.integers(0, 4)))
        try:
            expected = np.broadcast_shapes(a, b)
        except ValueError:
            with pytest.raises(SemanticError):
                impl.broadcast_shapes(a, b)
        else:
            assert impl.broadcast_shapes(a, b) == expected, (a, b)
