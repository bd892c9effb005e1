"""The CUDA code generator's register rules run on this machine's CPU, through LLVM's JIT.

A register rule (`codegen/elementwise.py`, a reduction's combine step in `codegen/movement.py`) is
LLVM IR for one register. Where that IR needs nothing of the GPU (no NVVM intrinsic, no inline
PTX: integer and fp32/fp64 arithmetic, comparisons, selects, LLVM's generic intrinsics), it means
the same on any target, so the CPU suite can run it on numbers and hold it to the interpreter's
answer: a signed predicate where an unsigned one belongs, or a missing special case, shows here as
a wrong value before any GPU runs the kernel. Used by tests/test_agreement.py.
"""
from __future__ import annotations

import ctypes
import multiprocessing
from typing import Callable

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir as ll

from minitriton import ir
from minitriton.codegen.lowering import Lowering, i8, ll_type

llvm.initialize_native_target()
llvm.initialize_native_asmprinter()


class HostLowering:
    """What a register rule uses of a `Lowering`: its builder, and intrinsics declared once."""

    intrinsic, call, to_f32 = Lowering.intrinsic, Lowering.call, Lowering.to_f32

    def __init__(self, module: ll.Module, builder: ll.IRBuilder):
        self.module, self.b, self.intrinsics = module, builder, {}


def _memory_type(dtype: ir.DType) -> ll.Type:
    return i8 if dtype.is_bool() else ll_type(dtype)  # a boolean is a byte in memory, as numpy's


def run_rule(build: Callable, inputs: list[ir.DType], outputs: list[ir.DType], *columns) -> list[np.ndarray]:
    """`build(lowering, *registers)` gives one element's output registers from its input
    registers; `columns` holds one array per input. Returns one array per output, computed by the
    JIT-compiled rule element by element, in a child process: a rule that lets an undefined
    instruction through (x86 traps on INT_MIN / -1) fails the test instead of ending the run."""
    assert len(columns) == len(inputs), "one column per input"
    columns = [np.ascontiguousarray(c, dtype.np) for c, dtype in zip(columns, inputs)]
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=lambda: sender.send(_compute(build, inputs, outputs, columns)))
    child.start()
    sender.close()  # the child's end: the pipe ends with the child
    try:
        answers = receiver.recv()
    except EOFError:
        answers = None
    child.join()
    assert child.exitcode == 0 and answers is not None, \
        f"the rule's code ended its process (exit code {child.exitcode})"
    return answers


def _compute(build: Callable, inputs: list[ir.DType], outputs: list[ir.DType], columns: list[np.ndarray]):
    module = ll.Module(name="host_rule")
    ptr = ll.PointerType()
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), [ptr] * (len(outputs) + len(inputs))), "element")
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    out_ptrs, in_ptrs = fn.args[:len(outputs)], fn.args[len(outputs):]
    registers = []
    for p, dtype in zip(in_ptrs, inputs):
        value = b.load(p, typ=_memory_type(dtype))
        registers.append(b.trunc(value, ll_type(dtype)) if dtype.is_bool() else value)
    results = build(HostLowering(module, b), *registers)
    for p, dtype, value in zip(out_ptrs, outputs, results, strict=True):
        b.store(b.zext(value, i8) if dtype.is_bool() else value, p)
    b.ret_void()
    compiled = llvm.parse_assembly(str(module))
    compiled.triple = llvm.get_process_triple()
    engine = llvm.create_mcjit_compiler(compiled, llvm.Target.from_default_triple().create_target_machine())
    engine.finalize_object()
    element = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * len(fn.args))(engine.get_function_address("element"))
    answers = [np.zeros(len(columns[0]), dtype.np) for dtype in outputs]
    for k in range(len(columns[0])):
        element(*[a.ctypes.data + k * a.itemsize for a in answers + columns])
    return answers
