"""Exercise 5.1, wrong on purpose: the divisibility is the gcd of the operands' whole
divisibilities, not of what divides them at the start of each run of the sum.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/05_coalesce/ex1_add_rule.py.
"""
import math

from minitriton.passes.axis_info import AxisInfo


def add_facts(a: AxisInfo, b: AxisInfo) -> AxisInfo:
    contiguity, divisibility, constancy = [], [], []
    for d in range(a.rank):
        runs = max(math.gcd(a.constancy[d], b.contiguity[d]), math.gcd(a.contiguity[d], b.constancy[d]))
        contiguity.append(runs)
        divisibility.append(math.gcd(a.divisibility[d], b.divisibility[d]))
        constancy.append(math.gcd(a.constancy[d], b.constancy[d]))
    return AxisInfo(tuple(contiguity), tuple(divisibility), tuple(constancy))
