"""Tests for exercise 9.2: run with `make exercise CH=9 EX=2`."""
import ctypes

import numpy as np
import pytest
from _impl import load

impl = load("09_ptx_driver_cache/ex2_arguments")

C_TYPES = {"int1": ctypes.c_bool, "int8": ctypes.c_int8, "uint8": ctypes.c_uint8, "int16": ctypes.c_int16,
           "uint16": ctypes.c_uint16, "fp16": ctypes.c_uint16, "bf16": ctypes.c_uint16, "int32": ctypes.c_int32,
           "uint32": ctypes.c_uint32, "fp32": ctypes.c_float, "int64": ctypes.c_int64,
           "uint64": ctypes.c_uint64, "fp64": ctypes.c_double, "ptr": ctypes.c_uint64}


def c_struct(signature):
    """The same arguments as a C struct: what the C compiler (and so the kernel) lays out."""
    return type("Arguments", (ctypes.Structure,), {"_fields_": [(f"a{i}", C_TYPES[k]) for i, k in enumerate(signature)]})


def c_layout(signature):
    struct_type = c_struct(signature)
    return [getattr(struct_type, f"a{i}").offset for i in range(len(signature))], ctypes.sizeof(struct_type)


def test_vector_add():
    assert impl.argument_layout(["ptr", "ptr", "ptr", "int32"]) == ([0, 8, 16, 24], 32)


def test_padding_before_a_wider_value():
    assert impl.argument_layout(["int1", "int32", "fp16", "fp64", "int8"]) == ([0, 4, 8, 16, 24], 32)


def test_no_arguments():
    assert impl.argument_layout([]) == ([], 0)


@pytest.mark.parametrize("signature", [
    ["ptr", "ptr", "ptr", "int32"],
    ["int1", "int8", "fp16", "int64", "fp64", "ptr", "bf16", "uint32", "ptr", "fp32"],
    ["int8", "int8", "int16", "int8", "int32", "int8"],
    ["fp16", "fp16", "fp16"],
    ["int32", "ptr", "int32", "int32", "ptr", "int16"],
], ids=str)
def test_layout_is_the_c_structs(signature):
    assert impl.argument_layout(signature) == c_layout(signature)


def test_packing_matches_the_c_struct():
    signature = ["int1", "int8", "fp16", "int64", "fp64", "ptr", "bf16", "uint32", "fp32"]
    half = int(np.array(1.5, np.float16).view(np.uint16))
    values = [True, -5, 1.5, -2**40, 3.25, 0xABC000, 0x3F80, 2**32 - 1, 0.5]
    expected = c_struct(signature)(True, -5, half, -2**40, 3.25, 0xABC000, 0x3F80, 2**32 - 1, 0.5)
    assert impl.pack(signature, values) == bytes(expected)
