"""Exercise 5.1, wrong on purpose: a sum is taken to be consecutive only where a is constant
and b consecutive, not the other way round too.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/05_coalesce/ex1_add_rule.py.
"""
import math

from minitriton.passes.axis_info import AxisInfo


def add_facts(a: AxisInfo, b: AxisInfo) -> AxisInfo:
    contiguity, divisibility, constancy = [], [], []
    for d in range(a.rank):
        runs = math.gcd(a.constancy[d], b.contiguity[d])
        contiguity.append(runs)
        divisibility.append(math.gcd(a.divisibility_at(d, runs), b.divisibility_at(d, runs)))
        constancy.append(math.gcd(a.constancy[d], b.constancy[d]))
    return AxisInfo(tuple(contiguity), tuple(divisibility), tuple(constancy))
