"""The GPU code agrees with the interpreter: the families of disagreement the differential fuzzer
found (tests/fuzz), one section each.

Each family is held three ways. The register rule that was wrong runs on the CPU through LLVM's
JIT (`host_llvm.py`) against the interpreter's answer; a kernel runs in the interpreter and, where
a GPU is here, on it (the `device` fixture: its `cuda` case is marked `gpu`), against numpy; and
where one fact of the generated code shows the fix, the CPU suite asserts it.

- int1 is unsigned, as in Triton (`tl.dtype.UINT_TYPES`): a reduction's combine step compared
  booleans with signed predicates, under which True (all ones: -1) is below False, so argmax and
  argmin of booleans picked the wrong element (fuzz seeds 39, 112, 130, 150, 189, 238, 250).
- `tl.umulhi` is the high half of the product of the operands read as unsigned, for int32 and
  int64 too (Triton's `mulhiui`, lowered to `__nv_umulhi`): the interpreter multiplied signed
  values (seeds 80, 155, 170, 230, 270).
- Float `%` is C's fmod, and fmod(x, ±inf) is x for a finite x: the GPU's x - trunc(x / y) * y
  made it 0 * inf, NaN (seed 269).
- Shifts by an amount outside [0, width) and INT_MIN // -1, which LLVM leaves poison or undefined
  (the fuzzer keeps them out of its programs): both backends follow the interpreter's rule.
- argmax/argmin over NaN: Triton's combine step (`value1 > value2`) is false for a NaN either way,
  so which index won depended on the order of the folds; the interpreter took numpy's first NaN.
  Both backends now let a NaN lose to every number, as `tl.max` (maxNum) does, and give a slice of
  NaN alone its first index.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton import interpreter, ir
from minitriton.codegen.elementwise import apply
from minitriton.codegen.movement import _combine

sys.path.insert(0, str(Path(__file__).parent))
from host_llvm import run_rule  # noqa: E402

SIGNED_INTS = [ir.int8, ir.int16, ir.int32, ir.int64]
UNSIGNED_INTS = [ir.uint8, ir.uint16, ir.uint32, ir.uint64]


def corner_values(dtype: ir.DType) -> np.ndarray:
    """Values where a signed and an unsigned reading of the bits part: the top bit set or not,
    the ends of the range, and small numbers (a few of each, so that ties are common)."""
    if dtype.is_bool():
        return np.array([False, True])
    if dtype.is_floating():
        return np.array([-np.inf, -1e30, -2.5, -0.0, 0.0, 1.0, 3e38 if dtype.bits == 32 else 1e300, np.inf], dtype.np)
    info = np.iinfo(dtype.np)
    top = 1 << (dtype.bits - 1)
    values = {0, 1, 2, info.max, info.max - 1, info.min, info.min + 1}
    values |= {top, top - 1, top + 1} if dtype.is_int_unsigned() else {-1, -2}
    return np.array(sorted(v for v in values if info.min <= v <= info.max), dtype.np)


# ------------------------------------------------------------------- argmax and argmin of int1

def _combine_reference(kind: str, va, ia, vb, ib):
    """Triton's combine of two partial (value, index) results: the better value, the lower index
    among equal ones (`_argmax_combine_tie_break_left`), compared as the values' own type."""
    better = vb > va if kind == "argmax" else vb < va
    take_b = better | ((vb == va) & (ib < ia))
    if va.dtype.kind == "f":  # a NaN loses to every number; of two NaN, the lower index wins
        take_b |= np.isnan(va) & (~np.isnan(vb) | (ib < ia))
    return np.where(take_b, vb, va), np.where(take_b, ib, ia)


