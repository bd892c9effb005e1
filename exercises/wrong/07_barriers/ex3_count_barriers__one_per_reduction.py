"""Exercise 7.3, wrong on purpose: a barrier before every reduction, as if nothing else ordered
the threads (the first reduction of a kernel has nothing pending).

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/07_barriers/ex3_count_barriers.py.
"""

ANSWERS = {
    "two sums, 4 warps": 2,
    "two sums, 1 warp": 0,
    "sum in a loop": 1,
    "softmax": 2,
    "layer norm": 2,
}
