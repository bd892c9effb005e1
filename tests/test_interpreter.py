"""The numpy interpreter against numpy: memory and its errors, arithmetic laws, casts, bf16 rounding,
reductions, dot, control flow, atomics, print and assert. Kernels are built by hand with ir.Builder."""
from __future__ import annotations

import functools
import math
import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from minitriton import ir
from minitriton.errors import InterpreterError, Loc
from minitriton.floats import round_to_bf16
from minitriton.interpreter import RULES, Memory, interpret

i32, f32 = ir.int32, ir.float32


# ---------------------------------------------------------------------------------------------------
# Building kernels by hand.
# ---------------------------------------------------------------------------------------------------

def ptr(dtype: ir.DType) -> ir.DType:
    return ir.pointer_type(dtype)


def build(params: list[tuple[str, ir.DType]], body) -> ir.Function:
    """A verified kernel whose arguments are `params` and whose ops `body(builder, *args)` makes."""
    args = [ir.Value(ir.scalar(dtype), name=name) for name, dtype in params]
    b = ir.Builder()
    body(b, *args)
    fn = ir.Function("kernel", args, b.block)
    ir.verify(fn)
    return fn


def run(fn: ir.Function, grid, *args) -> None:
    """Interpret `fn`; numpy arrays are mapped into memory under their parameter's name."""
    memory = Memory()
    values = [memory.add(a, p.name) if isinstance(a, np.ndarray) else a for p, a in zip(fn.args, args)]
    interpret(fn, grid, values, memory)


def const(b, value, dtype=i32):
    return b.constant(value, dtype)


def splat(b, x, shape):
    return b.value("splat", [x], shape=tuple(shape))


def at(b, pointer, offsets):
    """pointer + offsets, the scalar pointer splat to the offsets' shape first."""
    if offsets.shape and not pointer.shape:
        pointer = splat(b, pointer, offsets.shape)
    return b.value("addptr", [pointer, offsets])


def outer(b, op, column, row):
    """op(column[:, None], row[None, :]) on the (len(column), len(row)) tile."""
    shape = (column.shape[0], row.shape[0])
    col = b.value("broadcast", [b.value("expand_dims", [column], axis=1)], shape=shape)
    row = b.value("broadcast", [b.value("expand_dims", [row], axis=0)], shape=shape)
    return b.value(op, [col, row])


def grid_offsets(b, rows, cols, row_stride):
    """The (rows, cols) tile of offsets i * row_stride + j."""
    r = b.value("mul", [b.value("arange", [], start=0, end=rows), splat(b, row_stride, (rows,))])
    return outer(b, "add", r, b.value("arange", [], start=0, end=cols))


def block_offsets(b, n, block):
    """pid * block + arange(block), and the mask offsets < n."""
    start = b.value("mul", [b.value("program_id", [], axis=0), const(b, block)])
    offsets = b.value("add", [splat(b, start, (block,)), b.value("arange", [], start=0, end=block)])
    return offsets, b.value("cmp", [offsets, splat(b, n, (block,))], predicate="lt")


@functools.lru_cache(maxsize=None)
def map_kernel(op_name: str, sources: tuple[ir.DType, ...], target: ir.DType, attrs: tuple = (),
               block: int = 64) -> ir.Function:
    """out[i] = op(in0[i], in1[i], ...) for i < n."""
    def body(b, *args):
        *ins, out, n = args
        offsets, mask = block_offsets(b, n, block)
        values = [b.value("load", [at(b, p, offsets), mask]) for p in ins]
        b.create("store", [at(b, out, offsets), b.value(op_name, values, **dict(attrs)), mask])
    params = [(f"in{k}", ptr(s)) for k, s in enumerate(sources)] + [("out", ptr(target)), ("n", i32)]
    return build(params, body)