@pytest.mark.parametrize("kind", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", [ir.int1, *SIGNED_INTS, *UNSIGNED_INTS, ir.float32, ir.float64], ids=str)
def test_the_combine_step_orders_values_by_their_type(kind, dtype):
    """The step that merges two partial argmax/argmin results, on every pair of corner values and
    a few index orders: True is above False, a uint32 with its top bit set above one without, a
    NaN below every number."""
    values = corner_values(dtype)
    if dtype.is_floating():
        values = np.append(values, [np.nan, np.nan])
    va, vb = (a.reshape(-1) for a in np.meshgrid(values, values))
    ia = np.tile(np.array([3, 5, 4], np.int32), len(va))[:len(va)]
    ib = np.full(len(va), 4, np.int32)
    build = lambda lw, *r: _combine(lw, kind, [dtype, ir.int32], (r[0], r[1]), (r[2], r[3]))
    got = run_rule(build, [dtype, ir.int32] * 2, [dtype, ir.int32], va, ia, vb, ib)
    want = _combine_reference(kind, va, ia, vb, ib)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize("name", ["maximum", "minimum"])
@pytest.mark.parametrize("dtype", [ir.int1, *SIGNED_INTS, *UNSIGNED_INTS], ids=str)
def test_maximum_and_minimum_order_integers_by_their_type(name, dtype):
    """`tl.maximum` and the max/min reductions' step (`tl.max(x, return_indices=True)` keeps an
    int1's type), against the interpreter's rule."""
    values = corner_values(dtype)
    a, b = (v.reshape(-1) for v in np.meshgrid(values, values))
    got = run_rule(lambda lw, x, y: [apply(lw, name, None, dtype, x, y)], [dtype] * 2, [dtype], a, b)[0]
    np.testing.assert_array_equal(got, (np.maximum if name == "maximum" else np.minimum)(a, b))


@triton.jit
def extremes_kernel(x_ptr, index_ptr, value_ptr, n, R: tl.constexpr, C: tl.constexpr, AXIS: tl.constexpr):
    """Along AXIS of an (R, C) tile: argmax, argmin, and the indices and values of max and min with
    return_indices. The programs split the other axis, whose length n the last one does not fill."""
    pid = tl.program_id(0)
    if AXIS == 1:
        rows, cols = pid * R + tl.arange(0, R)[:, None], tl.arange(0, C)[None, :]
        offs, mask = rows * C + cols, rows < n
        out = pid * R + tl.arange(0, R)
    else:
        rows, cols = tl.arange(0, R)[:, None], pid * C + tl.arange(0, C)[None, :]
        offs, mask = rows * n + cols, cols < n
        out = pid * C + tl.arange(0, C)
    x = tl.load(x_ptr + offs, mask=mask)
    vmax, imax = tl.max(x, AXIS, return_indices=True)
    vmin, imin = tl.min(x, AXIS, return_indices=True)
    tl.static_assert(vmax.dtype == x.dtype and vmin.dtype == x.dtype)
    tl.store(index_ptr + out, tl.argmax(x, AXIS), mask=out < n)
    tl.store(index_ptr + n + out, tl.argmin(x, AXIS), mask=out < n)
    tl.store(index_ptr + 2 * n + out, imax, mask=out < n)
    tl.store(index_ptr + 3 * n + out, imin, mask=out < n)
    tl.store(value_ptr + out, vmax, mask=out < n)
    tl.store(value_ptr + n + out, vmin, mask=out < n)


# (R, C, num_warps) for a reduction along axis 1, transposed for axis 0: the first folds in each
# thread, across lanes and across warps; the second in one warp. Every type takes the first; int1,
# whose combine was wrong, the second too (the other types fold through the same combine step).
SHAPES = [(4, 512, 4), (8, 16, 1)]
EXTREMES_CASES = [(dtype, SHAPES[0]) for dtype in
                  (ir.int1, ir.uint8, ir.uint32, ir.uint64, ir.int16, ir.int64, ir.float32)] + [(ir.int1, SHAPES[1])]


def _extremes_case(dtype: ir.DType, axis: int, shape, seed: int):
    R, C, num_warps = shape if axis == 1 else (shape[1], shape[0], shape[2])
    lines = 3 * (R if axis == 1 else C) - 3  # the last program's tile is not full
    length = C if axis == 1 else R
    rng = np.random.default_rng(seed)
    data = rng.choice(corner_values(dtype), (lines, length))
    data[0], data[1] = data[0, 0], data[1, 0]  # lines of one value: the first index wins
    data[2] = data[2].min()
    data[3, :] = 0
    data[3, length - 1] = 1  # the one larger value at the end of a line
    x = data if axis == 1 else np.ascontiguousarray(data.T)
    return x, lines, R, C, num_warps


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype, shape", EXTREMES_CASES, ids=[f"{d}-{s[2]}warps" for d, s in EXTREMES_CASES])
def test_argmax_and_argmin_along_each_axis(dtype, shape, axis, device):
    x, lines, R, C, num_warps = _extremes_case(dtype, axis, shape, seed=11)
    index = device.array(np.full(4 * lines, -7, np.int32))
    value = device.array(np.full(2 * lines, x.reshape(-1)[5], dtype.np))
    grid = (3,)
    extremes_kernel[grid](device.array(x), index, value, lines, R=R, C=C, AXIS=axis, num_warps=num_warps)
    got, values = device.numpy(index).reshape(4, lines), device.numpy(value).reshape(2, lines)
    for k, want in enumerate([x.argmax(axis), x.argmin(axis), x.argmax(axis), x.argmin(axis)]):
        np.testing.assert_array_equal(got[k], want, err_msg=["argmax", "argmin", "max", "min"][k])
    np.testing.assert_array_equal(values[0], x.max(axis))
    np.testing.assert_array_equal(values[1], x.min(axis))


@pytest.mark.parametrize("axis", [0, 1])
def test_no_signed_predicate_compares_booleans(axis):
    """The compiled argmax/argmin of int1 compare with unsigned predicates (`icmp ugt i1`), never
    signed ones, under which True would be below False."""
    x, lines, R, C, num_warps = _extremes_case(ir.int1, axis, SHAPES[0], seed=0)
    llir = extremes_kernel.warmup(x, np.zeros(4 * lines, np.int32), np.zeros(2 * lines, np.bool_), lines, R=R, C=C,
                                  AXIS=axis, num_warps=num_warps, grid=(3,), target="sm_90a").asm["llir"]
    assert re.search(r"icmp u[gl]t i1 ", llir)
    assert not re.search(r"icmp s[gl][te] i1 ", llir)


# ------------------------------------------------------------------------ argmax and argmin over NaN

def _nan_losing_index(line: np.ndarray, kind: str) -> int:
    """The rule, one line at a time: the first index of the extremum of the numbers; 0 if none."""
    numbers = [i for i, v in enumerate(line) if not np.isnan(v)]
    if not numbers:
        return 0
    pick = max if kind == "argmax" else min
    best = pick(float(line[i]) for i in numbers)
    return next(i for i in numbers if float(line[i]) == best)


NAN_TYPES = [ir.float32, ir.float16, ir.float64]


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", NAN_TYPES, ids=str)
def test_argmax_and_argmin_over_nan_along_each_axis(dtype, axis, device):
    """Lines with NaN first, last, alone, beside an infinity of the same side, and at random places,
    folded in threads, across lanes and across warps; the values of max/min with their indices
    are the extremes of the numbers (NaN for a line of NaN)."""
    length, rng = 512, np.random.default_rng(5)
    data = rng.integers(-40, 40, (61, length)).astype(np.float32)
    data[rng.random(data.shape) < 0.2] = np.nan
    data[0, :] = np.nan
    data[1, 0], data[2, -1] = np.nan, np.nan
    data[3, :], data[3, 7], data[3, 300] = -np.inf, np.nan, np.nan  # -inf beats NaN for argmax
    data[4, :], data[4, 9] = np.inf, np.nan
    data[5, :], data[5, 200:] = np.nan, 3.0
    x = data.astype(dtype.np)
    if axis == 0:
        x = np.ascontiguousarray(x.T)
    lines, R, C = 61, (4 if axis == 1 else length), (length if axis == 1 else 4)
    index = device.array(np.full(4 * lines, -7, np.int32))
    value = device.array(np.full(2 * lines, 99, x.dtype))
    extremes_kernel[(16,)](device.array(x), index, value, lines, R=R, C=C, AXIS=axis, num_warps=4)
    got, values = device.numpy(index).reshape(4, lines), device.numpy(value).reshape(2, lines)
    lines_of = x if axis == 1 else x.T
    for k, kind in enumerate(["argmax", "argmin", "argmax", "argmin"]):
        want = [_nan_losing_index(line, kind) for line in lines_of]
        np.testing.assert_array_equal(got[k], want, err_msg=f"{kind} (result {k})")
    for k, kind in enumerate(["argmax", "argmin"]):
        want = [line[_nan_losing_index(line, kind)] for line in lines_of]
        np.testing.assert_array_equal(values[k], np.array(want, x.dtype), err_msg=kind)


# ------------------------------------------------------------------------------------- umulhi

def _umulhi_reference(a: np.ndarray, b: np.ndarray, dtype: ir.DType) -> np.ndarray:
    bits = dtype.bits
    high = [((int(x) % (1 << bits)) * (int(y) % (1 << bits))) >> bits for x, y in zip(a, b)]
    return np.array(high, np.uint64).astype(f"uint{bits}").view(dtype.np)


UMULHI_TYPES = [ir.int32, ir.int64, ir.uint32, ir.uint64]


@pytest.mark.parametrize("dtype", UMULHI_TYPES, ids=str)
def test_umulhi_reads_both_operands_as_unsigned_in_both_backends(dtype):
    """The interpreter's rule and the GPU's register rule (`mul.hi.u32` / `mul.hi.u64`) agree."""
    values = corner_values(dtype)
    a, b = (v.reshape(-1) for v in np.meshgrid(values, values))
    want = _umulhi_reference(a, b, dtype)
    np.testing.assert_array_equal(interpreter._umulhi(a, b), want)
    got = run_rule(lambda lw, x, y: [apply(lw, "umulhi", None, dtype, x, y)], [dtype] * 2, [dtype], a, b)[0]
    np.testing.assert_array_equal(got, want)


@triton.jit
def umulhi_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.umulhi(tl.load(x_ptr + offs, mask=mask), tl.load(y_ptr + offs, mask=mask)),
             mask=mask)


