"""Exercise 2.6 (a kernel): a bitonic sorting network of your own.

`bitonic_sort_kernel` sorts each block of N elements of x (N a power of two, LOG_N = log2(N)) in
ascending order and writes it to out; program `pid` sorts x[pid * N : (pid + 1) * N]. Do not call
tl.sort: build the network from compare-and-swap steps, as `tl.sort` itself is built.

A bitonic network runs stages 1, 2, ..., LOG_N. Stage s sorts every run of 2**s consecutive
elements, ascending where bit s of the position is 0 and descending where it is 1 (in the last
stage bit LOG_N is 0 everywhere: the whole block ends ascending). It does so with one
compare-and-swap for each bit j = s - 1, s - 2, ..., 0: the element at position i meets its
partner at position i ^ (1 << j), found with `tl.gather(x, i ^ (1 << j), 0)`; of the two, the one
on the left (bit j of i is 0) keeps the smaller and the one on the right the larger, in an
ascending run, and the other way round in a descending one. `tl.static_range` unrolls the loops at
compile time, so the stage and the bit are compile-time constants inside them.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def bitonic_sort_kernel(x_ptr, out_ptr, N: tl.constexpr, LOG_N: tl.constexpr):
    tl.static_assert(False, "exercise 2.6: bitonic_sort_kernel is not written yet")
