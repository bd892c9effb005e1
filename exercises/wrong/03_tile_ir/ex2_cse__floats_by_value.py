"""Exercise 3.2, wrong on purpose: float attributes are compared by value, and 0.0 == -0.0, so
the two constants merge.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/03_tile_ir/ex2_cse.py.
"""
from minitriton import ir
from minitriton.ir import EFFECTS


def _attr_key(value):
    if isinstance(value, (list, tuple)):
        return tuple(_attr_key(v) for v in value)
    return (type(value).__name__, value)


def cse_key(op: ir.Op) -> tuple | None:
    if op.name in EFFECTS or op.regions or len(op.results) != 1:
        return None
    attrs = tuple(sorted((name, _attr_key(value)) for name, value in op.attrs.items()))
    return (op.name, tuple(id(v) for v in op.operands), attrs, op.result.type)


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
