"""Tests for exercise 2.2: run with `pytest exercises/02_frontend/test_ex2_promotion.py`."""
import itertools

import pytest
from _impl import load

from minitriton import ir
from minitriton.language import semantic
from minitriton.language.semantic import SemanticError

impl = load("02_frontend/ex2_promotion")
t = ir.SCALAR_DTYPES
INTEGERS = [d for d in t.values() if d.is_int()]
STANDARD = [d for d in t.values() if not d.is_fp8()]  # the fp8s have rules of their own (chapter 8)


@pytest.mark.parametrize("a, b, expected", [
    ("int8", "int32", "int32"), ("int64", "int16", "int64"), ("uint8", "int8", "uint8"),
    ("uint8", "int16", "int16"), ("uint32", "int32", "uint32"), ("uint16", "uint64", "uint64"),
    ("int1", "int8", "int8"), ("uint16", "int1", "uint16"), ("int1", "int1", "int1"),
])
def test_integer_promote(a, b, expected):
    assert impl.integer_promote(t[a], t[b]) == t[expected]
    assert impl.integer_promote(t[b], t[a]) == t[expected]


@pytest.mark.parametrize("a, b, op, expected", [
    ("fp16", "fp16", "add", "fp16"), ("fp16", "fp32", "add", "fp32"), ("bf16", "fp16", "mul", "fp16"),
    ("bf16", "bf16", "sub", "bf16"), ("int32", "fp16", "add", "fp16"), ("int64", "bf16", "add", "fp32"),
    ("fp64", "fp16", "add", "fp64"), ("int8", "fp64", "add", "fp64"), ("int32", "int32", "div", "fp32"),
    ("int64", "int64", "div", "fp32"), ("uint8", "int8", "add", "uint8"), ("int32", "int64", "rem", "int64"),
    ("fp16", "fp16", "div", "fp32"), ("bf16", "int32", "rem", "fp32"), ("fp16", "fp64", "div", "fp64"),
    ("uint8", "uint32", "floordiv", "uint32"), ("int1", "uint8", "div", "fp32"),
])
def test_computation_type(a, b, op, expected):
    assert impl.computation_type(t[a], t[b], op) == t[expected]
    assert impl.computation_type(t[b], t[a], op) == t[expected]


@pytest.mark.parametrize("a, b", [("int32", "uint32"), ("uint8", "int64")])
@pytest.mark.parametrize("op", ["div", "floordiv", "rem"])
def test_dividing_signed_by_unsigned_is_an_error(a, b, op):
    with pytest.raises(SemanticError):
        impl.computation_type(t[a], t[b], op)


def outcome(rule, *args):
    try:
        return rule(*args)
    except SemanticError:
        return SemanticError


def test_every_pair_agrees_with_minitriton():
    for a, b in itertools.product(STANDARD, repeat=2):
        for op in ("add", "mul", "div", "floordiv", "rem"):
            assert outcome(impl.computation_type, a, b, op) == outcome(semantic.computation_type, a, b, op), \
                (a, b, op)
    for a, b in itertools.product(INTEGERS, repeat=2):
        assert impl.integer_promote(a, b) == semantic.integer_promote(a, b), (a, b)
