"""Exercise 6.2, wrong on purpose: the phase changes every row, ignoring per_phase.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/06_shared_memory/ex2_swizzle.py.
"""


def swizzled_offset(row: int, col: int, row_length: int, vec: int, per_phase: int, max_phase: int) -> int:
    phase = row % max_phase
    return row * row_length + ((col // vec) ^ phase) * vec + col % vec
