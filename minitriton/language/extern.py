"""Calls into a device library, element by element: the typing rule of `tl.extern_elementwise` and
of every function of `tl.extra.libdevice`.

A library function comes in versions, one per tuple of argument dtypes (`sin`: `__nv_sinf` for fp32,
`__nv_sin` for fp64). `call` picks the version, broadcasts the arguments to one shape and emits one
`extern_elementwise` op naming the symbol and the result dtype. The pick is Triton's: a Python
number is an int32 (int64 if it needs to be) or an fp32, and the argument dtypes must match a
version exactly. Where they do not, two more chances, which Triton does not give: a Python float
next to float tensors takes their dtype (`pow(x_fp64, 2.0)`), and fp16 and bf16 arguments use the
fp32 version, computed in fp32 and rounded back, as minitriton computes its other math on 16-bit
floats. Chapter: 02-frontend.
"""
from __future__ import annotations

from .. import ir
from ..ir import DType, Value
from ..libdevice.table import FUNCTIONS, Variant
from . import semantic
from .semantic import SemanticError, Weak

Versions = dict[tuple[DType, ...], tuple[str, DType]]  # argument dtypes -> (symbol, result dtype)


def python_number_dtype(value) -> DType:
    """The dtype Triton gives a Python number passed to a library function."""
    if isinstance(value, bool):
        return ir.int1
    if isinstance(value, int):
        for dtype, low, high in ((ir.int32, -2**31, 2**31), (ir.uint32, 0, 2**32), (ir.int64, -2**63, 2**63),
                                 (ir.uint64, 0, 2**64)):
            if low <= value < high:
                return dtype
        raise SemanticError(f"Nonrepresentable integer {value}: it does not fit in 64 bits",
                            "integers in a kernel have at most 64 bits")
    magnitude = abs(value)
    in_fp32 = magnitude in (0.0, float("inf")) or value != value or 2**-126 <= magnitude <= (2 - 2**-23) * 2**127
    return ir.float32 if in_fp32 else ir.float64


def _is_16bit_float(dtype: DType) -> bool:
    return dtype.is_fp16() or dtype.is_bf16()


# --8<-- [start:call]
def versions_of(variants: tuple[Variant, ...]) -> Versions:
    return {v.args: (v.symbol, v.result) for v in variants}


def libdevice(name: str, args: list) -> Value:
    """libdevice's function `name` (`tl.extra.libdevice.name`) of `args`."""
    return call(f"libdevice.{name}", versions_of(FUNCTIONS[name]), args)


def call(name: str, versions: Versions, args: list, libpath: str = "") -> Value:
    """`name(*args)`, element by element, with the version of the function the dtypes pick."""
    exact = tuple(python_number_dtype(a.value) if isinstance(a, Weak) else a.dtype for a in args)
    if exact in versions:
        symbol, result = versions[exact]
        dtypes = exact
    else:
        floats = {a.dtype for a in args if not isinstance(a, Weak) and a.dtype.is_floating()}
        common = floats.pop() if len(floats) == 1 else None
        dtypes = tuple(common if isinstance(a, Weak) and isinstance(a.value, float) and common else d
                       for a, d in zip(args, exact))
        widened = tuple(ir.float32 if _is_16bit_float(d) else d for d in dtypes)
        if widened not in versions or widened != dtypes and common is None:
            taken = "; ".join("(" + ", ".join(map(str, key)) + ")" for key in versions)
            given = ", ".join(map(str, exact))
            raise SemanticError(f"{name} has no version for arguments ({given}): it takes {taken} "
                                f"(input arg type does not match)",
                                "convert the arguments with .to(tl.float32) or another listed type")
        symbol, result = versions[widened]
        if result == ir.float32 and widened != dtypes:
            result = common  # computed in fp32, rounded back to the 16-bit type
    values = [semantic.constant(a.value, d) if isinstance(a, Weak) else a for a, d in zip(args, dtypes)]
    shape = ()
    for v in values:
        shape = semantic.broadcast_shapes(shape, v.shape)
    values = [semantic.broadcast_to(v, shape) for v in values]
    # libdevice is linked wherever its functions are called, so a path to it (as Triton 2.x's
    # kernels pass) is not kept: it would be linked twice
    keep_path = libpath and not symbol.startswith("__nv_")
    attrs = {"symbol": symbol, "dtype": result, **({"libpath": libpath} if keep_path else {})}
    return semantic.emit("extern_elementwise", values, **attrs)
# --8<-- [end:call]


def versions_from(arg_type_symbol_dict: dict) -> Versions:
    """Triton's `{(dtype, ...): (symbol, dtype)}`, its dtypes given as dtypes or by name."""
    def dtype(d) -> DType:
        d = getattr(d, "value", d)  # a constexpr
        return d if isinstance(d, DType) else ir.dtype_named(str(d))
    return {tuple(dtype(d) for d in key): (symbol, dtype(result))
            for key, (symbol, result) in arg_type_symbol_dict.items()}
