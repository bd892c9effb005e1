"""Exercise 8.1 (a compiler piece): an LLVM lowering rule for a new op, `clamp`.

`%r = clamp %x, %lo, %hi` gives, per element, min(max(x, lo), hi); a NaN in x gives NaN (exercise
3.3 taught it to the interpreter). Write its rule for `codegen/llvm.py`'s table (chapter 8):
`clamp_rule(lw, op, x, lo, hi)` receives the three operands' registers (lists of llvmlite values,
one per register this thread holds, all of the same length) and returns the result's registers.

Support fp32 and int32 (signed): `op.operands[0].dtype` is `ir.float32` or `ir.int32`. Use
target-independent LLVM only, so that the rule also runs on the CPU (the tests run it there with
LLVM's JIT, then compile it to PTX): instructions of the builder `lw.b` (an `llvmlite.ir.IRBuilder`:
`icmp_signed`, `select`, ...) and, for floats, the intrinsics `llvm.maximum.f32` and
`llvm.minimum.f32`, which keep NaNs, called as `lw.call(name, return_type, [args])`. The LLVM types
are `codegen.lowering.f32` and `codegen.lowering.i32`.
"""
from minitriton import ir  # noqa: F401
from minitriton.codegen.lowering import f32, i32  # noqa: F401


def clamp_rule(lw, op: ir.Op, x: list, lo: list, hi: list) -> list:
    raise NotImplementedError("exercise 8.1: clamp_rule")
