"""Tests for exercise 2.3: run with `make exercise CH=2 EX=3`."""
import numpy as np
import pytest
from _impl import load

from minitriton import LaunchError

impl = load("02_frontend/ex3_specialize")


def aligned(n: int, dtype) -> np.ndarray:
    """An array whose address is a multiple of 16."""
    dtype = np.dtype(dtype)
    raw = np.zeros(n * dtype.itemsize + 16, np.uint8)
    start = -raw.ctypes.data % 16
    return raw[start:start + n * dtype.itemsize].view(dtype)


@pytest.mark.parametrize("value, expected", [
    (5, ("i32", False, False)), (32, ("i32", True, False)), (1, ("i32", False, True)),
    (0, ("i32", True, False)), (-16, ("i32", True, False)), (2**31 - 1, ("i32", False, False)),
    (-2**31, ("i32", True, False)), (2**31, ("i64", True, False)), (-2**31 - 1, ("i64", False, False)),
    (2**63 - 1, ("i64", False, False)), (2**63, ("u64", True, False)), (2**64 - 1, ("u64", False, False)),
])
def test_integers(value, expected):
    assert impl.specialize("n", value) == expected


def test_bools_and_floats():
    assert impl.specialize("flag", True) == ("i1",)
    assert impl.specialize("flag", False) == ("i1",)
    assert impl.specialize("eps", 1e-5) == ("fp32",)
    assert impl.specialize("eps", 16.0) == ("fp32",)


@pytest.mark.parametrize("dtype, name", [(np.float32, "*fp32"), (np.float16, "*fp16"), (np.int64, "*int64"),
                                         (np.uint8, "*uint8"), (np.bool_, "*int1")])
def test_aligned_arrays(dtype, name):
    assert impl.specialize("x", aligned(8, dtype)) == (name, True)


def test_misaligned_array():
    x = aligned(8, np.float32)[1:]  # 4 bytes past a multiple of 16
    assert impl.specialize("x", x) == ("*fp32", False)
    assert impl.specialize("x", aligned(8, np.float32)[4:]) == ("*fp32", True)


@pytest.mark.parametrize("value", [2**64, -2**63 - 1])
def test_integers_beyond_64_bits(value):
    with pytest.raises(LaunchError, match="n"):
        impl.specialize("n", value)


@pytest.mark.parametrize("value", [[1.0, 2.0], "x", None])
def test_other_values_are_launch_errors(value):
    with pytest.raises(LaunchError, match="x_ptr"):
        impl.specialize("x_ptr", value)
