"""The dtype table is consistent, and every stage rounds a bf16 the same way (floats.bf16_bits).

A bf16 value reaches a kernel three ways: as a constant in the kernel (codegen writes its bits
into the LLVM IR; the interpreter computes with it), and as a scalar argument (the driver packs its
bits). All of them call `floats.bf16_bits`; these tests hold each stage to it on many values, ties
and values that a double rounding (through float32) would get wrong included.
"""
import struct

import numpy as np
import pytest

import minitriton.language as tl
from minitriton import ir, launcher
from minitriton.codegen.lowering import LLVM_TYPES, const
from minitriton.dtypes import FACTS, POINTER_FACTS, TABLE, dtype_of_signature, dtype_of_typestr
from minitriton.floats import bf16_bits, round_to_bf16
from minitriton.interpreter import Memory, interpret


# ----------------------------------------------------------------------------- the table

@pytest.mark.parametrize("row", TABLE, ids=lambda row: row.dtype.name)
def test_each_row_agrees_with_itself(row):
    dtype = row.dtype
    assert struct.calcsize(row.struct) == dtype.itemsize  # a parameter is packed at its width
    assert row.storage.itemsize == dtype.itemsize  # memory holds it at its width
    if row.typestr is not None:
        assert np.dtype(row.typestr).itemsize == dtype.itemsize
        assert dtype_of_typestr(row.typestr) is dtype
    assert dtype_of_signature(row.signature) is dtype
    assert getattr(tl, row.language) is dtype  # tl.float16 is the table's fp16
    assert row.llvm in LLVM_TYPES
    assert dtype.np == row.numpy and dtype.storage == row.storage


def test_pointers_are_addresses():
    pointer = ir.pointer_type(ir.float16)
    assert pointer.facts is POINTER_FACTS and pointer.np == np.int64 and pointer.signature == "*fp16"
    assert dtype_of_signature("*fp16") == pointer
    assert set(FACTS) == set(ir.SCALAR_DTYPES)


# ----------------------------------------------------------------------------- bf16 rounding

@pytest.mark.parametrize("value, bits", [
    (1.0, 0x3F80), (-2.0, 0xC000), (0.0, 0x0000), (-0.0, 0x8000), (0.1, 0x3DCD),
    (1 + 2**-8, 0x3F80),  # halfway between 1 and 1 + 2**-7: ties go to the even neighbour
    (1 + 3 * 2**-8, 0x3F82),  # halfway, and the even neighbour is the upper one
    (1 + 2**-8 + 2**-40, 0x3F81),  # just above the tie: float32 would round it onto the tie first
    (3.39e38, 0x7F7F), (3.4e38, 0x7F80),  # bf16's largest, and past it by more than half an ulp
    (float("inf"), 0x7F80), (float("-inf"), 0xFF80), (float("nan"), 0x7FFF),
])
def test_bf16_rounds_once_to_nearest_even(value, bits):
    assert int(bf16_bits(value)) == bits


def test_bf16_of_float32_agrees_with_exact_rounding():
    """On random float32 bit patterns, the nearest bf16 (ties to even) computed exactly."""
    rng = np.random.default_rng(0)
    values = rng.integers(0, 2**32, 20_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    values = values[np.abs(values) < 2**127]  # finite, and not next to infinity (listed above)
    got = bf16_bits(values).astype(np.uint32) << 16
    below = (values.view(np.uint32) >> 16) << 16  # truncated toward zero: the lower neighbour
    above = below + (1 << 16)
    low_gap = np.abs(values.astype(np.float64) - below.view(np.float32).astype(np.float64))
    high_gap = np.abs(above.view(np.float32).astype(np.float64) - values.astype(np.float64))
    even_low = (below >> 16) & 1 == 0
    expected = np.where((low_gap < high_gap) | ((low_gap == high_gap) & even_low), below, above)
    np.testing.assert_array_equal(got, expected.astype(np.uint32))
    np.testing.assert_array_equal(round_to_bf16(values).view(np.uint32), got)


def many_values() -> list[float]:
    """Values to hold the stages to: random doubles and floats, every tie near 1, and the edges."""
    rng = np.random.default_rng(1)
    values = list(rng.normal(0, 3, 200)) + list(rng.normal(0, 1e30, 20)) + list(rng.normal(0, 1e-30, 20))
    values += [1 + k * 2**-8 for k in range(1, 16, 2)]  # the ties between consecutive bf16 near 1
    values += [1 + k * 2**-8 + 2**-40 for k in range(1, 16, 2)]  # just past each tie
    values += [0.1, -0.1, 1 / 3, 65504.0, 3.4e38, -3.4e38, 1e-40, 0.0, -0.0, float("inf"), float("-inf")]
    return [float(v) for v in values]


def bf16_constant_kernel(values: list[float]) -> ir.Function:
    """out[i] = values[i] as bf16 constants, stored one by one."""
    out = ir.Value(ir.scalar(ir.pointer_type(ir.bfloat16)), name="out")
    b = ir.Builder()
    for i, v in enumerate(values):
        pointer = b.value("addptr", [out, b.constant(i, ir.int32)])
        b.create("store", [pointer, b.constant(v, ir.bfloat16)])
    return ir.Function("bf16_constants", [out], b.block)


def test_the_interpreter_the_driver_and_codegen_round_a_bf16_alike():
    values = many_values()
    expected = [int(bf16_bits(v)) for v in values]
    # the interpreter: constants stored to memory, read back as bits
    stored = np.zeros(len(values), np.uint16)
    memory = Memory()
    interpret(bf16_constant_kernel(values), (1, 1, 1), [memory.add(stored, "out")], memory)
    assert stored.tolist() == expected
    # codegen: the register a constant becomes
    assert [const(ir.bfloat16, v).constant for v in values] == expected
    # the driver: a bf16 scalar parameter
    assert [launcher._convert("bf16", v) for v in values] == expected