def apply(op_name, inputs: list[np.ndarray], sources, target, out_np=None, **attrs) -> np.ndarray:
    """Run `op_name` elementwise over arrays (in memory's representation: bf16 as uint16 bits)."""
    n = len(inputs[0])
    out = np.full(n, 0x5A, out_np or storage_np(target))  # poison: unwritten elements show
    fn = map_kernel(op_name, tuple(sources), target, tuple(sorted(attrs.items())))
    run(fn, (-(-n // 64), 1, 1), *inputs, out, n)
    return out


def storage_np(dtype: ir.DType):
    return np.uint16 if dtype.is_bf16() else dtype.np


def bf16_values(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


# ---------------------------------------------------------------------------------------------------
# A bit-exact reference for rounding: exact rationals, round to nearest, ties to even.
# ---------------------------------------------------------------------------------------------------

def round_reference(number: int | float, precision: int = 8, min_exp: int = -126, max_exp: int = 127):
    """The float nearest to `number` in a format with `precision` significant bits (bf16 by default)."""
    if number == 0 or not math.isfinite(number):
        return float(number)
    value = Fraction(number)
    sign, a = (-1 if value < 0 else 1), abs(value)
    exp = a.numerator.bit_length() - a.denominator.bit_length()
    exp += 1 if a >= Fraction(2) ** (exp + 1) else 0
    exp -= 1 if a < Fraction(2) ** exp else 0
    ulp = Fraction(2) ** (max(exp, min_exp) - precision + 1)
    q, r = divmod(a, ulp)
    if r > ulp / 2 or (r == ulp / 2 and q % 2 == 1):
        q += 1
    result = q * ulp
    return sign * (math.inf if result >= Fraction(2) ** (max_exp + 1) else float(result))


# ---------------------------------------------------------------------------------------------------
# Memory: a vector add, masks, and errors that point at the kernel's line.
# ---------------------------------------------------------------------------------------------------

def vector_add(block=128, loc=None):
    def body(b, x, y, out, n):
        offsets, mask = block_offsets(b, n, block)
        b.loc = loc
        xs = b.value("load", [at(b, x, offsets), mask])
        ys = b.value("load", [at(b, y, offsets), mask])
        b.create("store", [at(b, out, offsets), b.value("add", [xs, ys]), mask])
    return build([("x_ptr", ptr(f32)), ("y_ptr", ptr(f32)), ("out_ptr", ptr(f32)), ("n", i32)], body)


def test_vector_add_with_mask_over_many_programs():
    rng = np.random.default_rng(0)
    n = 1000
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    out = np.full(n, np.nan, np.float32)
    memory = Memory()
    args = [memory.add(x, "x_ptr"), memory.add(y, "y_ptr"), memory.add(out, "out_ptr")]
    neighbour = np.full(64, 7.0, np.float32)  # mapped right after out: must stay untouched
    memory.add(neighbour, "neighbour")
    interpret(vector_add(), (8, 1, 1), args + [n], memory)
    np.testing.assert_array_equal(out, x + y)
    assert (neighbour == 7.0).all()


def test_memory_maps_each_array_at_its_own_address():
    memory = Memory()
    arrays = [np.zeros(n, dtype) for n, dtype in [(3, np.uint8), (1000, np.float32), (7, np.float64)]]
    bases = [memory.add(a, f"a{k}") for k, a in enumerate(arrays)]
    assert bases == [a.ctypes.data for a in arrays]
    with pytest.raises(InterpreterError, match="a1\\[1000\\], past the end of its 1000 elements"):
        memory.load(np.int64(bases[1] + 4000), None, f32, None)
    arrays[2][1] = 2.5
    loaded = memory.load(np.array([bases[2] + 8, bases[2]]), None, ir.float64, None)
    np.testing.assert_array_equal(loaded, [2.5, 0.0])
    with pytest.raises(InterpreterError, match="in no array"):
        memory.load(np.int64(8), None, f32, None)  # a null-ish pointer


def test_overlapping_views_are_one_region_and_read_only_arrays_stay_untouched():
    memory = Memory()
    whole = np.arange(64, dtype=np.float32)
    head, tail = whole[:40], whole[20:]
    a, b = memory.add(head, "head"), memory.add(tail, "tail")
    assert b - a == 80 and len(memory.allocations) == 1
    memory.store(np.array([a + 39 * 4, b + 43 * 4]), np.array([-1.0, -2.0], np.float32), None, f32, None)
    assert whole[39] == -1 and whole[63] == -2  # through either view, the one buffer
    frozen = np.ones(8, np.float32)
    frozen.flags.writeable = False
    address = memory.add(frozen, "frozen")
    np.testing.assert_array_equal(memory.load(address + 4 * np.arange(8), None, f32, None), frozen)
    with pytest.raises(InterpreterError, match="store writes frozen, which the caller made read-only"):
        memory.store(np.int64(address), np.float32(5), None, f32, None)
    with pytest.raises(InterpreterError, match="read-only"):
        memory.atomic("add", np.int64(address), np.float32(5), None, f32, None)
    assert (frozen == 1).all()


def test_memory_writes_reach_the_callers_array():
    memory = Memory()
    grid = np.zeros((3, 5), np.int16)
    base = memory.add(grid, "grid")
    memory.store(base + 2 * np.arange(15), np.arange(15, dtype=np.int16), None, ir.int16, None)
    np.testing.assert_array_equal(grid, np.arange(15).reshape(3, 5))


@pytest.fixture
def kernel_source(tmp_path):
    """A real file for ops' Locs to point at, so errors can show the kernel's own line."""
    path = tmp_path / "kernels.py"
    path.write_text("def add_kernel(x_ptr, y_ptr, out_ptr, n):\n"
                    "    offsets = tl.program_id(0) * 128 + tl.arange(0, 128)\n"
                    "    x = tl.load(x_ptr + offsets)\n"
                    "    tl.store(out_ptr + offsets, x)\n")
    return str(path)


def test_out_of_bounds_load_names_argument_element_and_line(kernel_source):
    loc = Loc(kernel_source, 3, 8, "add_kernel")
    n = 1000
    x, y, out = np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(n, np.float32)
    with pytest.raises(InterpreterError) as caught:
        run(vector_add(loc=loc), (8, 1, 1), x, y, out, 1024)  # n lies: lanes 1000.. read past x
    text = str(caught.value)
    assert "load reads x_ptr[1000], past the end of its 1000 elements" in text
    assert f"{kernel_source}:3:9 in add_kernel()" in text
    assert "x = tl.load(x_ptr + offsets)" in text
    assert "mask" in caught.value.hint


def unmasked_store(loc):
    def body(b, out, shift):
        offsets = b.value("add", [b.value("arange", [], start=0, end=128), splat(b, shift, (128,))])
        b.loc = loc
        b.create("store", [at(b, out, offsets), splat(b, const(b, 1.0, f32), (128,))])
    return build([("out_ptr", ptr(f32)), ("shift", i32)], body)


def test_out_of_bounds_store_names_argument_and_line(kernel_source):
    loc = Loc(kernel_source, 4, 4, "add_kernel")
    out = np.zeros(100, np.float32)
    with pytest.raises(InterpreterError) as caught:
        run(unmasked_store(loc), (1, 1, 1), out, 0)
    assert "store writes out_ptr[100], past the end of its 100 elements" in str(caught.value)
    assert "tl.store(out_ptr + offsets, x)" in str(caught.value)
    assert (out == 0).all(), "a faulting store must not write its in-bounds lanes either"
    with pytest.raises(InterpreterError, match=r"out_ptr\[-1\], before its first element"):
        run(unmasked_store(loc), (1, 1, 1), np.zeros(1000, np.float32), -1)


def pointer_from_integer(address_of):
    """load(cast<ptr>(address_of(cast<i64>(x_ptr)))): pointer arithmetic done on the integer."""
    def body(b, x):
        address = address_of(b, b.value("cast", [x], dtype=ir.int64))
        b.create("store", [b.value("cast", [address], dtype=ptr(f32)), const(b, 1.0, f32)])
    return build([("x_ptr", ptr(f32))], body)


def test_wild_and_misaligned_pointers_are_reported():
    x = np.zeros(16, np.float32)
    null = pointer_from_integer(lambda b, address: const(b, 0, ir.int64))
    with pytest.raises(InterpreterError, match="address 0x0, which is in no array"):
        run(null, (1, 1, 1), x)
    misaligned = pointer_from_integer(lambda b, a: b.value("add", [a, const(b, 2, ir.int64)]))
    with pytest.raises(InterpreterError, match="x_ptr at byte offset 2, which is not a multiple of 4"):
        run(misaligned, (1, 1, 1), x)
    roundtrip = pointer_from_integer(lambda b, a: b.value("add", [a, const(b, 8, ir.int64)]))
    run(roundtrip, (1, 1, 1), x)
    assert x[2] == 1.0 and x.sum() == 1.0


def test_masked_off_lanes_never_touch_memory():
    def body(b, x, out, shift):
        offsets = b.value("add", [b.value("arange", [], start=0, end=64), splat(b, shift, (64,))])
        in_bounds = b.value("cmp", [offsets, splat(b, const(b, 10), (64,))], predicate="lt")
        other = splat(b, const(b, -5.0, f32), (64,))
        loaded = b.value("load", [at(b, x, offsets), in_bounds, other])
        b.create("store", [at(b, out, b.value("arange", [], start=0, end=64)), loaded])
    fn = build([("x_ptr", ptr(f32)), ("out_ptr", ptr(f32)), ("shift", i32)], body)
    x, out = np.arange(10, dtype=np.float32), np.full(64, np.nan, np.float32)
    run(fn, (1, 1, 1), x, out, 0)
    np.testing.assert_array_equal(out, np.r_[np.arange(10), np.full(54, -5)])


def test_masked_lanes_far_outside_any_array_give_other():
    def body(b, x, out, shift):
        offsets = b.value("add", [b.value("arange", [], start=0, end=64), splat(b, shift, (64,))])
        in_bounds = b.value("cmp", [offsets, splat(b, const(b, 10), (64,))], predicate="lt")
        b.create("store", [at(b, out, b.value("arange", [], start=0, end=64)),
                           b.value("load", [at(b, x, offsets), in_bounds])])
    fn = build([("x_ptr", ptr(f32)), ("out_ptr", ptr(f32)), ("shift", i32)], body)
    out = np.full(64, np.nan, np.float32)
    run(fn, (1, 1, 1), np.arange(10, dtype=np.float32), out, 10**9)
    assert (out == 0).all()


def test_one_tile_of_pointers_into_two_arrays():
    def body(b, x, y, out):
        offsets = b.value("arange", [], start=0, end=8)
        odd = b.value("cmp", [b.value("rem", [offsets, splat(b, const(b, 2), (8,))]),
                              splat(b, const(b, 1), (8,))], predicate="eq")
        pointers = b.value("select", [odd, at(b, y, offsets), at(b, x, offsets)])
        b.create("store", [at(b, out, offsets), b.value("load", [pointers])])
    fn = build([("x_ptr", ptr(f32)), ("y_ptr", ptr(f32)), ("out_ptr", ptr(f32))], body)
    x, y, out = np.arange(8, dtype=np.float32), -np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    run(fn, (1, 1, 1), x, y, out)
    np.testing.assert_array_equal(out, np.where(np.arange(8) % 2, y, x))


def test_grid_runs_x_fastest_and_knows_its_size():
    def body(b, counter, out):
        pid = [b.value("program_id", [], axis=a) for a in range(3)]
        size = [b.value("num_programs", [], axis=a) for a in range(3)]
        linear = b.value("add", [b.value("mul", [b.value("add", [
            b.value("mul", [pid[2], size[1]]), pid[1]]), size[0]]), pid[0]])
        ticket = b.value("atomic", [counter, const(b, 1)], kind="add")
        b.create("store", [at(b, out, linear), ticket])
    fn = build([("counter", ptr(i32)), ("out", ptr(i32))], body)
    counter, out = np.zeros(1, np.int32), np.full(12, -1, np.int32)
    run(fn, (3, 2, 2), counter, out)
    np.testing.assert_array_equal(out, np.arange(12))
    assert counter[0] == 12


# ---------------------------------------------------------------------------------------------------
# Arithmetic.
# ---------------------------------------------------------------------------------------------------

def wrap(value: int, dtype: ir.DType) -> int:
    bits = dtype.bits
    value %= 1 << bits
    return value - (1 << bits) if dtype.is_int_signed() and value >= 1 << (bits - 1) else value


INT_DTYPES = [ir.int8, ir.int16, ir.int32, ir.int64, ir.uint8, ir.uint32, ir.uint64]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_integer_div_and_rem_truncate_like_c(data):
    dtype = data.draw(st.sampled_from(INT_DTYPES))
    info = np.iinfo(dtype.np)
    ints = st.integers(int(info.min), int(info.max))
    pairs = data.draw(st.lists(st.tuples(ints, ints.filter(bool)), min_size=1, max_size=100))
    a = np.array([p[0] for p in pairs], dtype.np)
    b = np.array([p[1] for p in pairs], dtype.np)
    quotient = apply("div", [a, b], [dtype, dtype], dtype)
    remainder = apply("rem", [a, b], [dtype, dtype], dtype)
    for (x, y), q, r in zip(pairs, quotient, remainder):
        exact = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
        assert int(q) == wrap(exact, dtype), (x, y)
        assert int(r) == wrap(x - y * exact, dtype), (x, y)


def test_float_rem_is_fmod_and_int_min_over_minus_one_wraps():
    a = np.array([5.5, -5.5, 7.0, -0.0], np.float32)
    b = np.array([2.0, 2.0, -3.0, 1.0], np.float32)
    np.testing.assert_array_equal(apply("rem", [a, b], [f32, f32], f32), np.fmod(a, b))
    smallest = np.array([np.iinfo(np.int32).min], np.int32)
    assert apply("div", [smallest, np.array([-1], np.int32)], [i32, i32], i32)[0] == smallest[0]


@pytest.mark.parametrize("dtype", [ir.float32, ir.float16, ir.float64])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "minimum", "maximum", "pow"])
def test_float_binary_ops_match_numpy(op, dtype):
    rng = np.random.default_rng(1)
    a = rng.uniform(0.5, 4, 100).astype(dtype.np)
    b = rng.uniform(0.5, 4, 100).astype(dtype.np)
    a[:2], b[1], b[3] = np.nan, np.nan, np.nan  # element 1: both NaN
    expected = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
                "minimum": np.fmin, "maximum": np.fmax, "pow": np.power}[op](a, b)
    got = apply(op, [a, b], [dtype, dtype], dtype)
    np.testing.assert_allclose(got, expected, rtol=1e-3 if dtype.is_fp16() else 1e-6)
    if op in ("minimum", "maximum"):  # IEEE's minNum/maxNum: a NaN loses to a number
        assert np.isnan(got[1]) and not np.isnan(got[[0, 3]]).any()
        propagating = apply(op, [a, b], [dtype, dtype], dtype, propagate_nan=True)
        np.testing.assert_allclose(propagating, {"minimum": np.minimum, "maximum": np.maximum}[op](a, b),
                                   rtol=1e-3 if dtype.is_fp16() else 1e-6)
        assert np.isnan(propagating[[0, 1, 3]]).all()
    else:
        assert np.isnan(got[[0, 1, 3]]).all()


@pytest.mark.parametrize("op", ["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tanh",
                                "erf", "floor", "ceil", "abs", "neg"])
@pytest.mark.parametrize("dtype", [ir.float32, ir.float16, ir.bfloat16])
def test_float_math_in_float32_rounded_back(op, dtype):
    x32 = np.random.default_rng(2).uniform(0.1, 3, 100).astype(np.float32)
    reference = {"exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sqrt": np.sqrt,
                 "rsqrt": lambda v: 1 / np.sqrt(v), "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
                 "erf": np.vectorize(math.erf), "floor": np.floor, "ceil": np.ceil, "abs": np.abs,
                 "neg": np.negative}[op]
    if dtype.is_bf16():
        x = round_to_bf16(x32)
        got = bf16_values(apply(op, [_bits16(x)], [dtype], dtype))
        expected = round_to_bf16(reference(x.astype(np.float64)).astype(np.float32))
    else:
        x = x32.astype(dtype.np)
        got = apply(op, [x], [dtype], dtype)
        expected = reference(x.astype(np.float32)).astype(np.float32).astype(dtype.np)
    # float32 evaluation differs from float64 by an ulp of float32, invisible once rounded to 16 bits
    # except on a rare tie; allow one ulp of the 16-bit type.
    np.testing.assert_allclose(got.astype(np.float64), expected, rtol=2 ** -7 if dtype.is_bf16()
                               else (2 ** -10 if dtype.is_fp16() else 1e-6))


def _bits16(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def test_fp16_arithmetic_rounds_in_fp16():
    a = np.array([2048, 1, 0.1], np.float16)
    b = np.array([1, 1e-4, 0.2], np.float16)
    np.testing.assert_array_equal(apply("add", [a, b], [ir.float16] * 2, ir.float16), a + b)


def test_bf16_arithmetic_is_rounded_after_every_op():
    a, b = np.array([1.0], np.float32), np.array([2.0 ** -8 + 2.0 ** -12], np.float32)
    got = bf16_values(apply("add", [_bits16(a), _bits16(round_to_bf16(b))], [ir.bfloat16] * 2,
                            ir.bfloat16))
    assert got[0] == 1.0 + 2.0 ** -7  # 1 + 2^-8 + 2^-12 rounds up to the next bf16 after 1


@pytest.mark.parametrize("dtype", [ir.int32, ir.uint32, ir.int8, ir.uint8, ir.int64])
def test_integer_ops_wrap_and_shift_by_signedness(dtype):
    info = np.iinfo(dtype.np)
    a = np.array([info.max, info.min, -7 if dtype.is_int_signed() else 7, 100], dtype.np)
    b = np.array([1, 1, 1, 3], dtype.np)
    assert apply("add", [a, b], [dtype] * 2, dtype)[0] == info.min
    shifted = apply("shr", [a, b], [dtype] * 2, dtype)
    for x, s, got in zip(a.tolist(), b.tolist(), shifted):
        assert int(got) == x >> s  # Python's >> is arithmetic; unsigned values are non-negative
    np.testing.assert_array_equal(apply("shl", [a, b], [dtype] * 2, dtype),
                                  [wrap(x << s, dtype) for x, s in zip(a.tolist(), b.tolist())])
    for op, reference in [("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor)]:
        np.testing.assert_array_equal(apply(op, [a, b], [dtype] * 2, dtype), reference(a, b))
    np.testing.assert_array_equal(apply("not", [a], [dtype], dtype), ~a)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_umulhi_is_the_high_half_of_the_product(data):
    dtype = data.draw(st.sampled_from([ir.int32, ir.uint32, ir.int64, ir.uint64]))
    info = np.iinfo(dtype.np)
    ints = st.integers(int(info.min), int(info.max))
    pairs = data.draw(st.lists(st.tuples(ints, ints), min_size=1, max_size=70))
    a, b = (np.array([p[k] for p in pairs], dtype.np) for k in (0, 1))
    got = apply("umulhi", [a, b], [dtype] * 2, dtype)
    unsigned = lambda v: v % (1 << dtype.bits)  # the operands' bits read as unsigned, also for int32/int64
    assert [int(v) for v in got] == [wrap((unsigned(x) * unsigned(y)) >> dtype.bits, dtype) for x, y in pairs]


def test_fma_cmp_select():
    a = np.array([1.5, -2, 3, np.nan], np.float32)
    b = np.array([2, 2, -1, 1], np.float32)
    c = np.array([0.25, 1, 3, 0], np.float32)
    np.testing.assert_array_equal(apply("fma", [a, b, c], [f32] * 3, f32), a * b + c)
    for predicate, reference in [("lt", np.less), ("ge", np.greater_equal), ("ne", np.not_equal)]:
        np.testing.assert_array_equal(apply("cmp", [a, b], [f32] * 2, ir.int1, predicate=predicate),
                                      reference(a, b))
    big, one = np.array([0xFFFFFFFF, 1], np.uint32), np.array([1, 2], np.uint32)
    assert apply("cmp", [big, one], [ir.uint32] * 2, ir.int1, predicate="gt").tolist() == [True, False]


# ---------------------------------------------------------------------------------------------------
# Casts and bf16.
# ---------------------------------------------------------------------------------------------------

def saturating_trunc(x: float, dtype: ir.DType) -> int:
    info = np.iinfo(dtype.np)
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return int(info.max) if x > 0 else int(info.min)
    return min(max(math.trunc(x), int(info.min)), int(info.max))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(width=32), min_size=1, max_size=100),
       st.sampled_from([ir.int8, ir.int32, ir.int64, ir.uint8, ir.uint32, ir.uint64]))
def test_float_to_int_truncates_toward_zero(values, target):
    x = np.array(values, np.float32)
    got = apply("cast", [x], [f32], target, dtype=target)
    assert [int(v) for v in got] == [saturating_trunc(float(v), target) for v in x]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_int_to_int_wraps_or_extends_by_the_source(data):
    source, target = (data.draw(st.sampled_from(INT_DTYPES)) for _ in range(2))
    info = np.iinfo(source.np)
    values = data.draw(st.lists(st.integers(int(info.min), int(info.max)), min_size=1, max_size=80))
    got = apply("cast", [np.array(values, source.np)], [source], target, dtype=target)
    assert [int(v) for v in got] == [wrap(v, target) for v in values]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-2 ** 31, 2 ** 31 - 1), min_size=1, max_size=80))
