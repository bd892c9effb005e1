"""Exercise 8.3 (a compiler piece): which lanes exchange at each step of a warp reduction.

After a reduction has folded each thread's registers, the lanes of a warp that hold different
elements along the reduced `axis` combine their partial results by butterfly shuffles
(`shfl.sync.bfly`, chapter 8): at each step, every lane exchanges its value with the lane whose id
differs in one bit, and both combine the two. The bits used are the lane-id bits whose lane basis
(`layout.lane_bases(shape)`, chapter 4) moves along `axis` (has a non-zero entry there), from the
lowest bit up. Bits whose basis moves along another dimension, or is zero (replicas), are not used.

Write `butterfly_schedule(layout, shape, axis)`: one list per step, each with the 16 pairs
`(lane, partner)` of that step, `lane < partner`, in increasing order of `lane`. A reduction along
an axis that no lane bit moves along has no steps. Then the tests compile real reductions with
the shuffles your schedule gives (exercise mode, `minitriton.exercise_hooks`).
"""


def butterfly_schedule(layout, shape: tuple[int, ...], axis: int) -> list[list[tuple[int, int]]]:
    raise NotImplementedError("exercise 8.3: butterfly_schedule")
