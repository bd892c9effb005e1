"""Exercise 5.2 (a compiler piece): how many elements one access may move.

The reference solution. The task, in full, is in exercises/05_coalesce/ex2_vector_width.py.
"""


def vector_width(contiguity: int, divisibility: int, mask_constancy: int | None, element_bytes: int,
                 numel: int, num_warps: int) -> int:
    limits = [contiguity, divisibility // element_bytes, 16 // element_bytes, numel // (32 * num_warps)]
    if mask_constancy is not None:
        limits.append(mask_constancy)
    limit = max(min(limits), 1)
    return 1 << (limit.bit_length() - 1)