@example([2 ** 30 + 2 ** 22 + 1])  # through float32 it would be a tie, and round down: wrong
def test_int_to_float_rounds_to_nearest(values):
    x = np.array(values, np.int32)
    np.testing.assert_array_equal(apply("cast", [x], [i32], f32, dtype=f32),
                                  [np.float32(float(v)) for v in values])  # float(v) is exact
    got = bf16_values(apply("cast", [x], [i32], ir.bfloat16, dtype=ir.bfloat16))
    assert got.tolist() == [round_reference(v) for v in values]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=False), min_size=1, max_size=80))
@example([1 + 2 ** -8 + 2 ** -30, -(1 + 2 ** -8 + 2 ** -40), 3.4e38, -1e-50])  # ties in float32
def test_float64_to_bf16_rounds_once(values):
    x = np.array(values, np.float64)
    got = bf16_values(apply("cast", [x], [ir.float64], ir.bfloat16, dtype=ir.bfloat16))
    expected = [round_reference(v) for v in values]
    assert got.tolist() == expected
    assert all(math.copysign(1, g) == math.copysign(1, v) for g, v in zip(got, values))


def test_casts_to_and_from_bool_and_between_floats():
    x = np.array([0.0, -0.0, 0.5, np.nan, -3.0], np.float32)
    assert apply("cast", [x], [f32], ir.int1, dtype=ir.int1).tolist() == [0, 0, 1, 1, 1]
    flags = np.array([True, False, True])
    assert apply("cast", [flags], [ir.int1], i32, dtype=i32).tolist() == [1, 0, 1]
    y = np.array([1 + 2 ** -11, 65520.0, 1e-8], np.float32)  # tie to even, overflow, underflow
    with np.errstate(over="ignore"):
        expected = y.astype(np.float16)
    np.testing.assert_array_equal(apply("cast", [y], [f32], ir.float16, dtype=ir.float16), expected)