@pytest.mark.parametrize("dtype", UMULHI_TYPES, ids=str)
def test_umulhi_of_negative_numbers(dtype, device):
    info = np.iinfo(dtype.np)
    rng = np.random.default_rng(dtype.bits)
    n = 300
    x, y = (rng.integers(info.min, info.max, n, dtype.np, endpoint=True) for _ in range(2))
    x[:4], y[:4] = [-7, -1, 3, 1000] if dtype.is_int_signed() else [7, 1, 3, 1000], [-7, -1, -1, -1] \
        if dtype.is_int_signed() else [7, 1, info.max, info.max]
    out = device.array(np.full(n, 5, dtype.np))
    umulhi_kernel[(3,)](device.array(x), device.array(y), out, n, BLOCK=128)
    np.testing.assert_array_equal(device.numpy(out), _umulhi_reference(x, y, dtype))


def test_umulhi_compiles_to_the_unsigned_high_multiply():
    for dtype in UMULHI_TYPES:
        x = np.zeros(8, dtype.np)
        ptx = umulhi_kernel.warmup(x, x, x, 8, BLOCK=8, grid=(1,), target="sm_90a").asm["ptx"]
        assert f"mul.hi.u{dtype.bits}" in ptx and "mul.hi.s" not in ptx, dtype


