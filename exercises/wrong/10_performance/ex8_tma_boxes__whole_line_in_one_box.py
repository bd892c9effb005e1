"""Exercise 10.8, wrong on purpose: a line longer than 128 bytes is one box, not blocks of 128
bytes of K one after another (a box's inner side may not pass the swizzle's width).

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/10_performance/ex8_tma_boxes.py.
"""


def tma_boxes(lines: int, k_length: int, bits: int, k_major: bool) -> tuple[int, int, int, int, int] | None:
    if k_major:
        line_bytes = k_length * bits // 8
        if line_bytes not in (32, 64) and line_bytes % 128 or lines > 256:
            return None
        return k_length, lines, min(line_bytes, 128), 1, lines * line_bytes
    if bits != 16 or lines % 64 or k_length > 256:
        return None
    return 64, k_length, 128, lines // 64, k_length * 128