def test_round_to_bf16_is_bit_exact_on_random_float32():
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 2 ** 32, 20000, dtype=np.uint64).astype(np.uint32)
    bits[:6] = [0x3F808000, 0x3F818000, 0x7F7FFFFF, 0x7F7F8000, 0x00008000, 0x80018000]  # ties, edges
    x = bits.view(np.float32)
    x = x[~np.isnan(x)]
    got = round_to_bf16(x)
    expected = np.array([round_reference(float(v)) for v in x],
                        np.float32)
    np.testing.assert_array_equal(got.view(np.uint32), expected.view(np.uint32))


def test_bf16_memory_roundtrip_keeps_every_pattern():
    patterns = np.arange(2 ** 16, dtype=np.uint16)
    copied = apply("hint", [patterns], [ir.bfloat16], ir.bfloat16)
    is_nan = np.isnan(bf16_values(patterns))
    np.testing.assert_array_equal(copied[~is_nan], patterns[~is_nan])
    assert np.isnan(bf16_values(copied[is_nan])).all()


def test_bitcast_reinterprets_bits():
    x = np.array([1.0, -2.5, np.inf], np.float32)
    np.testing.assert_array_equal(apply("bitcast", [x], [f32], i32, dtype=i32), x.view(np.int32))
    pattern = np.array([0x3F80, 0xC020, 0x7F80], np.uint16)
    got = apply("bitcast", [pattern], [ir.bfloat16], ir.int16, dtype=ir.int16)
    np.testing.assert_array_equal(got, pattern.view(np.int16))
    back = apply("bitcast", [got], [ir.int16], ir.bfloat16, dtype=ir.bfloat16)
    np.testing.assert_array_equal(back, pattern)


