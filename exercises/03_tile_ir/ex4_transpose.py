"""Exercise 3.4 (a kernel): a transposing copy through strided pointers, masked at the edges.

out[j, i] = x[i, j] for an M x N matrix x. Neither matrix need be packed: element (i, j) of x is
at x_ptr + i * stride_xm + j * stride_xn, and element (j, i) of out at
out_ptr + j * stride_om + i * stride_on. Program (pid_m, pid_n) copies the BLOCK_M x BLOCK_N tile of
x whose corner is (pid_m * BLOCK_M, pid_n * BLOCK_N). M and N need not be multiples of the blocks:
the interpreter reports any access outside the arrays (chapter 3), so mask both the load and the
store.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tl.static_assert(False, "exercise 3.4: transpose_kernel is not written yet")
