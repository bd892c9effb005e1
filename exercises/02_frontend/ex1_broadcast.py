"""Exercise 2.1 (a compiler piece): numpy's broadcasting rule, as the semantic layer uses it.

`broadcast_shapes(a, b)` is the shape that tiles of shapes `a` and `b` both stretch to before an
elementwise op. Align the shapes at the right (pad the shorter one with leading 1s); in each
dimension the sizes must be equal, or one of them 1 (which stretches to the other). Shapes that do
not fit raise `SemanticError` with both shapes in the message. A scalar has the shape ().

Then the tests compile kernels with your rule in the compiler's place (exercise mode,
`minitriton.exercise_hooks`): every broadcast of the frontend asks yours.
"""
from minitriton.language.semantic import SemanticError  # noqa: F401  (you will raise it)


def broadcast_shapes(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    raise NotImplementedError("exercise 2.1: broadcast_shapes")
