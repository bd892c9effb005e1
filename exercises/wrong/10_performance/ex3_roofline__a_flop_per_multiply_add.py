"""Exercise 10.3, wrong on purpose: a multiply-add counts as one flop, so matmul does m n k of them.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/10_performance/ex3_roofline.py.
"""


def floor_ms(bytes_moved: float, flops: float, bandwidth_gbs: float, tflops: float) -> float:
    return max(bytes_moved / (bandwidth_gbs * 1e9), flops / (tflops * 1e12)) * 1e3


def bound(bytes_moved: float, flops: float, bandwidth_gbs: float, tflops: float) -> str:
    return "memory" if bytes_moved / (bandwidth_gbs * 1e9) >= flops / (tflops * 1e12) else "compute"


def vector_add(n: int, itemsize: int = 4) -> tuple[int, int]:
    return 3 * n * itemsize, n


def softmax(rows: int, cols: int, itemsize: int = 4) -> tuple[int, int]:
    return 2 * rows * cols * itemsize, 5 * rows * cols


def matmul(m: int, n: int, k: int, itemsize: int = 2) -> tuple[int, int]:
    return (m * k + k * n + m * n) * itemsize, m * n * k
