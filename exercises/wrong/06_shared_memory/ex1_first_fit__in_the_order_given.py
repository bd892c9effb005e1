"""Exercise 6.1, wrong on purpose: the buffers are placed in the order given, not the largest
first, so a small early buffer pushes the large ones up.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/06_shared_memory/ex1_first_fit.py.
"""


def first_fit(buffers: list[tuple[int, int, int]]) -> tuple[list[int], int]:
    offsets = [0] * len(buffers)
    placed: list[int] = []
    for i in range(len(buffers)):
        size, start, end = buffers[i]
        offset = 0
        for j in sorted(placed, key=lambda j: offsets[j]):  # lowest first: each clash moves us past it
            other_size, other_start, other_end = buffers[j]
            live_together = other_start <= end and start <= other_end
            if live_together and offsets[j] < offset + size and offset < offsets[j] + other_size:
                offset = offsets[j] + other_size
        offsets[i] = offset
        placed.append(i)
    return offsets, max((o + b[0] for o, b in zip(offsets, buffers)), default=0)
