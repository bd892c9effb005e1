"""Exercise 10.3 (understanding): the roofline floor of a kernel.

A kernel cannot run faster than the time to move its bytes at the memory bandwidth, nor faster than
the time to do its arithmetic at the compute rate; the larger of the two is its floor (chapter 10).

Write `floor_ms(bytes_moved, flops, bandwidth_gbs, tflops)`: the floor in milliseconds, and
`bound(bytes_moved, flops, bandwidth_gbs, tflops)`: "memory" or "compute", whichever gives it.
Then fill in the three functions below with the fewest bytes each kernel must move (every input
read once, every output written once) and the floating-point operations it must do.
"""


def floor_ms(bytes_moved: float, flops: float, bandwidth_gbs: float, tflops: float) -> float:
    raise NotImplementedError("exercise 10.3: floor_ms")


def bound(bytes_moved: float, flops: float, bandwidth_gbs: float, tflops: float) -> str:
    raise NotImplementedError("exercise 10.3: bound")


def vector_add(n: int, itemsize: int = 4) -> tuple[int, int]:
    """(bytes, flops) of out = x + y over n elements."""
    raise NotImplementedError("exercise 10.3: vector_add")


def softmax(rows: int, cols: int, itemsize: int = 4) -> tuple[int, int]:
    """(bytes, flops) of a row-wise softmax, counting 5 flops per element (max, sub, exp, sum, div)."""
    raise NotImplementedError("exercise 10.3: softmax")


def matmul(m: int, n: int, k: int, itemsize: int = 2) -> tuple[int, int]:
    """(bytes, flops) of C = A @ B with A (m x k), B (k x n) and C (m x n), all of `itemsize`."""
    raise NotImplementedError("exercise 10.3: matmul")