# ---------------------------------------------------------------------------------------------------
# Shapes, reductions, scans, dot.
# ---------------------------------------------------------------------------------------------------

def tile_kernel(shape, in_dtype, out_shape, out_dtype, transform):
    """Load a whole (rows, cols) tile, apply transform(builder, tile), store the result tile."""
    def body(b, x, out):
        tile = b.value("load", [at(b, x, grid_offsets(b, *shape, const(b, shape[1])))])
        result = transform(b, tile)
        if len(out_shape) == 2:
            offsets = grid_offsets(b, *out_shape, const(b, out_shape[1]))
        elif out_shape:
            offsets = b.value("arange", [], start=0, end=out_shape[0])
        else:
            offsets = const(b, 0)
        b.create("store", [at(b, out, offsets), result])
    return build([("x_ptr", ptr(in_dtype)), ("out_ptr", ptr(out_dtype))], body)


def run_tile(x, out_shape, out_dtype, transform, in_dtype=None):
    in_dtype = in_dtype or ir.dtype_from_numpy(x.dtype)
    out = np.full(out_shape, 0x5A, storage_np(out_dtype))
    run(tile_kernel(x.shape, in_dtype, out_shape, out_dtype, transform), (1, 1, 1), x, out)
    return out


def test_shape_ops_follow_numpy():
    x = np.arange(32, dtype=np.int32).reshape(4, 8)

    def transform(b, tile):
        flipped = b.value("trans", [b.value("reshape", [tile], shape=(8, 4))], perm=(1, 0))
        row = b.value("reduce", [flipped], axis=0, kind="max")  # shape (8,)
        grown = b.value("broadcast", [b.value("expand_dims", [row], axis=0)], shape=(4, 8))
        return b.value("add", [flipped, grown])
    expected = x.reshape(8, 4).T + x.reshape(8, 4).T.max(axis=0)[None, :]
    np.testing.assert_array_equal(run_tile(x, (4, 8), i32, transform), expected)


