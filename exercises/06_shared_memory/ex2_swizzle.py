"""Exercise 6.2 (a compiler piece): the swizzled offset of an element.

A tile with rows of `row_length` elements is stored row after row in shared memory, but within each
row its chunks of `vec` elements are permuted (chapter 6): chunk k of row r goes where chunk
k xor phase would go, with phase = (r // per_phase) % max_phase. Elements keep their place inside
a chunk. Write `swizzled_offset(row, col, row_length, vec, per_phase, max_phase)`: the element
offset of element (row, col) in the buffer. With max_phase 1 it is the plain row-major offset.
"""


def swizzled_offset(row: int, col: int, row_length: int, vec: int, per_phase: int, max_phase: int) -> int:
    raise NotImplementedError("exercise 6.2: swizzled_offset")
