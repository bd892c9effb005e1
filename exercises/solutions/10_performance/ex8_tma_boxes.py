"""Solution of exercise 10.8."""


def tma_boxes(lines: int, k_length: int, bits: int, k_major: bool) -> tuple[int, int, int, int, int] | None:
    if k_major:
        line_bytes = k_length * bits // 8
        if line_bytes not in (32, 64) and line_bytes % 128:
            return None
        row_bytes = min(line_bytes, 128)
        if lines > 256:
            return None
        return row_bytes * 8 // bits, lines, row_bytes, line_bytes // row_bytes, lines * row_bytes
    if bits != 16 or lines % 64 or k_length > 256:
        return None
    return 64, k_length, 128, lines // 64, k_length * 128
