"""Exercise 8.3, wrong on purpose: the steps run from the highest lane bit down.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/08_llvm/ex3_butterfly.py.
"""


def butterfly_schedule(layout, shape: tuple[int, ...], axis: int) -> list[list[tuple[int, int]]]:
    steps = []
    for bit, basis in enumerate(layout.lane_bases(shape)):
        if basis[axis]:
            mask = 1 << bit
            steps.append([(lane, lane ^ mask) for lane in range(32) if lane < lane ^ mask])
    return steps[::-1]