REDUCE_REFERENCE = {
    "sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "argmax": np.argmax,
    "argmin": np.argmin, "xor": np.bitwise_xor.reduce, "and": np.bitwise_and.reduce,
    "or": np.bitwise_or.reduce,
}


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("kind", list(REDUCE_REFERENCE))
def test_reduce_along_each_axis(kind, axis):
    rng = np.random.default_rng(4)
    if kind in ("xor", "and", "or", "argmax", "argmin"):
        x = rng.integers(-3, 4, (8, 16)).astype(np.int32)  # few values: argmax/argmin see ties
    else:
        x = rng.uniform(0.5, 1.5, (8, 16)).astype(np.float32)
    out_dtype = i32 if kind in ("argmax", "argmin") else ir.dtype_from_numpy(x.dtype)
    out_shape = (x.shape[1 - axis],)
    got = run_tile(x, out_shape, out_dtype,
                   lambda b, tile: b.value("reduce", [tile], axis=axis, kind=kind))
    np.testing.assert_allclose(got, REDUCE_REFERENCE[kind](x, axis=axis), rtol=1e-5)


def test_argmax_takes_the_first_of_equal_values_and_fp16_sums_round_every_step():
    x = np.array([[1, 3, 3, 0], [2, 2, 2, 2]], np.int32)
    got = run_tile(x, (2,), i32, lambda b, tile: b.value("reduce", [tile], axis=1, kind="argmax"))
    assert got.tolist() == [1, 0]
    h = np.full((2, 1024), 1.0, np.float16)
    h[:, 0] = 2048  # in fp16, 2048 + 1 rounds (a tie, to even) back to 2048
    summed = run_tile(h, (2,), ir.float16, lambda b, tile: b.value("reduce", [tile], axis=1, kind="sum"))
    # The tree's first step adds element 512 to element 0 and loses that 1; every later step adds
    # an even number below 4096, exactly. Adding in fp32 and rounding once would give 3072.
    assert summed.tolist() == [3070.0] * 2


def test_reduce_to_a_scalar():
    x = np.arange(8, dtype=np.float32).reshape(1, 8)
    got = run_tile(x, (), f32, lambda b, tile: b.value("reduce", [
        b.value("reduce", [tile], axis=0, kind="sum")], axis=0, kind="sum"))
    assert got[()] == 28


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("kind", ["sum", "prod", "max", "min"])
def test_scan_along_each_axis(kind, axis, reverse):
    x = np.random.default_rng(5).uniform(0.5, 1.5, (8, 16)).astype(np.float32)
    accumulate = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}[kind].accumulate
    flip = (lambda a: np.flip(a, axis)) if reverse else (lambda a: a)
    expected = flip(accumulate(flip(x), axis=axis))
    got = run_tile(x, x.shape, f32,
                   lambda b, tile: b.value("scan", [tile], axis=axis, kind=kind, reverse=reverse))
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def dot_kernel(m, k, n, in_dtype, acc_dtype):
    def body(b, a_ptr, b_ptr, c_ptr):
        a = b.value("load", [at(b, a_ptr, grid_offsets(b, m, k, const(b, k)))])
        bt = b.value("load", [at(b, b_ptr, grid_offsets(b, k, n, const(b, n)))])
        c_offsets = grid_offsets(b, m, n, const(b, n))
        acc = b.value("load", [at(b, c_ptr, c_offsets)])
        b.create("store", [at(b, c_ptr, c_offsets),
                           b.value("dot", [a, bt, acc], input_precision="ieee")])
    return build([("a_ptr", ptr(in_dtype)), ("b_ptr", ptr(in_dtype)), ("c_ptr", ptr(acc_dtype))], body)


@pytest.mark.parametrize("in_dtype,acc_dtype", [(f32, f32), (ir.float16, f32), (ir.int8, i32)])
def test_dot_adds_the_accumulator(in_dtype, acc_dtype):
    rng = np.random.default_rng(6)
    if in_dtype.is_int():
        a, b = (rng.integers(-128, 128, s).astype(np.int8) for s in [(32, 16), (16, 64)])
        c = rng.integers(-1000, 1000, (32, 64)).astype(np.int32)
    else:
        a, b = (rng.standard_normal(s).astype(in_dtype.np) for s in [(32, 16), (16, 64)])
        c = rng.standard_normal((32, 64)).astype(np.float32)
    compute = np.int64 if in_dtype.is_int() else np.float64
    expected = a.astype(compute) @ b.astype(compute) + c
    run(dot_kernel(32, 16, 64, in_dtype, acc_dtype), (1, 1, 1), a, b, c)
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)


