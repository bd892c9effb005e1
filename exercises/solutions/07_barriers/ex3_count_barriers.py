"""Exercise 7.3 (a puzzle): how many barriers does each kernel get?

The reference solution. The task, in full, is in exercises/07_barriers/ex3_count_barriers.py.
"""

ANSWERS = {
    "two sums, 4 warps": 1,  # both reductions use the same 16 bytes: the second waits for the first's reads
    "two sums, 1 warp": 0,  # a reduction inside one warp needs no shared memory at all
    "sum in a loop": 1,  # one reduction, but the next trip overwrites what this one reads
    "softmax": 2,  # max and sum share bytes, and the next row's max follows this row's sum
    "layer norm": 1,  # nothing is pending before the first reduction; the second follows it
}
