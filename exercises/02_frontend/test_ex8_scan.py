"""Tests for exercise 2.8: run with `pytest exercises/02_frontend/test_ex8_scan.py`."""
import ast
import inspect

import numpy as np
import pytest
from _impl import load

impl = load("02_frontend/ex8_scan")


def recurrence(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The numpy spec, in float64."""
    h, out = np.zeros(a.shape[0]), np.empty(a.shape)
    for t in range(a.shape[1]):
        h = a[:, t].astype(np.float64) * h + b[:, t]
        out[:, t] = h
    return out


def run(a_storage, b_storage, n, block):
    """Run the kernel over rows stored `a_storage.shape[1]` apart; return the whole output storage."""
    rows, stride = a_storage.shape
    out = np.full((rows, stride), np.nan, np.float32)  # poisoned: what the kernel skips stays NaN
    impl.recurrence_kernel[(rows,)](a_storage, b_storage, out, n, stride, BLOCK=block)
    return out


def steps(rows, n, seed):
    """Random steps: a of both signs, so that the order of composition shows."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-1.05, 1.05, (rows, n)).astype(np.float32), rng.standard_normal((rows, n)).astype(np.float32)


@pytest.mark.parametrize("rows, n, block", [(3, 1, 16), (4, 13, 16), (5, 37, 16), (2, 100, 32), (3, 64, 64)])
def test_matches_the_loop(rows, n, block):
    a, b = steps(rows, n, seed=n)
    np.testing.assert_allclose(run(a, b, n, block), recurrence(a, b), rtol=1e-4, atol=1e-5)


def test_a_of_one_is_a_running_sum_across_many_tiles():
    b = np.random.default_rng(1).standard_normal((2, 203)).astype(np.float32)
    out = run(np.ones_like(b), b, 203, 16)
    np.testing.assert_allclose(out, np.cumsum(b.astype(np.float64), axis=1), rtol=1e-4, atol=1e-4)


def test_rows_inside_wider_storage():
    """Rows of 45 steps, 64 apart; the 19 elements after each row are NaN and not part of it."""
    a, b = (np.full((3, 64), np.nan, np.float32) for _ in range(2))
    a[:, :45], b[:, :45] = steps(3, 45, seed=2)
    out = run(a, b, 45, 16)
    np.testing.assert_allclose(out[:, :45], recurrence(a[:, :45], b[:, :45]), rtol=1e-4, atol=1e-5)
    assert np.isnan(out[:, 45:]).all(), "the kernel wrote past the end of a row"


def test_the_steps_are_composed_by_a_scan():
    """The kernel calls tl.associative_scan on a tuple of two tiles, (a, b)."""
    source = inspect.getsource(inspect.getmodule(impl.recurrence_kernel.fn))
    scans = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and node.func.attr == "associative_scan"]
    assert any(isinstance(scan.args[0], (ast.Tuple, ast.List)) and len(scan.args[0].elts) == 2 for scan in scans), \
        "compose the steps with tl.associative_scan((a, b), 0, combine)"
