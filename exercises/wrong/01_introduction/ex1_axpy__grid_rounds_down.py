"""Exercise 1.1, wrong on purpose: the host launches n // block programs, so the tail is never computed.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/01_introduction/ex1_axpy.py.
"""
import numpy as np

import minitriton as triton
import minitriton.language as tl


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, alpha * x + y, mask=mask)


def axpy(alpha: float, x: np.ndarray, y: np.ndarray, block: int = 128) -> np.ndarray:
    """alpha * x + y for two 1-D float32 arrays of one size, computed by `axpy_kernel`."""
    out = np.empty_like(x)
    axpy_kernel[(x.size // block,)](x, y, out, alpha, x.size, BLOCK=block)
    return out
