"""Exercise 3.1 (a compiler piece): dead-code elimination over tile IR.

`remove_dead(fn)` deletes every op that has no effect and whose results nobody reads, and returns
how many it deleted. An op "has an effect" when its name is in `EFFECTS` (memory, printing,
control flow, terminators): those always stay, even if their results are unused. Removing one op
can make the ops that computed its operands dead in turn, so repeat until nothing changes. Ops
nested in regions (a `for` body, the branches of an `if`) count too: walk them as well. Use
`fn.walk()` to visit every op, `op.operands`, `op.results`, `op.regions` and `block.ops`; compare
values by identity (`id(value)`).

Then the tests compile real kernels with your `remove_dead` as the compiler's dead-code
elimination (exercise mode, `minitriton.exercise_hooks`), and run one.
"""
from minitriton import ir
from minitriton.ir import EFFECTS  # noqa: F401


def remove_dead(fn: ir.Function) -> int:
    raise NotImplementedError("exercise 3.1: remove_dead")
