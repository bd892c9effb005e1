"""Exercise 2.1 (a compiler piece): numpy's broadcasting rule, as the semantic layer uses it.

`broadcast_shapes(a, b)` is the shape that tiles of shapes `a` and `b` both stretch to before an
elementwise op. Align the shapes at the right (pad the shorter one with leading 1s); in each
dimension the sizes must be equal, or one of them 1 (which stretches to the other). Shapes that do
not fit raise `SemanticError` with both shapes in the message. A scalar has the shape ().
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
