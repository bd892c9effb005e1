"""Exercise 8.3, wrong on purpose: every lane bit whose basis moves is used, whatever the
dimension it moves along.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/08_llvm/ex3_butterfly.py.
"""


def butterfly_schedule(layout, shape: tuple[int, ...], axis: int) -> list[list[tuple[int, int]]]:
    steps = []
    for bit, basis in enumerate(layout.lane_bases(shape)):
        if any(basis):
            mask = 1 << bit
            steps.append([(lane, lane ^ mask) for lane in range(32) if lane < lane ^ mask])
    return steps
