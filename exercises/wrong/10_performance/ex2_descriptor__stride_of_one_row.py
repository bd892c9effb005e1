"""Exercise 10.2, wrong on purpose: the A tile's stride-dimension offset is one row, not the
distance between groups of 8 rows.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/10_performance/ex2_descriptor.py.
"""

MODES = {0: 0, 128: 1, 64: 2, 32: 3}


def descriptor(address: int, lbo: int, sbo: int, swizzle_bytes: int) -> int:
    return ((address & 0x3FFFF) >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | MODES[swizzle_bytes] << 62


def a_operand(address: int, row_bytes: int) -> int:
    return descriptor(address, 16, row_bytes, row_bytes)
