"""Exercise 5.1 (a compiler piece): the contiguity, divisibility and constancy of a sum.

`a` and `b` are the facts (chapter 5) of two integer tiles of one shape; write `add_facts(a, b)`,
the facts of `a + b`. Neither operand is known at compile time: leave `constant` None. Per
dimension d, every fact a power of two:

- contiguity: a run of consecutive values plus a run of equal values stays consecutive, so the sum
  is consecutive over runs of gcd(a.constancy[d], b.contiguity[d]), and likewise with a and b
  swapped; take the larger of the two. (Two consecutive runs added step by 2: not consecutive.)
- divisibility: the sum of two multiples of g is a multiple of g. With `runs` the contiguity just
  found, the first element of each run of the sum is a multiple of
  gcd(a.divisibility_at(d, runs), b.divisibility_at(d, runs)). (`AxisInfo.divisibility_at` says
  what divides a value's elements at every multiple of `runs`: read it in
  minitriton/passes/axis_info.py.)
- constancy: the sum is constant where both are: gcd of the two constancies.

`math.gcd` gives the gcd; facts are tuples with one entry per dimension.
"""
from minitriton.passes.axis_info import AxisInfo


def add_facts(a: AxisInfo, b: AxisInfo) -> AxisInfo:
    raise NotImplementedError("exercise 5.1: add_facts")
