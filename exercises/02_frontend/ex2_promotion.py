"""Exercise 2.2 (a compiler piece): type promotion, the dtype both sides of `a + b` meet at.

Write Triton's rules for two element types (`minitriton.ir` DTypes; see `dtype.kind`, `dtype.bits`,
`dtype.is_floating()`, `dtype.is_bool()`):

`integer_promote(a, b)` for two integer types: a bool (int1) gives way to the other type; the same
signedness meets at the wider type; mixed signedness gives the unsigned type unless the signed one
is strictly wider (uint8 + int8 -> uint8, uint8 + int16 -> int16, uint32 + int32 -> uint32).

`computation_type(a, b, op)`, where `op` names the operator ("add", "mul", "div" for `/`,
"floordiv" for `//`, "rem" for `%`, ...). If either side is a float: fp64 wins over everything,
then fp32; otherwise a 16-bit float is involved, and the divisions ("div", "floordiv", "rem") are
done in fp32 (PTX has no 16-bit division), while any other op meets at fp16 if either side is fp16,
else at bf16 if both sides are bf16, else (bf16 and an integer) at fp32. Two integers: a division of a signed by an unsigned integer (neither a bool) is a
mistake, raise `SemanticError`; `/` ("div") of integers is a float division in fp32; anything
else uses `integer_promote`.

Then the tests compile kernels with your `computation_type` in the compiler's place (exercise
mode, `minitriton.exercise_hooks`): the types of their arithmetic are yours. (The compiler's own
rule also covers the fp8 types of chapter 8; the tests leave them out.)
"""
from minitriton import ir
from minitriton.language.semantic import SemanticError  # noqa: F401  (you will raise it)


def integer_promote(a: ir.DType, b: ir.DType) -> ir.DType:
    raise NotImplementedError("exercise 2.2: integer_promote")


def computation_type(a: ir.DType, b: ir.DType, op: str) -> ir.DType:
    raise NotImplementedError("exercise 2.2: computation_type")