@pytest.mark.parametrize("name", ["int8", "int16", "uint16", "int1", "fp32"])
def test_umulhi_takes_only_tritons_four_types(name):
    x = np.zeros(8, np.dtype(ir.dtype_named(name).np))
    with pytest.raises(triton.CompilationError, match=r"Expected dtype \['int32', 'int64', 'uint32', 'uint64'\]"):
        umulhi_kernel.warmup(x, np.zeros(8, np.int32), np.zeros(8, np.int32), 8, BLOCK=8, grid=(1,), target="sm_90a")


# ----------------------------------------------------------------------------- fmod by infinity

SPECIALS = [0.0, -0.0, 1.0, -1.0, 2.5, -7.25, 1275.0, 3.0e-3, np.inf, -np.inf, np.nan]


def _fmod_pairs(dtype: np.dtype):
    x, y = (v.reshape(-1) for v in np.meshgrid(np.array(SPECIALS, dtype), np.array(SPECIALS, dtype)))
    return x, y


@pytest.mark.parametrize("dtype", [ir.float32, ir.float64], ids=str)
def test_the_remainder_rule_is_fmod_at_every_special_value(dtype):
    """Every pair of zeros, infinities, NaN and finite numbers: an infinite divisor gives the
    dividend, a zero divisor or an infinite dividend NaN, as C's fmod (the interpreter's rule)."""
    x, y = _fmod_pairs(dtype.np)
    got = run_rule(lambda lw, a, b: [apply(lw, "rem", None, dtype, a, b)], [dtype] * 2, [dtype], x, y)[0]
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(got, np.fmod(x, y))


@triton.jit
def remainder_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) % tl.load(y_ptr + offs, mask=mask), mask=mask)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float_remainder_by_an_infinity_is_the_dividend(dtype, device):
    x, y = _fmod_pairs(dtype)
    rng = np.random.default_rng(3)
    x = np.concatenate([x, rng.uniform(-2000, 2000, 100).astype(dtype)])
    y = np.concatenate([y, rng.choice([np.inf, -np.inf, 3.5, -0.75], 100).astype(dtype)])
    out = device.array(np.full(len(x), 99, dtype))
    remainder_kernel[(2,)](device.array(x), device.array(y), out, len(x), BLOCK=128)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(device.numpy(out), np.fmod(x, y))


