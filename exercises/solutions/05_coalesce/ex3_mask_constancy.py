"""Exercise 5.3 (a compiler piece): over which runs is the mask `offsets < n` constant?

The reference solution. The task, in full, is in exercises/05_coalesce/ex3_mask_constancy.py.
"""
import math

from minitriton.passes.axis_info import AxisInfo


def lt_constancy(x: AxisInfo, n: AxisInfo, size: int) -> int:
    runs = math.gcd(x.constancy[0], n.constancy[0])
    if n.constancy[0] == size:
        runs = max(runs, math.gcd(x.contiguity[0], x.divisibility[0], n.divisibility[0]))
    return runs
