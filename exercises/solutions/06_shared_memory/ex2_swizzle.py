"""Exercise 6.2 (a compiler piece): the swizzled offset of an element.

The reference solution. The task, in full, is in exercises/06_shared_memory/ex2_swizzle.py.
"""


def swizzled_offset(row: int, col: int, row_length: int, vec: int, per_phase: int, max_phase: int) -> int:
    phase = (row // per_phase) % max_phase
    return row * row_length + ((col // vec) ^ phase) * vec + col % vec