# ------------------------------------------------------------- shifts past the width, INT_MIN // -1
# Triton 3.6 leaves these to LLVM, which makes a shift by the width or more poison and INT_MIN // -1
# undefined. minitriton's rule is its interpreter's, which is numpy's and so Triton's interpreter's
# (PTX's shifts clamp the same way): a shift by an amount outside [0, width) leaves 0, or copies of
# the sign bit for an arithmetic `>>`; INT_MIN // -1 wraps to INT_MIN and INT_MIN % -1 is 0 (as x //
# 0 and x % 0 are 0: tests/test_kernel_errors.py). Codegen guards the amounts and divisors it does
# not know to be safe.

def _wrap(value: int, dtype: ir.DType) -> int:
    value %= 1 << dtype.bits
    return value - (1 << dtype.bits) if dtype.is_int_signed() and value >> (dtype.bits - 1) else value


def _shift_reference(x: int, amount: int, dtype: ir.DType, left: bool) -> int:
    if 0 <= amount < dtype.bits:
        return _wrap(x << amount, dtype) if left else x >> amount  # Python's >> of a negative is arithmetic
    return 0 if left or x >= 0 else -1


def _division_reference(x: int, y: int, dtype: ir.DType, remainder: bool) -> int:
    if y == 0:
        return 0
    quotient = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)  # toward zero, as C
    return _wrap(x - quotient * y if remainder else quotient, dtype)


def _amounts(dtype: ir.DType) -> np.ndarray:
    bits, info = dtype.bits, np.iinfo(dtype.np)
    amounts = {0, 1, bits - 1, bits, bits + 1, 2 * bits, info.max}
    amounts |= {-1, info.min} if dtype.is_int_signed() else set()
    amounts |= {1 << 32, (1 << 32) + 1} if bits == 64 else set()  # out of range, but not their low 32 bits
    return np.array(sorted(a for a in amounts if info.min <= a <= info.max), dtype.np)


@pytest.mark.parametrize("name", ["shl", "shr"])
@pytest.mark.parametrize("dtype", SIGNED_INTS + UNSIGNED_INTS, ids=str)
def test_the_shift_rules_are_defined_for_every_amount(name, dtype):
    x, amount = (v.reshape(-1) for v in np.meshgrid(corner_values(dtype), _amounts(dtype)))
    got = run_rule(lambda lw, a, s: [apply(lw, name, None, dtype, a, s)], [dtype] * 2, [dtype], x, amount)[0]
    want = [_shift_reference(int(a), int(s), dtype, name == "shl") for a, s in zip(x, amount)]
    np.testing.assert_array_equal(got, np.array(want, dtype.np))


@pytest.mark.parametrize("name", ["div", "rem"])
@pytest.mark.parametrize("dtype", SIGNED_INTS + UNSIGNED_INTS, ids=str)
def test_the_division_rules_are_defined_for_every_divisor(name, dtype):
    """Every pair of corner values: x // 0 and x % 0 are 0, INT_MIN // -1 is INT_MIN, INT_MIN % -1
    is 0. (On x86, an unguarded INT_MIN / -1 traps: the rule runs in a child process.)"""
    x, y = (v.reshape(-1) for v in np.meshgrid(corner_values(dtype), corner_values(dtype)))
    got = run_rule(lambda lw, a, b: [apply(lw, name, None, dtype, a, b)], [dtype] * 2, [dtype], x, y)[0]
    want = [_division_reference(int(a), int(b), dtype, name == "rem") for a, b in zip(x, y)]
    np.testing.assert_array_equal(got, np.array(want, dtype.np))


