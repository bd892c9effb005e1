"""Exercise 10.8, wrong on purpose: an N-major operand's box runs along K (the k-rows inner, 64
lines outer), as if the lines were K's; its 128-byte rows are the lines' elements, not K's.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/10_performance/ex8_tma_boxes.py.
"""


def tma_boxes(lines: int, k_length: int, bits: int, k_major: bool) -> tuple[int, int, int, int, int] | None:
    if k_major:
        line_bytes = k_length * bits // 8
        if line_bytes not in (32, 64) and line_bytes % 128 or lines > 256:
            return None
        row_bytes = min(line_bytes, 128)
        return row_bytes * 8 // bits, lines, row_bytes, line_bytes // row_bytes, lines * row_bytes
    if bits != 16 or lines % 64 or k_length > 256:
        return None
    return k_length, 64, 128, lines // 64, k_length * 128
