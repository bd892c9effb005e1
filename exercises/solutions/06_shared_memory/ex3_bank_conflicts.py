"""Exercise 6.3 (a compiler piece): how many cycles a warp's shared-memory access takes.

The reference solution. The task, in full, is in exercises/06_shared_memory/ex3_bank_conflicts.py.
"""


def cycles(addresses: list[int]) -> int:
    words_by_bank: dict[int, set[int]] = {}
    for address in addresses:
        word = address // 4
        words_by_bank.setdefault(word % 32, set()).add(word)
    return max((len(words) for words in words_by_bank.values()), default=0)
