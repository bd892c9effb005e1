"""Exercise 6.4, wrong on purpose: the matmul's operand buffers and its result buffer are added
up, as if all three were live at once.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/06_shared_memory/ex4_shared_bytes.py.
"""

ANSWERS = {
    "vector add": 0,
    "softmax, 4 warps": 16,
    "softmax, 1 warp": 0,
    "matmul, 64x64x32, 1 stage": 17408,
    "matmul, 128x128x32, 3 stages": 83968,
}
