"""Exercise 5.2, wrong on purpose: the alignment, in bytes, is compared with counts of elements
without dividing by the element's size.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/05_coalesce/ex2_vector_width.py.
"""


def vector_width(contiguity: int, divisibility: int, mask_constancy: int | None, element_bytes: int,
                 numel: int, num_warps: int) -> int:
    limits = [contiguity, divisibility, 16 // element_bytes, numel // (32 * num_warps)]
    if mask_constancy is not None:
        limits.append(mask_constancy)
    limit = max(min(limits), 1)
    return 1 << (limit.bit_length() - 1)
