"""Exercise 2.1, wrong on purpose: the shorter shape is padded on the right, not the left.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/02_frontend/ex1_broadcast.py.
"""
from minitriton.language.semantic import SemanticError


def broadcast_shapes(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    rank = max(len(a), len(b))
    a = tuple(a) + (1,) * (rank - len(a))
    b = tuple(b) + (1,) * (rank - len(b))
    shape = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise SemanticError(f"cannot broadcast shapes {list(a)} and {list(b)}")
        shape.append(y if x == 1 else x)
    return tuple(shape)
