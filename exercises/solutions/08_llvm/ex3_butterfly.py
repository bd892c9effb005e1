"""Exercise 8.3 (a compiler piece): which lanes exchange at each step of a warp reduction.

The reference solution. The task, in full, is in exercises/08_llvm/ex3_butterfly.py.
"""


def butterfly_schedule(layout, shape: tuple[int, ...], axis: int) -> list[list[tuple[int, int]]]:
    steps = []
    for bit, basis in enumerate(layout.lane_bases(shape)):
        if basis[axis]:
            mask = 1 << bit
            steps.append([(lane, lane ^ mask) for lane in range(32) if lane < lane ^ mask])
    return steps
