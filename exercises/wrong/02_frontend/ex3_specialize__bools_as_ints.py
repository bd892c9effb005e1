"""Exercise 2.3, wrong on purpose: ints are tested before bools, and a bool is an int in Python,
so True specializes as ("i32", False, True).

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/02_frontend/ex3_specialize.py.
"""
import numpy as np

from minitriton import LaunchError, ir


def specialize(name: str, value) -> tuple:
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
    if isinstance(value, bool):
        return ("i1",)
    if isinstance(value, float):
        return ("fp32",)
    if isinstance(value, np.ndarray):
        return ("*" + ir.dtype_from_numpy(value.dtype).name, value.ctypes.data % 16 == 0)
    raise LaunchError(f"argument `{name}` is a {type(value).__name__}; expected an array, an int, "
                      f"a float or a bool")
