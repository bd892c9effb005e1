"""Solution of exercise 10.2."""

MODES = {0: 0, 128: 1, 64: 2, 32: 3}


def descriptor(address: int, lbo: int, sbo: int, swizzle_bytes: int) -> int:
    return ((address & 0x3FFFF) >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | MODES[swizzle_bytes] << 62


def a_operand(address: int, row_bytes: int) -> int:
    return descriptor(address, 16, 8 * row_bytes, row_bytes)
