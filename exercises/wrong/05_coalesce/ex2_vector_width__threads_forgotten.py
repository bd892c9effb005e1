"""Exercise 5.2, wrong on purpose: the number of elements each thread holds is not a limit, so a
small tile gets vectors wider than its threads have.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/05_coalesce/ex2_vector_width.py.
"""


def vector_width(contiguity: int, divisibility: int, mask_constancy: int | None, element_bytes: int,
                 numel: int, num_warps: int) -> int:
    limits = [contiguity, divisibility // element_bytes, 16 // element_bytes]
    if mask_constancy is not None:
        limits.append(mask_constancy)
    limit = max(min(limits), 1)
    return 1 << (limit.bit_length() - 1)
