"""Exercise 2.3 (a compiler piece): what a launch tells the compiler about one argument.

`specialize(name, value)` returns the facts about a runtime argument that the compiled code may
depend on: it is one part of the key under which `kernel[grid](...)` caches compiled kernels, and
what the frontend turns into argument types and attributes. The facts, as Triton has them:

- a bool is ("i1",); a float is ("fp32",);
- an int is (kind, divisible_by_16, equals_one), with kind "i32" if it fits in int32, else "i64" if
  it fits in int64, else "u64" if it fits in uint64; beyond that, raise `minitriton.LaunchError`;
- a numpy array is ("*" + element type name, address_divisible_by_16): the name is minitriton's
  (`minitriton.ir.dtype_from_numpy(array.dtype).name`, e.g. "fp32") and the address is
  `array.ctypes.data`;
- anything else raises `LaunchError`, naming the argument and its type.

Remember that `bool` is a subclass of `int` in Python.
"""
import numpy as np

from minitriton import LaunchError, ir


def specialize(name: str, value) -> tuple:
    if isinstance(value, bool):
        return ("i1",)
    if isinstance(value, int):
        if -2**31 <= value < 2**31:
            kind = "i32"
        elif -2**63 <= value < 2**63:
            kind = "i64"
        elif 0 <= value < 2**64:
            kind = "u64"
        else:
            raise LaunchError(f"argument `{name}` = {value} does not fit in 64 bits")
        return (kind, value % 16 == 0, value == 1)
    if isinstance(value, float):
        return ("fp32",)
    if isinstance(value, np.ndarray):
        return ("*" + ir.dtype_from_numpy(value.dtype).name, value.ctypes.data % 16 == 0)
    raise LaunchError(f"argument `{name}` is a {type(value).__name__}; expected an array, an int, "
                      f"a float or a bool")
