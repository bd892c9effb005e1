"""Exercise 6.1 (a compiler piece): place shared-memory buffers by their liveness.

Each buffer is `(size, start, end)`: it needs `size` bytes while the program is at op positions
`start` to `end`, both included. Two buffers are *live together* when their intervals share a
position; those must get disjoint byte ranges, the others may share bytes.

Write `first_fit(buffers)`, returning `(offsets, total)`: the byte offset of each buffer, in the
order given, and the bytes needed in all (the largest `offset + size`, 0 for no buffers). Place the
buffers one by one, the largest first (equal sizes: the earlier `start` first; still equal: the
order given), each at the lowest offset where it overlaps no already-placed buffer that is live
together with it. Sizes are multiples of 16; offsets need no other alignment.
"""


def first_fit(buffers: list[tuple[int, int, int]]) -> tuple[list[int], int]:
    raise NotImplementedError("exercise 6.1: first_fit")