def matmul_kernel(block_m, block_n, block_k):
    def body(b, a_ptr, b_ptr, c_ptr, m, n, k):
        def rows(axis, size):
            start = b.value("mul", [b.value("program_id", [], axis=axis), const(b, size)])
            return b.value("add", [splat(b, start, (size,)), b.value("arange", [], start=0, end=size)])
        rm, rn, rk = rows(0, block_m), rows(1, block_n), b.value("arange", [], start=0, end=block_k)
        a_tile = at(b, a_ptr, outer(b, "add", b.value("mul", [rm, splat(b, k, (block_m,))]), rk))
        b_tile = at(b, b_ptr, outer(b, "add", b.value("mul", [rk, splat(b, n, (block_k,))]), rn))
        zero = splat(b, const(b, 0.0, f32), (block_m, block_n))
        kk, acc = ir.Value(ir.scalar(i32)), ir.Value(ir.tile((block_m, block_n), f32))
        loop = ir.Builder(ir.Block([kk, acc]))
        a = loop.value("load", [at(loop, a_tile, splat(loop, kk, (block_m, block_k)))])
        b_offset = splat(loop, loop.value("mul", [kk, n]), (block_k, block_n))
        bt = loop.value("load", [at(loop, b_tile, b_offset)])
        loop.create("yield", [loop.value("dot", [a, bt, acc], input_precision="ieee")])
        result = b.region_op("for", [const(b, 0), k, const(b, block_k), zero],
                             [zero.type], [loop.block]).result
        c_offsets = outer(b, "add", b.value("mul", [rm, splat(b, n, (block_m,))]), rn)
        b.create("store", [at(b, c_ptr, c_offsets), result])
    return build([("a_ptr", ptr(f32)), ("b_ptr", ptr(f32)), ("c_ptr", ptr(f32)),
                  ("M", i32), ("N", i32), ("K", i32)], body)


def test_blocked_matmul_is_right_and_fast():
    rng = np.random.default_rng(7)
    a, b = (rng.standard_normal((256, 256)).astype(np.float32) for _ in range(2))
    c = np.full((256, 256), np.nan, np.float32)
    fn = matmul_kernel(64, 64, 32)
    start = time.perf_counter()
    run(fn, (4, 4, 1), a, b, c, 256, 256, 256)
    elapsed = time.perf_counter() - start
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
    assert elapsed < 1.0, f"a 256^3 matmul took {elapsed:.2f} s in the interpreter"


# ---------------------------------------------------------------------------------------------------
# Control flow.
# ---------------------------------------------------------------------------------------------------

def strided_sum(start_of, stop_of, step_of):
    """out[0] = sum of x[i] for i in range(start, stop, step), a loop carrying the sum."""
    def body(b, x, out, n, stride):
        i, total = ir.Value(ir.scalar(i32)), ir.Value(ir.scalar(f32))
        loop = ir.Builder(ir.Block([i, total]))
        loop.create("yield", [loop.value("add", [total, loop.value("load", [at(loop, x, i)])])])
        bounds = [start_of(b, n, stride), stop_of(b, n, stride), step_of(b, n, stride)]
        result = b.region_op("for", [*bounds, const(b, 0.0, f32)], [ir.scalar(f32)], [loop.block])
        b.create("store", [out, result.result])
    return build([("x_ptr", ptr(f32)), ("out_ptr", ptr(f32)), ("n", i32), ("stride", i32)], body)


def test_for_loop_carries_values_forward_and_backward():
    x = np.random.default_rng(8).uniform(0, 1, 1001).astype(np.float32)
    out = np.full(1, np.nan, np.float32)
    forward = strided_sum(lambda b, n, s: const(b, 0), lambda b, n, s: n, lambda b, n, s: s)
    run(forward, (1, 1, 1), x, out, 1001, 7)
    np.testing.assert_allclose(out[0], x[0::7].sum(dtype=np.float64), rtol=1e-5)
    backward = strided_sum(lambda b, n, s: b.value("sub", [n, const(b, 1)]),
                           lambda b, n, s: const(b, -1), lambda b, n, s: b.value("neg", [s]))
    run(backward, (1, 1, 1), x, out, 1001, 3)
    np.testing.assert_allclose(out[0], x[::-3].sum(dtype=np.float64), rtol=1e-5)
    run(forward, (1, 1, 1), x, out, 0, 1)  # no iterations: the initial value comes out
    assert out[0] == 0


def test_if_else_yields_results():
    def body(b, out):
        pid = b.value("program_id", [], axis=0)
        even = b.value("cmp", [b.value("rem", [pid, const(b, 2)]), const(b, 0)], predicate="eq")
        then, otherwise = ir.Builder(), ir.Builder()
        then.create("yield", [then.value("mul", [pid, const(then, 10)])])
        otherwise.create("yield", [otherwise.value("neg", [pid])])
        result = b.region_op("if", [even], [ir.scalar(i32)], [then.block, otherwise.block]).result
        b.create("store", [at(b, out, pid), result])
    out = np.full(7, 99, np.int32)
    run(build([("out_ptr", ptr(i32))], body), (7, 1, 1), out)
    assert out.tolist() == [0, -1, 20, -3, 40, -5, 60]


def test_while_loop_runs_until_its_condition_fails():
    def body(b, out, n):
        p, steps = ir.Value(ir.scalar(i32)), ir.Value(ir.scalar(i32))
        before = ir.Builder(ir.Block([p, steps]))
        before.create("condition", [before.value("cmp", [p, n], predicate="lt"), p, steps])
        p2, steps2 = ir.Value(ir.scalar(i32)), ir.Value(ir.scalar(i32))
        after = ir.Builder(ir.Block([p2, steps2]))
        after.create("yield", [after.value("mul", [p2, const(after, 2)]),
                               after.value("add", [steps2, const(after, 1)])])
        loop = b.region_op("while", [const(b, 1), const(b, 0)], [ir.scalar(i32)] * 2,
                           [before.block, after.block])
        b.create("store", [out, loop.results[0]])
        b.create("store", [at(b, out, const(b, 1)), loop.results[1]])
    fn = build([("out_ptr", ptr(i32)), ("n", i32)], body)
    for n, expected in [(1000, [1024, 10]), (1, [1, 0]), (-5, [1, 0])]:
        out = np.full(2, -1, np.int32)
        run(fn, (1, 1, 1), out, n)
        assert out.tolist() == expected


# ---------------------------------------------------------------------------------------------------
# Atomics, print, assert.
# ---------------------------------------------------------------------------------------------------

