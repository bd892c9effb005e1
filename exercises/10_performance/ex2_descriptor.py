"""Exercise 10.2 (a compiler piece): a wgmma shared-memory matrix descriptor.

On Hopper `wgmma` reads its operands from shared memory through a 64-bit descriptor (chapter 10,
`WgmmaShared.descriptor`). Its fields, each a byte count divided by 16 ("encoded"):

- bits 0-13: the start address, (address & 0x3FFFF) >> 4;
- bits 16-29: the leading-dimension byte offset (LBO) >> 4;
- bits 32-45: the stride-dimension byte offset (SBO) >> 4;
- bits 62-63: the swizzle mode: 0 none, 1 for 128-byte, 2 for 64-byte, 3 for 32-byte rows.

Write `descriptor(address, lbo, sbo, swizzle_bytes)` returning the descriptor as a Python int
(swizzle_bytes is 0, 32, 64 or 128), and `a_operand(address, row_bytes)`: the descriptor of a
K-major A tile whose rows are `row_bytes` long (32, 64 or 128) and swizzled by that many bytes:
its LBO is unused (16 bytes, encoded 1), its SBO is the distance between groups of 8 rows.
"""


def descriptor(address: int, lbo: int, sbo: int, swizzle_bytes: int) -> int:
    raise NotImplementedError("exercise 10.2: descriptor")


def a_operand(address: int, row_bytes: int) -> int:
    raise NotImplementedError("exercise 10.2: a_operand")
