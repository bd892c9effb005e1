"""Tile IR built by hand with `ir.Builder`, printed, verified and run in the interpreter (chapter 3).

Run it from the repository root with `.venv/bin/python chapters/examples/hand_built_ir.py`.
"""
import numpy as np

from minitriton import ir
from minitriton.interpreter import Memory, interpret


# --8<-- [start:build]
def build_scale(block: int) -> ir.Function:
    """out[i] = 2 * x[i] for the `block` elements of program 0: no frontend, just the builder."""
    x_ptr = ir.Value(ir.scalar(ir.pointer_type(ir.float32)), name="x_ptr")
    out_ptr = ir.Value(ir.scalar(ir.pointer_type(ir.float32)), name="out_ptr")
    b = ir.Builder()
    offsets = b.value("arange", [], start=0, end=block)
    x_ptrs = b.value("addptr", [b.value("splat", [x_ptr], shape=(block,)), offsets])
    x = b.value("load", [x_ptrs])
    two = b.value("splat", [b.constant(2.0, ir.float32)], shape=(block,))
    out_ptrs = b.value("addptr", [b.value("splat", [out_ptr], shape=(block,)), offsets])
    b.create("store", [out_ptrs, b.value("mul", [x, two])])
    return ir.Function("scale", [x_ptr, out_ptr], b.block)
# --8<-- [end:build]


# --8<-- [start:run]
def run_scale(x: np.ndarray) -> np.ndarray:
    fn = build_scale(x.size)
    ir.verify(fn)
    memory, out = Memory(), np.full_like(x, np.nan)
    interpret(fn, (1, 1, 1), [memory.add(x, "x_ptr"), memory.add(out, "out_ptr")], memory)
    return out
# --8<-- [end:run]


# --8<-- [start:break]
def break_scale() -> str:
    """What the verifier says when a pass leaves an op whose operands no longer fit its rule."""
    fn = build_scale(8)
    store = fn.body.ops[-1]
    store.operands[1] = fn.body.ops[0].result  # a pass "forgot" a cast: int32 values, fp32 pointers
    try:
        ir.verify(fn)
    except ir.VerificationError as e:
        return str(e)
    raise AssertionError("the verifier accepted a store of int32 values through fp32 pointers")
# --8<-- [end:break]


if __name__ == "__main__":
    print(ir.print_function(build_scale(8)))
    print(run_scale(np.arange(8, dtype=np.float32)))
    print(break_scale())
