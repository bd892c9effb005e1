"""Exercise 10.2, wrong on purpose: the address is shifted but not cut to 18 bits, so a large one
spills into the reserved bits 14 and 15.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/10_performance/ex2_descriptor.py.
"""

MODES = {0: 0, 128: 1, 64: 2, 32: 3}


def descriptor(address: int, lbo: int, sbo: int, swizzle_bytes: int) -> int:
    return (address >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | MODES[swizzle_bytes] << 62


def a_operand(address: int, row_bytes: int) -> int:
    return descriptor(address, 16, 8 * row_bytes, row_bytes)
