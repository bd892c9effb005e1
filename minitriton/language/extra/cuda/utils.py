"""`triton.language.extra.cuda`'s own functions: what a kernel can ask of an NVIDIA GPU.

- `smid()`: the multiprocessor the program runs on (`%smid`); in the interpreter, 0;
- `globaltimer()`: the GPU's nanosecond clock (`%globaltimer`, int64); in the interpreter,
  `time.perf_counter_ns()`, read when the op runs: both only measure intervals;
- `num_warps()`, `num_threads()`: the launch's warps and threads, as compile-time constants;
- `gdc_wait()`, `gdc_launch_dependents()`: programmatic dependent launch's two instructions
  (`griddepcontrol`, sm_90 and later; nothing before, and nothing in the interpreter);
- `convert_custom_float8_sm80` / `_sm70`: Triton's fp8e4b15 conversions (exponent bias 15, no
  infinities or NaNs). minitriton has no fp8 dtype yet, so an fp8e4b15 value travels as its uint8
  bit pattern: uint8 -> fp16/fp32 decodes, fp16/fp32 -> uint8 encodes, as Triton's PTX does.

Chapter: 02-frontend.
"""
from __future__ import annotations

from .... import ir
from ... import core, semantic
from ...semantic import SemanticError


@core.builtin
def smid(_builder=None, _semantic=None) -> core.tensor:
    return core.tensor(semantic.emit("special_register", [], register="smid"))


@core.builtin
def globaltimer(_builder=None, _semantic=None) -> core.tensor:
    return core.tensor(semantic.emit("special_register", [], register="globaltimer"))


@core.builtin
def gdc_wait(_builder=None, _semantic=None) -> None:
    """Wait until the grid this one was launched after (programmatic dependent launch) is done and
    its memory visible; a no-op without such a launch, and in the interpreter."""
    semantic.builder().create("griddepcontrol", [], {"control": "wait"})


@core.builtin
def gdc_launch_dependents(_builder=None, _semantic=None) -> None:
    """Let the grid launched after this one start; a hint, a no-op without such a launch."""
    semantic.builder().create("griddepcontrol", [], {"control": "launch_dependents"})


@core.builtin
def num_warps(_builder=None, _semantic=None) -> core.constexpr:
    return core.constexpr(semantic.num_warps())


@core.builtin
def num_threads(_builder=None, _semantic=None) -> core.constexpr:
    return core.constexpr(semantic.num_warps() * 32)


def _fp8e4b15_to_float(bits: ir.Value, dtype: ir.DType) -> ir.Value:
    """fp8e4b15 and fp16 share their exponent bias, 15: the sign moves to bit 15, exponent and
    mantissa move up 7 bits, and the result is an fp16 exactly."""
    wide = semantic.cast(bits, ir.int32)
    sign = semantic.binary("shl", semantic.binary("and", wide, semantic.Weak(0x80)), semantic.Weak(8))
    rest = semantic.binary("shl", semantic.binary("and", wide, semantic.Weak(0x7F)), semantic.Weak(7))
    half = semantic.cast(semantic.cast(semantic.binary("or", sign, rest), ir.int16), ir.float16, bitcast=True)
    return semantic.cast(half, dtype)


def _float_to_fp8e4b15(x: ir.Value) -> ir.Value:
    """Round to fp8e4b15 as Triton's PTX does: fp32 first to fp16 toward zero, then the magnitude
    clamped to 1.75 (NaN too), its top bits rounded half up, and the sign put back."""
    if x.dtype == ir.float32:
        nearest = semantic.cast(x, ir.float16)
        bits = semantic.cast(nearest, ir.int16, bitcast=True)
        magnitude_up = semantic.compare("gt", semantic.emit("abs", [semantic.cast(nearest, ir.float32)]),
                                        semantic.emit("abs", [x]))
        bits = semantic.where(magnitude_up, semantic.binary("sub", bits, semantic.Weak(1)), bits)
    else:
        bits = semantic.cast(x, ir.int16, bitcast=True)
    wide = semantic.binary("and", semantic.cast(bits, ir.int32), semantic.Weak(0xFFFF))
    magnitude = semantic.minmax("minimum", semantic.binary("and", wide, semantic.Weak(0x7FFF)), semantic.Weak(0x3F00))
    top = semantic.binary("shr", semantic.binary("add", semantic.binary("mul", magnitude, semantic.Weak(2)),
                                                 semantic.Weak(0x80)), semantic.Weak(8))
    sign = semantic.binary("and", semantic.binary("shr", wide, semantic.Weak(8)), semantic.Weak(0x80))
    return semantic.cast(semantic.binary("or", top, sign), ir.uint8)


def _convert_custom_float8(arg, dst_ty) -> core.tensor:
    x, dst_ty = core._value(arg), core._dtype(dst_ty)
    if x.dtype in (ir.uint8, ir.int8) and dst_ty in (ir.float16, ir.float32):
        return core.tensor(_fp8e4b15_to_float(semantic.cast(x, ir.uint8, bitcast=True), dst_ty))
    if x.dtype in (ir.float16, ir.float32):
        return core.tensor(_float_to_fp8e4b15(x))
    raise SemanticError(f"convert_custom_float8 converts fp8e4b15 (as uint8 bits) to fp16 or fp32, "
                        f"and fp16 or fp32 to fp8e4b15; got {x.dtype} to {dst_ty}",
                        "convert other types through fp16 or fp32 first")


@core.builtin
def convert_custom_float8_sm80(arg, dst_ty, fp_downcast_rounding=None, _builder=None, _semantic=None):
    return _convert_custom_float8(arg, dst_ty)


@core.builtin
def convert_custom_float8_sm70(arg, dst_ty, fp_downcast_rounding=None, _builder=None, _semantic=None):
    return _convert_custom_float8(arg, dst_ty)  # the same numbers: sm_70 only lacks min.f16x2
