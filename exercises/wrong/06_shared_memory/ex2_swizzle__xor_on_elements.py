"""Exercise 6.2, wrong on purpose: the phase is xored into the column itself, not into the chunk
number, so elements leave their places inside a chunk.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/06_shared_memory/ex2_swizzle.py.
"""


def swizzled_offset(row: int, col: int, row_length: int, vec: int, per_phase: int, max_phase: int) -> int:
    phase = (row // per_phase) % max_phase
    return row * row_length + (col ^ phase)
