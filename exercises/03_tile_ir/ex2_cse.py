"""Exercise 3.2 (a compiler piece): the key of common-subexpression elimination.

CSE keeps the first of two ops that compute the same value and points every use of the second at
the first. Two ops compute the same value when they have the same name, the very same operands
(the same `Value` objects, in the same order: compare by `id`), equal attributes and the same result
types. Write `cse_key(op)`: a hashable tuple that is equal for two ops exactly when that holds, or
None for an op that must never be merged: one with an effect (`op.name in EFFECTS`), one with
regions, or one without exactly one result.

Attribute values are ints, floats, bools, strings, DTypes, and lists or tuples of them; a list and
a tuple with the same items are equal (`shape=[4]` and `shape=(4,)`). Careful with floats: Python
says 0.0 == -0.0, but a constant -0.0 is not a constant 0.0 (1 / -0.0 is -inf), so the key must
tell them apart (`float.hex` does).

`eliminate_common_subexpressions(fn)`, which uses your key, is written for you. Then the tests
compile real kernels with your key deciding what the compiler's own CSE merges (exercise mode,
`minitriton.exercise_hooks`), and run one.
"""
from minitriton import ir
from minitriton.ir import EFFECTS  # noqa: F401


def cse_key(op: ir.Op) -> tuple | None:
    raise NotImplementedError("exercise 3.2: cse_key")


def eliminate_common_subexpressions(fn: ir.Function) -> int:
    """Merge ops with equal keys (a value from an enclosing block is visible in nested regions,
    never the other way round); return how many ops were removed."""
    replaced: dict[int, ir.Value] = {}

    def visit(block: ir.Block, seen: dict) -> int:
        seen, kept, removed = dict(seen), [], 0
        for op in block.ops:
            op.operands = [replaced.get(id(v), v) for v in op.operands]
            for region in op.regions:
                removed += visit(region, seen)
            key = cse_key(op)
            if key is not None and key in seen:
                replaced[id(op.result)] = seen[key]
                removed += 1
                continue
            if key is not None:
                seen[key] = op.result
            kept.append(op)
        block.ops = kept
        return removed

    return visit(fn.body, {})
