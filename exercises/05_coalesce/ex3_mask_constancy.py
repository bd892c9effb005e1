"""Exercise 5.3 (a compiler piece): over which runs is the mask `offsets < n` constant?

A masked access can be vectorized only where one predicate guards the whole vector, that is, where
the mask is constant over aligned runs as long as the vector. Write `lt_constancy(x, n, size)`: the
constancy (a power of two) of `x < n` for two one-dimensional integer tiles of `size` elements,
from their facts (chapter 5). Neither is known at compile time.

- Where both are constant, the comparison is: gcd(x.constancy[0], n.constancy[0]) holds in any case.
- If n is the same everywhere (n.constancy[0] == size, a splat of the bound), more is known: when
  x is consecutive over runs of c starting at multiples of g, and n is a multiple of g, then every
  aligned run of gcd(c, g, n's divisibility) lies wholly below n or wholly at or above it. Take the
  larger of the two answers.
"""
from minitriton.passes.axis_info import AxisInfo


def lt_constancy(x: AxisInfo, n: AxisInfo, size: int) -> int:
    raise NotImplementedError("exercise 5.3: lt_constancy")
