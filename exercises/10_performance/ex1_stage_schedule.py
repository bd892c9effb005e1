"""Exercise 10.1 (a compiler piece): the stage schedule of a pipelined loop.

`passes/pipeline.py` (chapter 10) keeps `stages` copies of each operand tile in a ring. Before the
loop, iterations 0 .. stages-2 are copied into stages 0 .. stages-2. Iteration i of the loop reads
stage `i % stages`, and once its tiles are read it copies iteration `i + stages - 1` into the stage
that iteration i-1 read.

Write `schedule(iterations, stages)`: the list of events, in order, for a loop of `iterations`
iterations. Each event is a tuple:

- `("copy", iteration, stage)`: iteration's tiles are copied into that stage (the prologue's
  copies first, then one per loop iteration: the loop also copies iterations past the end, which
  the real pass masks off, and so must you: list them too);
- `("read", iteration, stage)`: the loop's iteration reads that stage.

Within one loop iteration the read comes before the copy. With stages == 1 nothing is copied ahead:
each iteration is ("copy", i, 0) then ("read", i, 0).
"""


def schedule(iterations: int, stages: int) -> list[tuple[str, int, int]]:
    raise NotImplementedError("exercise 10.1: schedule")
