"""Exercise 6.4, wrong on purpose: softmax's two reductions each get bytes of their own (they
are never live together, so they share).

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/06_shared_memory/ex4_shared_bytes.py.
"""

ANSWERS = {
    "vector add": 0,
    "softmax, 4 warps": 32,
    "softmax, 1 warp": 0,
    "matmul, 64x64x32, 1 stage": 9216,
    "matmul, 128x128x32, 3 stages": 49152,
}