@triton.jit
def integer_edges_kernel(x_ptr, s_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x, s = tl.load(x_ptr + offs, mask=mask), tl.load(s_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x << s, mask=mask)
    tl.store(out_ptr + n + offs, x >> s, mask=mask)
    tl.store(out_ptr + 2 * n + offs, x // s, mask=mask)
    tl.store(out_ptr + 3 * n + offs, x % s, mask=mask)


@pytest.mark.parametrize("dtype", [ir.int8, ir.int32, ir.uint32, ir.int64, ir.uint16], ids=str)
def test_shifts_and_divisions_at_their_edges(dtype, device):
    amounts = np.concatenate([_amounts(dtype), corner_values(dtype)])
    x, s = (v.reshape(-1) for v in np.meshgrid(corner_values(dtype), amounts))
    n = len(x)
    out = device.array(np.full(4 * n, 3, dtype.np))
    integer_edges_kernel[(triton.cdiv(n, 64),)](device.array(x), device.array(s), out, n, BLOCK=64)
    got = device.numpy(out).reshape(4, n)
    pairs = list(zip(x.tolist(), s.tolist()))
    for k, want in enumerate([[_shift_reference(a, b, dtype, True) for a, b in pairs],
                              [_shift_reference(a, b, dtype, False) for a, b in pairs],
                              [_division_reference(a, b, dtype, False) for a, b in pairs],
                              [_division_reference(a, b, dtype, True) for a, b in pairs]]):
        np.testing.assert_array_equal(got[k], np.array(want, dtype.np), err_msg=["<<", ">>", "//", "%"][k])


def test_a_64_bit_shift_checks_every_bit_of_its_amount():
    """LLVM's NVPTX backend folds `select(amount < 64, x << amount, 0)` into one `shl.b64`, whose
    amount PTX reads as 32 bits (2**32 + 1 would shift by 1): with the amount masked into range,
    the check of all 64 bits and the select stay in the PTX."""
    x = np.zeros(8, np.int64)
    ptx = integer_edges_kernel.warmup(x, x, np.zeros(32, np.int64), 8, BLOCK=8, grid=(1,), target="sm_90a").asm["ptx"]
    in_range = re.search(r"setp\.lt\.u64\s+(%p\d+), %rd\d+, 64;", ptx)
    assert in_range and re.search(rf"selp\.b64\s+%rd\d+, %rd\d+, 0, {in_range.group(1)};", ptx), ptx


# --- a multiply and an add: one fma, in both backends -------------------------------------------

@triton.jit
def multiply_add_kernel(a_ptr, b_ptr, c_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a, b, c = tl.load(a_ptr + offs, mask=mask), tl.load(b_ptr + offs, mask=mask), tl.load(c_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * b + c, mask=mask)
    tl.store(out_ptr + n + offs, a * b - c, mask=mask)
    tl.store(out_ptr + 2 * n + offs, c - a * b, mask=mask)
    tl.store(out_ptr + 3 * n + offs, a * b, mask=mask)  # the product itself, rounded


def _fused_and_unfused(n: int):
    """Products whose rounding the sums expose: c cancels most of a * b, so what a separate
    multiply rounds away is most of the answer."""
    rng = np.random.default_rng(3)
    a = (1 + rng.integers(1, 2**12, n) * 2.0**-12).astype(np.float32)
    b = (1 + rng.integers(1, 2**12, n) * 2.0**-12).astype(np.float32)
    c = -(a.astype(np.float64) * b).astype(np.float32)
    return a, b, c


@pytest.mark.parametrize("fusion", [True, False])
def test_a_multiply_and_an_add_are_one_fma_in_both_backends(fusion, device):
    """With `enable_fp_fusion` (Triton's default) `a * b + c` is rounded once, on the GPU and in
    the interpreter alike, bit for bit; without it, the product is rounded first. The product,
    read by the adds and by a store, is still stored rounded."""
    n = 1000
    a, b, c = _fused_and_unfused(n)
    out = device.array(np.full(4 * n, np.nan, np.float32))
    multiply_add_kernel[(8,)](device.array(a), device.array(b), device.array(c), out, n, BLOCK=128,
                              enable_fp_fusion=fusion)
    got = device.numpy(out).reshape(4, n)
    exact = a.astype(np.float64) * b  # exact: two 24-bit significands
    product = exact.astype(np.float32)
    one_rounding = [(exact + c).astype(np.float32), (exact - c).astype(np.float32), (c - exact).astype(np.float32)]
    two_roundings = [product + c, product - c, c - product]
    # here every exact sum fits in float64, so rounding it once to fp32 is the fma's answer
    for row, want in enumerate(one_rounding if fusion else two_roundings):
        np.testing.assert_array_equal(got[row], want)
    assert (got[0] != product + c).sum() > n // 4 if fusion else True  # the case is not vacuous
    np.testing.assert_array_equal(got[3], product)


def test_the_interpreters_fma_is_rounded_once():
    """`tl.fma` and a fused multiply-add in the interpreter: the float64 sum rounded to odd, then
    to fp32, is correctly rounded, where rounding the float64 sum to nearest first is not."""
    from fractions import Fraction
    from minitriton.interpreter import _fma
    a = np.float32(1 + 2**-12)  # a * a = 1 + 2**-11 + 2**-24: its last bit is half an fp32 ulp
    tiny = np.float32(2.0**-80)
    assert _fma(a, a, tiny) == np.float32(1 + 2**-11 + 2**-23)  # just above the tie: up
    assert np.float32(np.float64(a) * a + tiny) == np.float32(1 + 2**-11)  # double rounding: down
    assert _fma(a, a, -tiny) == np.float32(1 + 2**-11) and _fma(-a, a, -tiny) == -np.float32(1 + 2**-11 + 2**-23)
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal(3000) * 2.0 ** rng.integers(-20, 20, 3000)).astype(np.float32), \
        rng.standard_normal(3000).astype(np.float32)
    z = np.where(rng.random(3000) < 0.5, -(x.astype(np.float64) * y), rng.standard_normal(3000)).astype(np.float32)
    got = _fma(x, y, z)
    for g, u, v, w in zip(got, x, y, z):
        exact = Fraction(float(u)) * Fraction(float(v)) + Fraction(float(w))
        below, above = (np.nextafter(g, np.float32(d)) for d in (-np.inf, np.inf))
        assert abs(Fraction(float(g)) - exact) <= min(abs(Fraction(float(below)) - exact), abs(Fraction(float(above)) - exact))


def test_simplify_fuses_a_product_read_by_one_add_alone():
    @triton.jit
    def kernel(x_ptr, out_ptr, h_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs)
        tl.store(out_ptr + offs, x * 3.0 - x)
        tl.store(out_ptr + BLOCK + offs, (x + 1.0) * x + x * x)  # two products, one add: one fma
        h = tl.load(h_ptr + offs)
        tl.store(h_ptr + offs, h * h + h)  # fp16: not fused
        tl.store(x_ptr + offs, (offs * 3 + 1).to(tl.float32))  # integers: not fused

    x, h = np.ones(64, np.float32), np.ones(64, np.float16)
    fused = kernel.warmup(x, x, h, BLOCK=64, grid=(1,), target="sm_90a").asm["ttir"]
    unfused = kernel.warmup(x, x, h, BLOCK=64, grid=(1,), target="sm_90a", enable_fp_fusion=False).asm["ttir"]
    assert fused.count("= fma ") == 2 and fused.count("= neg ") == 1 and fused.count("= mul ") == 3
    assert "= fma " not in unfused and unfused.count("= mul ") == 5


# --- a conversion bigger than a round of shared memory ------------------------------------------

@triton.jit
def lower_triangle_kernel(x_ptr, out_ptr, L, stride, ROWS: tl.constexpr, COLS: tl.constexpr):
    """The load's mask changes every element (no vector loads), the store's every row (vectors of
    4): the tile changes layout between them, through shared memory."""
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    inside = (rows[:, None] < L) & (cols[None, :] < L)
    offs = rows[:, None] * stride + cols[None, :]
    x = tl.load(x_ptr + offs, mask=inside & (cols[None, :] <= rows[:, None]), other=-1.0)
    tl.store(out_ptr + offs, x, mask=inside)


@pytest.mark.parametrize("rows, warps", [(128, 8), (256, 4), (32, 4)])
def test_a_conversion_bigger_than_a_round_goes_in_bands_of_rows(rows, warps, device):
    """A 128 x 256 or 256 x 256 fp32 tile (128 or 256 KB) converts in bands of at most 64 KB, so
    it fits where the whole tile would not (a Liger kernel's causal mask); every element arrives,
    on the GPU as in the interpreter. 32 rows (32 KB) convert at once."""
    from minitriton.passes.geometry import ROUND_BYTES
    cols, n = 256, min(256, 2 * rows) - 16  # an n x n matrix (n a multiple of 16), rows 256 floats apart
    x = np.random.default_rng(5).standard_normal((2 * rows, cols)).astype(np.float32)
    out = device.array(np.full((2 * rows, cols), np.nan, np.float32))
    lower_triangle_kernel[(2,)](device.array(x), out, n, cols, ROWS=rows, COLS=cols, num_warps=warps)
    r, c = np.indices(x.shape)
    want = np.where((r < n) & (c < n), np.where(c <= r, x, -1.0), np.nan)
    np.testing.assert_array_equal(device.numpy(out), want)
    compiled = lower_triangle_kernel.warmup(x, x, n, cols, ROWS=rows, COLS=cols, num_warps=warps, grid=(1,),
                                            target="sm_90a")
    assert "convert_layout" in compiled.asm["layout"]
    assert compiled.metadata.shared_bytes <= ROUND_BYTES


# --- vector atomic adds ---------------------------------------------------------------------------

@triton.jit
def embedding_grad_kernel(grad_ptr, table_ptr, rows_ptr, old_ptr, n_rows, WIDTH: tl.constexpr,
                          ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    c = tl.program_id(1) * COLS + tl.arange(0, COLS)
    inside = (r[:, None] < n_rows) & (c[None, :] < WIDTH)
    grad = tl.load(grad_ptr + r[:, None] * WIDTH + c[None, :], mask=inside, other=0.0)
    rows = tl.load(rows_ptr + r, mask=r < n_rows, other=0)
    old = tl.atomic_add(table_ptr + rows[:, None] * WIDTH + c[None, :], grad, mask=inside)
    tl.store(old_ptr + r[:, None] * WIDTH + c[None, :], old, mask=inside)


@pytest.mark.parametrize("dtype", [ir.float32, ir.float16, ir.bfloat16], ids=str)
@pytest.mark.parametrize("duplicates", [False, True])
@pytest.mark.no_gpu_diff  # with duplicate rows, which old value each add returns is the order's
def test_vector_atomic_adds_add_every_element_and_return_the_old_ones(dtype, duplicates, device):
    """Rows of small integers (exact in every float type, in any order of addition) added into
    table rows, 8 bf16 or 4 fp32 an instruction on Hopper: every element lands; masked-off rows
    and columns are untouched; without duplicate rows each old value is the table's."""
    rng = np.random.default_rng(11)
    n_rows, width = 45, 256 - 16  # the last program's rows and the last columns are masked
    np_type = np.float32 if dtype == ir.float32 else np.float16
    grad = rng.integers(-3, 4, (n_rows, width)).astype(np_type)
    rows = rng.permutation(60)[:n_rows] if not duplicates else rng.integers(0, 8, n_rows)
    table = rng.integers(-8, 8, (60, width)).astype(np_type)
    wrap = (lambda a: triton.reinterpret(device.array(_bf16_bits(a)), tl.bfloat16)) if dtype == ir.bfloat16 \
        else device.array
    t, old = wrap(table.copy()), wrap(np.full((n_rows, width), 99, np_type))
    embedding_grad_kernel[(2, 2)](wrap(grad), t, device.array(rows.astype(np.int64)), old, n_rows,
                                  WIDTH=width, ROWS=32, COLS=128)
    got = device.numpy(t.base if dtype == ir.bfloat16 else t)
    got = _from_bf16_bits(got) if dtype == ir.bfloat16 else got.astype(np.float32)
    want = table.astype(np.float32)
    np.add.at(want, rows, grad.astype(np.float32))
    np.testing.assert_array_equal(got, want)
    if not duplicates:
        olds = device.numpy(old.base if dtype == ir.bfloat16 else old)
        olds = _from_bf16_bits(olds) if dtype == ir.bfloat16 else olds.astype(np.float32)
        np.testing.assert_array_equal(olds, table.astype(np.float32)[rows])


def _bf16_bits(a: np.ndarray) -> np.ndarray:
    return (a.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def _from_bf16_bits(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


# --- |x| of the most negative int16 --------------------------------------------------------------

@triton.jit
def abs_then_divide_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    a = tl.abs(x)
    tl.store(out_ptr + offs, a // tl.where(a == 0, 1, a), mask=offs < n)
    tl.store(out_ptr + n + offs, a, mask=offs < n)
    tl.store(out_ptr + 2 * n + offs, (a < 0).to(x.dtype), mask=offs < n)


@pytest.mark.parametrize("dtype", [ir.int8, ir.int16, ir.int32, ir.int64], ids=str)
def test_the_absolute_value_of_the_most_negative_integer_is_itself_everywhere(dtype, device):
    """|INT_MIN| wraps to INT_MIN, and every later op sees that value. For int16 the GPU's
    `abs.s16` kept +32768 in its register, so `abs(x) // abs(x)` was -1 there (fuzz seed 2055)."""
    x = corner_values(dtype)
    n = len(x)
    out = device.array(np.full(3 * n, 7, dtype.np))
    abs_then_divide_kernel[(1,)](device.array(x), out, n, BLOCK=triton.next_power_of_2(n))
    wide = np.abs(x.astype(np.int64))
    a = wide.astype(dtype.np)  # wraps at INT_MIN
    want = np.concatenate([np.ones(n, dtype.np) * (a != 0), a, (a < 0).astype(dtype.np)])
    np.testing.assert_array_equal(device.numpy(out), want)
