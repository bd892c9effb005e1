"""Exercise 1.1 (a kernel): axpy, out = alpha * x + y, one block of elements per program.

Write `axpy_kernel`: program `pid` handles elements pid * BLOCK ... pid * BLOCK + BLOCK - 1, and
must neither read nor write past element n - 1 (mask the tail). Then write `axpy`, the host side:
it allocates the output and launches the kernel over just enough programs to cover every element.
"""
import numpy as np

import minitriton as triton
import minitriton.language as tl


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    # Replace this line with the kernel (the vector add kernel of chapter 1 is a good start).
    tl.static_assert(False, "exercise 1.1: axpy_kernel is not written yet")


def axpy(alpha: float, x: np.ndarray, y: np.ndarray, block: int = 128) -> np.ndarray:
    """alpha * x + y for two 1-D float32 arrays of one size, computed by `axpy_kernel`."""
    raise NotImplementedError("exercise 1.1: allocate the output and launch axpy_kernel[grid](...)")
