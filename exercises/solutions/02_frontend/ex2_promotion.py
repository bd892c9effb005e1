"""Exercise 2.2 (a compiler piece): type promotion, the dtype both sides of `a + b` meet at.

The reference solution. The task, in full, is in exercises/02_frontend/ex2_promotion.py.
"""
from minitriton import ir
from minitriton.language.semantic import SemanticError


def integer_promote(a: ir.DType, b: ir.DType) -> ir.DType:
    if a.is_bool():
        return b
    if b.is_bool():
        return a
    if a.kind == b.kind:
        return a if a.bits >= b.bits else b
    unsigned, signed = (a, b) if a.kind == "uint" else (b, a)
    return unsigned if unsigned.bits >= signed.bits else signed


DIVISIONS = ("div", "floordiv", "rem")


def computation_type(a: ir.DType, b: ir.DType, op: str) -> ir.DType:
    if a.is_floating() or b.is_floating():
        for wide in (ir.float64, ir.float32):
            if wide in (a, b):
                return wide
        if op in DIVISIONS:
            return ir.float32
        if ir.float16 in (a, b):
            return ir.float16
        return ir.bfloat16 if a == b else ir.float32
    if op in DIVISIONS and a.kind != b.kind and not a.is_bool() and not b.is_bool():
        raise SemanticError(f"cannot divide {a} by {b}: they have different signedness")
    if op == "div":
        return ir.float32
    return integer_promote(a, b)
