"""Exercise 5.3, wrong on purpose: with a splat bound, the runs are taken from x alone, as if n
were a multiple of anything.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/05_coalesce/ex3_mask_constancy.py.
"""
import math

from minitriton.passes.axis_info import AxisInfo


def lt_constancy(x: AxisInfo, n: AxisInfo, size: int) -> int:
    runs = math.gcd(x.constancy[0], n.constancy[0])
    if n.constancy[0] == size:
        runs = max(runs, math.gcd(x.contiguity[0], x.divisibility[0]))
    return runs
