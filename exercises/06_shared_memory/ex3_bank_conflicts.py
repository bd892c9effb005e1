"""Exercise 6.3 (a compiler piece): how many cycles a warp's shared-memory access takes.

Shared memory is 32 banks; the 4-byte word at byte address a is in bank (a // 4) % 32. In one
cycle each bank serves one word. When the 32 threads of a warp each read one 4-byte word, the
access takes as many cycles as the busiest bank has *distinct* words to serve: threads reading the
very same word share one read (a broadcast).

Write `cycles(addresses)`: the cycles one warp-wide access takes, given each thread's byte address
(a multiple of 4). 1 means no bank conflict; k is a k-way conflict. Then read the tests: they use
your function on a 32 x 32 fp32 tile stored plainly, padded, and swizzled.
"""


def cycles(addresses: list[int]) -> int:
    raise NotImplementedError("exercise 6.3: cycles")
