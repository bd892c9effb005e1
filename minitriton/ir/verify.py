"""The verifier: every pass leaves IR for which `verify` raises nothing.

It checks each op against its rule in the op table (the same rule the builder typed it with), that
every operand is defined before it is used and in scope (SSA dominance), and that regions end in
their terminators with the types their op expects. A failure is a `VerificationError`: a bug in a
stage of the compiler, never in a user's kernel. Chapter: 03-tile-ir.
"""
from __future__ import annotations

from ..dtypes import int1
from ..errors import VerificationError
from .attrs import ATTRS
from .core import Block, Function, Op, loop_parts, scalar
from .ops import OPS, REGION_OPS, TERMINATORS, _check
from .printer import print_function


# --8<-- [start:verify]
def verify(fn: Function) -> None:
    """Check types (through the rules in OPS), SSA dominance, region terminators, and that every
    attribute key is one the protocol between the passes lists (`ir.attrs.ATTRS`)."""
    for attrs in [fn.attrs, *fn.arg_attrs]:
        _known_attrs(attrs, f"function {fn.name}")
    defined: set[int] = {id(a) for a in fn.args}
    _verify_block(fn.body, defined, fn)


def _known_attrs(attrs: dict, where: str) -> None:
    unknown = sorted(attrs.keys() - ATTRS.keys())
    _check(not unknown, where, f"attribute {', '.join(unknown)} is not in ir.attrs.ATTRS: add its row "
                               "(which ops carry it, who writes and reads it, what it means)")


def _verify_block(block: Block, defined: set[int], fn: Function) -> None:
    defined = defined | {id(a) for a in block.args}
    for op in block.ops:
        for v in op.operands:
            if id(v) not in defined:
                raise VerificationError(f"{op.name}: operand used before it is defined (or out of scope)"
                                        f"\n{print_function(fn)}")
        if op.name not in OPS:
            raise VerificationError(f"unknown op {op.name!r}")
        _known_attrs(op.attrs, op.name)
        if op.name in REGION_OPS:
            _verify_region_op(op, defined, fn)
        else:
            expected = OPS[op.name](op.name, op.operands, op.attrs)
            got = [r.type for r in op.results]
            if expected != got:
                raise VerificationError(f"{op.name}: results typed {list(map(str, got))}, "
                                        f"the rule gives {list(map(str, expected))}")
        defined |= {id(r) for r in op.results}


def _verify_region_op(op: Op, defined: set[int], fn: Function) -> None:
    result_types = [r.type for r in op.results]
    for region in op.regions:
        _verify_block(region, defined, fn)
        term = region.ops[-1] if region.ops else None
        if term is None or term.name not in TERMINATORS:
            raise VerificationError(f"{op.name}: a region must end in yield or condition")
    if op.name == "for":
        loop = loop_parts(op)
        _check(all(not v.type.is_tile and v.dtype.is_int() for v in loop.bounds), "for",
               "bounds and step must be integer scalars")
        carried = [loop.bounds[0].type] + [v.type for v in loop.inits]
        _check([a.type for a in loop.body.args] == carried, "for",
               "block arguments must be the induction variable and the carried values")
        _check([v.type for v in loop.inits] == result_types, "for", "carried values must match results")
        _check([v.type for v in loop.yielded] == result_types, "for",
               "yield must match the carried values")
    elif op.name == "if":
        _check(op.operands[0].type == scalar(int1), "if", "condition must be a scalar int1")
        for region in op.regions:
            _check([v.type for v in region.terminator.operands] == result_types, "if",
                   "each branch must yield the results' types")
    elif op.name == "while":
        before, after = op.regions
        cond = before.ops[-1]
        _check(cond.name == "condition" and cond.operands[0].type == scalar(int1), "while",
               "the before region must end in condition(%cond, values...)")
        _check([v.type for v in cond.operands[1:]] == [a.type for a in after.args] == result_types,
               "while", "condition values must match the after region and the results")
        _check([v.type for v in after.terminator.operands] == [a.type for a in before.args]
               == [v.type for v in op.operands], "while", "after must yield the loop's initial types")
# --8<-- [end:verify]
