"""Exercise 5.1 (a compiler piece): the contiguity, divisibility and constancy of a sum.

The reference solution. The task, in full, is in exercises/05_coalesce/ex1_add_rule.py.
"""
import math

from minitriton.passes.axis_info import AxisInfo


def add_facts(a: AxisInfo, b: AxisInfo) -> AxisInfo:
    contiguity, divisibility, constancy = [], [], []
    for d in range(a.rank):
        runs = max(math.gcd(a.constancy[d], b.contiguity[d]), math.gcd(a.contiguity[d], b.constancy[d]))
        contiguity.append(runs)
        divisibility.append(math.gcd(a.divisibility_at(d, runs), b.divisibility_at(d, runs)))
        constancy.append(math.gcd(a.constancy[d], b.constancy[d]))
    return AxisInfo(tuple(contiguity), tuple(divisibility), tuple(constancy))
