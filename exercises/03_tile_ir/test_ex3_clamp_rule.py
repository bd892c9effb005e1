"""Tests for exercise 3.3: run with `make exercise CH=3 EX=3`."""
import numpy as np
import pytest
from _impl import load
from ir_helpers import pointer_arg, pointers

from minitriton import interpreter, ir
from minitriton.interpreter import Memory, interpret

impl = load("03_tile_ir/ex3_clamp_rule")


@pytest.fixture(autouse=True)
def clamp_op(monkeypatch):
    """Register the op for the duration of one test."""
    monkeypatch.setitem(ir.OPS, "clamp", impl.clamp_type)
    monkeypatch.setitem(interpreter.RULES, "clamp", impl.clamp_rule)


def clamp_kernel(dtype: ir.DType, shape: tuple[int, ...]) -> ir.Function:
    """out = clamp(x, lo, hi) over one tile of `shape`, each operand loaded from its own array."""
    args = [pointer_arg(name, dtype) for name in ("x_ptr", "lo_ptr", "hi_ptr", "out_ptr")]
    b = ir.Builder()
    n = int(np.prod(shape))
    offsets = b.value("arange", [], start=0, end=n)
    if len(shape) > 1:
        offsets = b.value("reshape", [offsets], shape=shape)
    x, lo, hi = (b.value("load", [pointers(b, arg, offsets)]) for arg in args[:3])
    b.create("store", [pointers(b, args[3], offsets), b.value("clamp", [x, lo, hi])])
    fn = ir.Function("clamp", args, b.block)
    ir.verify(fn)
    return fn


def run(fn: ir.Function, *arrays: np.ndarray) -> None:
    memory = Memory()
    interpret(fn, (1, 1, 1), [memory.add(a, f"arg{i}") for i, a in enumerate(arrays)], memory)


@pytest.mark.parametrize("dtype", [ir.float32, ir.float16, ir.int8, ir.uint32, ir.int64])
@pytest.mark.parametrize("shape", [(32,), (4, 8)])
def test_clamp_in_a_kernel(dtype, shape):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 50).astype(dtype.np)
    lo, hi = np.full(shape, 3, dtype.np), np.full(shape, 40, dtype.np)
    lo.flat[::5] = 50  # some lanes have lo > hi: min(max(x, lo), hi) gives hi there
    out = np.zeros(shape, dtype.np)
    run(clamp_kernel(dtype, shape), x, lo, hi, out)
    np.testing.assert_array_equal(out, np.minimum(np.maximum(x, lo), hi))


def test_nan_stays_nan():
    x = np.array([np.nan, -5, 0.5, 7] * 8, np.float32)
    lo, hi, out = np.zeros(32, np.float32), np.ones(32, np.float32), np.zeros(32, np.float32)
    run(clamp_kernel(ir.float32, (32,)), x, lo, hi, out)
    np.testing.assert_array_equal(out, np.array([np.nan, 0, 0.5, 1] * 8, np.float32))


def test_result_dtype_is_the_ops():
    b = ir.Builder()
    values = [b.constant(v, ir.int8) for v in (100, -3, 7)]
    op = b.create("clamp", values)
    result = impl.clamp_rule(None, op, np.int8(100), np.int8(-3), np.int8(7))
    assert np.asarray(result).dtype == np.int8 and result == 7
    op16 = b.create("clamp", [b.constant(v, ir.float16) for v in (0.0, 1.0, 2.0)])
    result = impl.clamp_rule(None, op16, np.float16(0.5), np.full(1, 1, np.float16)[0], np.float16(2))
    assert np.asarray(result).dtype == np.float16 and result == 1
