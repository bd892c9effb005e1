"""Tests for exercise 8.1: run with `make exercise CH=8 EX=1`."""
import ctypes
import re

import llvmlite.binding as llvm
import numpy as np
import pytest
from _impl import load
from llvmlite import ir as ll

from minitriton import ir
from minitriton.codegen import llvm as codegen
from minitriton.codegen import ptx
from minitriton.codegen.lowering import f32, i32
from minitriton.passes.barriers import insert_barriers
from minitriton.passes.coalesce import coalesce
from minitriton.passes.layout import assign_layouts
from minitriton.passes.shared import assign_shared

impl = load("08_llvm/ex1_clamp_lowering")
REGISTERS = 4  # registers per call: the rule must work register by register


class HostLowering:
    """The two things a rule uses of `codegen.lowering.Lowering`, for a function that runs on this CPU."""

    def __init__(self, module: ll.Module, builder: ll.IRBuilder):
        self.module, self.b, self.declared = module, builder, {}

    def call(self, name, ret, args):
        if name not in self.declared:
            self.declared[name] = ll.Function(self.module, ll.FunctionType(ret, [a.type for a in args]), name)
        return self.b.call(self.declared[name], args)


def clamp_op(dtype: ir.DType) -> ir.Op:
    operands = [ir.Value(ir.tile((REGISTERS,), dtype)) for _ in range(3)]
    op = ir.Op("clamp", operands, [])
    op.results = [ir.Value(ir.tile((REGISTERS,), dtype), op)]
    return op


def run_on_the_cpu(dtype: ir.DType, x, lo, hi) -> np.ndarray:
    """Build `void f(T* in, T* out)`: out[k] = clamp(in[k], in[4 + k], in[8 + k]) through the rule."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    elem = f32 if dtype == ir.float32 else i32
    module = ll.Module("clamp_on_the_cpu")
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), [ll.PointerType(), ll.PointerType()]), "f")
    b = ll.IRBuilder(fn.append_basic_block())
    source, dest = fn.args
    loads = [b.load(b.gep(source, [ll.Constant(i32, i)], source_etype=elem), typ=elem)
             for i in range(3 * REGISTERS)]
    registers = impl.clamp_rule(HostLowering(module, b), clamp_op(dtype), loads[:REGISTERS],
                                loads[REGISTERS:2 * REGISTERS], loads[2 * REGISTERS:])
    assert len(registers) == REGISTERS, "one result register per operand register"
    for i, value in enumerate(registers):
        b.store(value, b.gep(dest, [ll.Constant(i32, i)], source_etype=elem))
    b.ret_void()
    parsed = llvm.parse_assembly(str(module))
    parsed.verify()
    engine = llvm.create_mcjit_compiler(parsed, llvm.Target.from_default_triple().create_target_machine())
    engine.finalize_object()
    np_type = np.float32 if dtype == ir.float32 else np.int32
    inputs = np.concatenate([x, lo, hi]).astype(np_type)
    out = np.zeros(REGISTERS, np_type)
    ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(engine.get_function_address("f"))(
        inputs.ctypes.data, out.ctypes.data)
    return out


def test_floats_on_the_cpu():
    x, lo, hi = [5.0, -1.0, 0.5, np.nan], [0.0] * 4, [1.0] * 4
    np.testing.assert_array_equal(run_on_the_cpu(ir.float32, x, lo, hi), np.float32([1.0, 0.0, 0.5, np.nan]))


def test_lo_above_hi_gives_hi():
    np.testing.assert_array_equal(run_on_the_cpu(ir.float32, [5, -5, 0, 2], [3] * 4, [1] * 4), np.float32([1] * 4))


def test_signed_integers_on_the_cpu():
    out = run_on_the_cpu(ir.int32, [-7, 3, 100, -2**31], [-5] * 4, [50] * 4)
    np.testing.assert_array_equal(out, np.int32([-5, 3, 50, -5]))


def clamp_type(name, operands, attrs):
    x, lo, hi = operands
    if not x.type == lo.type == hi.type:
        raise ir.VerificationError(f"{name}: operands must have one type")
    return [x.type]


def clamp_kernel(dtype: ir.DType) -> ir.Function:
    """out = clamp(x, lo, hi) over one tile of 512 elements, each operand loaded from its own array."""
    args = [ir.Value(ir.scalar(ir.pointer_type(dtype)), name=n) for n in ("x_ptr", "lo_ptr", "hi_ptr", "out_ptr")]
    b = ir.Builder()
    offsets = b.value("arange", [], start=0, end=512)

    def pointers(base):
        return b.value("addptr", [b.value("splat", [base], shape=(512,)), offsets])

    x, lo, hi = (b.value("load", [pointers(a)]) for a in args[:3])
    b.create("store", [pointers(args[3]), b.value("clamp", [x, lo, hi])])
    return ir.Function("clamp_kernel", args, b.block, arg_attrs=[{"divisibility": 16}] * 4)


@pytest.mark.parametrize("dtype, words", [(ir.float32, ("max", "min")), (ir.int32, ("max.s32", "min.s32"))])
def test_the_rule_in_the_cuda_backend(monkeypatch, dtype, words):
    monkeypatch.setitem(ir.OPS, "clamp", clamp_type)
    monkeypatch.setitem(codegen.RULES, "clamp", impl.clamp_rule)
    fn = clamp_kernel(dtype)
    assign_layouts(fn, 4, coalesce(fn, 4))
    assign_shared(fn)
    insert_barriers(fn)
    text = ptx.llvm_to_ptx(codegen.lower(fn, 4, "sm_80"), "sm_80")
    for word in words:
        assert re.search(rf"\b{re.escape(word)}", text), f"no {word} in the PTX"
    if ptx.ptxas_path():
        ptx.ptx_to_cubin(text, "sm_80")  # raises if ptxas rejects it
