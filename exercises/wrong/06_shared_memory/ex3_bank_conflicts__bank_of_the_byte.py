"""Exercise 6.3, wrong on purpose: the bank is taken from the byte address, not the word's.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/06_shared_memory/ex3_bank_conflicts.py.
"""


def cycles(addresses: list[int]) -> int:
    words_by_bank: dict[int, set[int]] = {}
    for address in addresses:
        words_by_bank.setdefault(address % 32, set()).add(address // 4)
    return max((len(words) for words in words_by_bank.values()), default=0)
