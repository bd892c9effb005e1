"""Exercise 8.4 (a kernel): the histogram of a whole array, one atomic add per bin and program.

The reference solution. The task, in full, is in exercises/08_llvm/ex4_histogram.py.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def histogram_kernel(x_ptr, bins_ptr, n, NUM_BINS: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offsets < n
    values = tl.load(x_ptr + offsets, mask=inside, other=0)
    counts = tl.histogram(values, NUM_BINS, mask=inside)  # the 0s loaded past n are not counted
    tl.atomic_add(bins_ptr + tl.arange(0, NUM_BINS), counts)
