"""Tests for exercise 2.2: run with `make exercise CH=2 EX=2`."""
import itertools

import numpy as np
import pytest
from _impl import load

import minitriton as triton
import minitriton.language as tl
from minitriton import exercise_hooks, ir
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


# Exercise mode: your `computation_type` decides the types of real kernels' arithmetic.

@triton.jit
def combine(a_ptr, b_ptr, out_ptr, OP: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offsets)
    b = tl.load(b_ptr + offsets)
    if OP == "add":
        c = a + b
    elif OP == "mul":
        c = a * b
    elif OP == "div":
        c = a / b
    elif OP == "floordiv":
        c = a // b
    else:
        c = a % b
    tl.store(out_ptr + offsets, c)


def zeros(dtype: str):
    """64 zeros of the numpy dtype named; bfloat16, which numpy lacks, as 16-bit words reinterpreted."""
    if dtype == "bfloat16":
        return triton.reinterpret(np.zeros(64, np.uint16), tl.bfloat16)
    return np.zeros(64, np.dtype(dtype))


def compiled_with_yours(a, b, op):
    with exercise_hooks.use({"semantic.computation_type": impl.computation_type}):
        return combine.warmup(a, b, np.zeros(64, np.float64), OP=op, BLOCK=64)


@pytest.mark.parametrize("a, b, op", [
    ("int8", "float16", "add"), ("uint8", "int16", "mul"), ("uint32", "int32", "add"), ("int32", "int32", "div"),
    ("float16", "float16", "div"), ("bfloat16", "float16", "mul"), ("int64", "bfloat16", "add"),
    ("uint8", "uint32", "floordiv"), ("int16", "int64", "rem"), ("float64", "float16", "add"), ("bool", "uint16", "add"),
], ids=str)
def test_your_types_in_a_kernel_are_the_compilers(a, b, op):
    yours = compiled_with_yours(zeros(a), zeros(b), op).asm["ttir"]
    assert yours == combine.warmup(zeros(a), zeros(b), np.zeros(64, np.float64), OP=op, BLOCK=64).asm["ttir"]


def test_a_kernel_typed_by_your_rules_runs_right():
    rng = np.random.default_rng(0)
    a = rng.integers(-100, 100, 64).astype(np.int8)
    b = rng.standard_normal(64).astype(np.float16)
    out = np.full(64, np.nan, np.float64)
    with exercise_hooks.use({"semantic.computation_type": impl.computation_type}):
        combine[(1,)](a, b, out, OP="add", BLOCK=64)
    np.testing.assert_array_equal(out, (a.astype(np.float16) + b).astype(np.float64))  # added in fp16


def test_your_error_points_at_the_kernels_line():
    signed, unsigned = np.ones(64, np.int32), np.ones(64, np.uint32)
    compiled_with_yours(signed, signed, "floordiv")
    with pytest.raises(triton.CompilationError, match=r"c = a // b"):
        compiled_with_yours(signed, unsigned, "floordiv")
