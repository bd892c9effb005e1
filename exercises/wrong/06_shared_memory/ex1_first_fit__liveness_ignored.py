"""Exercise 6.1, wrong on purpose: liveness is ignored, so every buffer gets bytes of its own
and none are shared.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/06_shared_memory/ex1_first_fit.py.
"""


def first_fit(buffers: list[tuple[int, int, int]]) -> tuple[list[int], int]:
    offsets = [0] * len(buffers)
    placed: list[int] = []
    for i in sorted(range(len(buffers)), key=lambda i: (-buffers[i][0], buffers[i][1], i)):
        size = buffers[i][0]
        offset = 0
        for j in sorted(placed, key=lambda j: offsets[j]):  # lowest first: each clash moves us past it
            other_size = buffers[j][0]
            if offsets[j] < offset + size and offset < offsets[j] + other_size:
                offset = offsets[j] + other_size
        offsets[i] = offset
        placed.append(i)
    return offsets, max((o + b[0] for o, b in zip(offsets, buffers)), default=0)
