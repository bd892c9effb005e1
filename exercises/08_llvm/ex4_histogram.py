"""Exercise 8.4 (a kernel): the histogram of a whole array, one atomic add per bin and program.

`histogram_kernel` adds to bins[0 .. NUM_BINS - 1] how many of the n int32 values of x fall in
each bin of width 1 from 0; values outside [0, NUM_BINS) are not counted. In numpy:

    bins += np.bincount(x[(x >= 0) & (x < NUM_BINS)], minlength=NUM_BINS)

`bins` may already hold counts (the tests call the kernel twice): add to them. Program `pid`
counts the BLOCK values from pid * BLOCK with `tl.histogram(values, NUM_BINS, mask)`, which the
code generator lowers to one counter per bin in shared memory and one `atom.shared.add` per
element (chapter 8); values at or past n are not counted. Then it adds its counts into `bins` with
`tl.atomic_add`: on a GPU the programs run at the same time, and a load, an add and a store by two
of them would lose one program's counts. The interpreter runs the programs one after another, so
the tests also compile your kernel for sm_80 and read its PTX: the adds to `bins` must be atomic
(`atom.global` or `red.global`), and the counting must be `tl.histogram`'s (`atom.shared.add`).
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def histogram_kernel(x_ptr, bins_ptr, n, NUM_BINS: tl.constexpr, BLOCK: tl.constexpr):
    tl.static_assert(False, "exercise 8.4: histogram_kernel is not written yet")
