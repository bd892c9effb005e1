"""Exercise 7.3, wrong on purpose: loops are counted as straight lines, forgetting that the next
trip overwrites what this one's threads may still read.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/07_barriers/ex3_count_barriers.py.
"""

ANSWERS = {
    "two sums, 4 warps": 1,
    "two sums, 1 warp": 0,
    "sum in a loop": 0,
    "softmax": 1,
    "layer norm": 1,
}
