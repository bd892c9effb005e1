"""Exercise 6.3, wrong on purpose: every thread's read counts, so threads reading the same word
are not a broadcast but a conflict.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/06_shared_memory/ex3_bank_conflicts.py.
"""


def cycles(addresses: list[int]) -> int:
    reads_by_bank: dict[int, int] = {}
    for address in addresses:
        bank = address // 4 % 32
        reads_by_bank[bank] = reads_by_bank.get(bank, 0) + 1
    return max(reads_by_bank.values(), default=0)
