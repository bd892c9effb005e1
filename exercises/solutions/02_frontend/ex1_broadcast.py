"""Exercise 2.1 (a compiler piece): numpy's broadcasting rule, as the semantic layer uses it.

The reference solution. The task, in full, is in exercises/02_frontend/ex1_broadcast.py.
"""
from minitriton.language.semantic import SemanticError


def broadcast_shapes(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    shape = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise SemanticError(f"cannot broadcast shapes {list(a)} and {list(b)}")
        shape.append(y if x == 1 else x)
    return tuple(shape)
