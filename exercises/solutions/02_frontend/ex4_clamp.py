"""Exercise 2.4 (a kernel): clamp each element into [lo, hi] with `tl.where`.

The reference solution. The task, in full, is in exercises/02_frontend/ex4_clamp.py.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def clamp_kernel(x_ptr, out_ptr, lo, hi, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    x = tl.where(x < lo, lo, x)
    x = tl.where(x > hi, hi, x)
    tl.store(out_ptr + offsets, x, mask=mask)