def atomic_kernel(kind, dtype, block=128):
    """old[i] = atomic_<kind>(table + index[i], values[i]) for i < n."""
    def body(b, table, index, values, old, n):
        offsets, mask = block_offsets(b, n, block)
        where = b.value("load", [at(b, index, offsets), mask])
        value = b.value("load", [at(b, values, offsets), mask])
        previous = b.value("atomic", [at(b, table, where), value, mask], kind=kind)
        b.create("store", [at(b, old, offsets), previous, mask])
    return build([("table", ptr(dtype)), ("index", ptr(i32)), ("values", ptr(dtype)),
                  ("old", ptr(dtype)), ("n", i32)], body)


@pytest.mark.parametrize("kind,ufunc", [("add", np.add), ("max", np.maximum), ("min", np.minimum),
                                        ("xor", np.bitwise_xor)])
def test_atomics_with_duplicate_addresses_all_take_effect(kind, ufunc):
    rng = np.random.default_rng(9)
    n, bins = 300, 10
    index = rng.integers(0, bins, n).astype(np.int32)
    values = rng.integers(-50, 50, n).astype(np.int32)
    table, expected = np.full(bins, 3, np.int32), np.full(bins, 3, np.int32)
    ufunc.at(expected, index, values)
    old = np.full(n, -999, np.int32)
    run(atomic_kernel(kind, i32), (3, 1, 1), table, index, values, old, n)
    np.testing.assert_array_equal(table, expected)
    # Each lane saw the table as the lanes before it (in element order) had left it.
    replay = np.full(bins, 3, np.int32)
    for lane in range(n):
        assert old[lane] == replay[index[lane]]
        replay[index[lane]] = ufunc(replay[index[lane]], values[lane])


def test_atomic_old_values_are_tickets_and_masked_lanes_give_zero():
    def body(b, counter, out):
        offsets = b.value("arange", [], start=0, end=16)
        odd = b.value("cmp", [b.value("rem", [offsets, splat(b, const(b, 2), (16,))]),
                              splat(b, const(b, 1), (16,))], predicate="eq")
        pointers = splat(b, counter, (16,))
        tickets = b.value("atomic", [pointers, splat(b, const(b, 1.0, f32), (16,)), odd], kind="add")
        b.create("store", [at(b, out, offsets), tickets])
    counter, out = np.zeros(1, np.float32), np.full(16, np.nan, np.float32)
    run(build([("counter", ptr(f32)), ("out", ptr(f32))], body), (1, 1, 1), counter, out)
    assert out.tolist() == [0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7]
    assert counter[0] == 8


def test_atomic_cas_and_xchg():
    def body(b, lock, out):
        offsets = b.value("arange", [], start=0, end=8)
        pointers = splat(b, lock, (8,))
        old = b.value("atomic_cas", [pointers, splat(b, const(b, 0), (8,)),
                                     b.value("add", [offsets, splat(b, const(b, 1), (8,))])])
        b.create("store", [at(b, out, offsets), old])
        swapped = b.value("atomic", [lock, const(b, 42)], kind="xchg")
        b.create("store", [at(b, out, const(b, 8)), swapped])
    lock, out = np.zeros(1, np.int32), np.full(9, -1, np.int32)
    run(build([("lock", ptr(i32)), ("out", ptr(i32))], body), (1, 1, 1), lock, out)
    assert out.tolist() == [0, 1, 1, 1, 1, 1, 1, 1, 1]  # only the first lane found 0
    assert lock[0] == 42


def test_print_writes_one_line_per_element(capsys):
    def body(b, x):
        tile = b.value("load", [at(b, x, grid_offsets(b, 2, 2, const(b, 2)))])
        b.create("print", [tile], {"prefix": "x: ", "hex": False})
        b.create("print", [b.value("program_id", [], axis=0)], {"prefix": "pid: "})
        minus_one = b.value("cast", [const(b, -1)], dtype=ir.int32)
        b.create("print", [minus_one, const(b, 2.5, f32)], {"prefix": "h ", "hex": True})
    run(build([("x_ptr", ptr(f32))], body), (2, 1, 1), np.array([1, 2.5, -3, 0], np.float32))
    lines = capsys.readouterr().out.splitlines()
    assert lines[:7] == [
        "pid (0, 0, 0) idx (0, 0) x: 1.000000",
        "pid (0, 0, 0) idx (0, 1) x: 2.500000",
        "pid (0, 0, 0) idx (1, 0) x: -3.000000",
        "pid (0, 0, 0) idx (1, 1) x: 0.000000",
        "pid (0, 0, 0) idx () pid: 0",
        "pid (0, 0, 0) idx () h (operand 0) 0xffffffff",
        "pid (0, 0, 0) idx () h (operand 1) 0x40200000",
    ]
    assert lines[11] == "pid (1, 0, 0) idx () pid: 1" and len(lines) == 14


def test_assert_failure_raises_with_its_message(kernel_source):
    def body(b, n):
        offsets = b.value("arange", [], start=0, end=8)
        small = b.value("cmp", [offsets, splat(b, n, (8,))], predicate="lt")
        b.loc = Loc(kernel_source, 2, 4)
        b.create("assert", [small], {"message": "offsets must stay below n"})
    fn = build([("n", i32)], body)
    run(fn, (2, 1, 1), 8)
    with pytest.raises(InterpreterError, match=r"program \(0, 0, 0\) at element \(5,\): "
                                               r"offsets must stay below n") as caught:
        run(fn, (2, 1, 1), 5)
    assert "tl.program_id(0)" in str(caught.value)


def test_scalar_arguments_take_their_declared_dtype():
    def body(b, out, a, h):
        b.create("store", [out, b.value("add", [a, b.value("cast", [h], dtype=ir.int64)])])
    out = np.zeros(1, np.int64)
    run(build([("out", ptr(ir.int64)), ("a", ir.int64), ("h", ir.float16)], body),
        (1, 1, 1), out, 2 ** 40, 2.7)
    assert out[0] == 2 ** 40 + 2


def test_every_op_has_a_rule():
    assert set(RULES) | set(ir.TERMINATORS) == set(ir.OPS) - set(ir.BACKEND_OPS)
