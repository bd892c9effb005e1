"""Exercise 5.3, wrong on purpose: only the constancy of the two sides counts; what a splat bound
adds is left out.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/05_coalesce/ex3_mask_constancy.py.
"""
import math

from minitriton.passes.axis_info import AxisInfo


def lt_constancy(x: AxisInfo, n: AxisInfo, size: int) -> int:
    return math.gcd(x.constancy[0], n.constancy[0])
