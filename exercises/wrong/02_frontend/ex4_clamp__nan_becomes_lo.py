"""Exercise 2.4, wrong on purpose: the lower bound keeps x only where x > lo, so a NaN (which
compares false) becomes lo.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/02_frontend/ex4_clamp.py.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def clamp_kernel(x_ptr, out_ptr, lo, hi, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    x = tl.where(x > lo, x, lo)
    x = tl.where(x > hi, hi, x)
    tl.store(out_ptr + offsets, x, mask=mask)
