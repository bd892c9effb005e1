"""The functions of NVIDIA's libdevice that a kernel may call, and which symbol serves which types.

Place in the pipeline: data under the language. `tl.extra.libdevice.<name>(...)` looks its arguments'
dtypes up here (`language/extern.py`) and emits one `extern_elementwise` op naming the symbol it found
(`__nv_sinf` for fp32, `__nv_sin` for fp64); the interpreter runs that symbol's numpy twin
(`libdevice/twins.py`) and codegen links the symbol's body from NVIDIA's bitcode. The names, the
arguments and the dtype dispatch are those of Triton 3.6's `triton.language.extra.cuda.libdevice`.
Most functions follow one pattern (an fp32 `__nv_<name>f` and an fp64 `__nv_<name>`), so the table is
written as a few families and the exceptions one by one. Chapter: 02-frontend.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dtypes import DType, float32, float64, int32, int64, uint32, uint64

I32, I64, U32, U64, F32, F64 = int32, int64, uint32, uint64, float32, float64


@dataclass(frozen=True)
class Variant:
    """One symbol of a function: the argument dtypes it takes and the dtype it gives."""

    args: tuple[DType, ...]
    symbol: str
    result: DType


# --8<-- [start:table]
FUNCTIONS: dict[str, tuple[Variant, ...]] = {}


def _add(name: str, *variants: tuple) -> None:
    """`variants`: (argument dtypes, symbol, result dtype) for each dtype the function takes."""
    assert name not in FUNCTIONS, f"libdevice.{name} is listed twice"
    FUNCTIONS[name] = tuple(Variant(tuple(args), symbol, result) for args, symbol, result in variants)


def _float_family(names: str, arity: int = 1, result32: DType = F32, result64: DType = F64) -> None:
    """fp32 arguments call `__nv_<name>f`, fp64 arguments `__nv_<name>` (C's naming)."""
    for name in names.split():
        _add(name, ((F32,) * arity, f"__nv_{name}f", result32),
             ((F64,) * arity, f"__nv_{name}", result64))


# -- math on floats: the common pattern ------------------------------------------------------------
_float_family("""sin cos tan sinpi cospi asin acos atan sinh cosh tanh asinh acosh atanh
                 exp exp2 exp10 expm1 log log2 log10 log1p logb sqrt rsqrt cbrt rcbrt
                 floor ceil trunc round rint nearbyint
                 erf erfc erfcx erfinv erfcinv normcdf normcdfinv lgamma tgamma
                 j0 j1 y0 y1 cyl_bessel_i0 cyl_bessel_i1""")
_float_family("atan2 hypot rhypot copysign nextafter fmod remainder fdim", arity=2)
_float_family("fma norm3d rnorm3d", arity=3)
_float_family("norm4d rnorm4d", arity=4)
_float_family("ilogb", result32=I32, result64=I32)
_float_family("llrint llround", result32=I64, result64=I64)
# --8<-- [end:table]

# -- the exceptions ----------------------------------------------------------------------------------
_add("abs", ((I32,), "__nv_abs", I32), ((I64,), "__nv_llabs", I64), ((F32,), "__nv_fabsf", F32),
     ((F64,), "__nv_fabs", F64))
_add("pow", ((F32, I32), "__nv_powif", F32), ((F64, I32), "__nv_powi", F64), ((F32, F32), "__nv_powf", F32),
     ((F64, F64), "__nv_pow", F64))
for _name in ("ldexp", "scalbn"):
    _add(_name, ((F32, I32), f"__nv_{_name}f", F32), ((F64, I32), f"__nv_{_name}", F64))
for _name in ("jn", "yn"):  # the order first: jn(n, x)
    _add(_name, ((I32, F32), f"__nv_{_name}f", F32), ((I32, F64), f"__nv_{_name}", F64))
_add("isnan", ((F32,), "__nv_isnanf", I32), ((F64,), "__nv_isnand", I32))  # int32 0 or 1, as C's
_add("isinf", ((F32,), "__nv_isinff", I32), ((F64,), "__nv_isinfd", I32))
_add("signbit", ((F32,), "__nv_signbitf", I32), ((F64,), "__nv_signbitd", I32))
_add("finitef", ((F32,), "__nv_finitef", I32))
_add("isfinited", ((F64,), "__nv_isfinited", I32))

# fp32 only, or fp64 only
_add("saturatef", ((F32,), "__nv_saturatef", F32))
_add("rsqrt_rn", ((F32,), "__nv_frsqrt_rn", F32))
_add("fast_dividef", ((F32, F32), "__nv_fast_fdividef", F32))
_add("fast_powf", ((F32, F32), "__nv_fast_powf", F32))
for _name in "sinf cosf tanf expf exp10f logf log2f log10f".split():
    _add(f"fast_{_name}", ((F32,), f"__nv_fast_{_name}", F32))
_add("rcp64h", ((F64,), "__nv_rcp64h", F64))

# -- arithmetic in each IEEE rounding mode: to nearest, toward zero, down, up --------------------------
for _mode in ("rn", "rz", "rd", "ru"):
    for _op in ("add", "sub", "mul", "div"):
        _add(f"{_op}_{_mode}", ((F32, F32), f"__nv_f{_op}_{_mode}", F32),
             ((F64, F64), f"__nv_d{_op}_{_mode}", F64))
    _add(f"fma_{_mode}", ((F32,) * 3, f"__nv_fmaf_{_mode}", F32), ((F64,) * 3, f"__nv_fma_{_mode}", F64))
    _add(f"rcp_{_mode}", ((F32,), f"__nv_frcp_{_mode}", F32), ((F64,), f"__nv_drcp_{_mode}", F64))
    _add(f"sqrt_{_mode}", ((F32,), f"__nv_fsqrt_{_mode}", F32), ((F64,), f"__nv_dsqrt_{_mode}", F64))

# -- conversions in each rounding mode (an unsigned result comes back in the signed type, as in Triton) -
# name: (argument, result)
_CONVERSIONS = {
    "double2float": (F64, F32), "double2int": (F64, I32), "double2uint": (F64, I32),
    "double2ll": (F64, I64), "double2ull": (F64, I64),
    "float2int": (F32, I32), "float2uint": (F32, I32), "float2ll": (F32, I64), "float2ull": (F32, I64),
    "int2float": (I32, F32), "uint2float": (U32, F32), "ll2float": (I64, F32), "ull2float": (U64, F32),
    "ll2double": (I64, F64), "ull2double": (U64, F64),
}
for _name, (_arg, _result) in _CONVERSIONS.items():
    for _mode in ("rn", "rz", "rd", "ru"):
        _add(f"{_name}_{_mode}", ((_arg,), f"__nv_{_name}_{_mode}", _result))
_add("int2double_rn", ((I32,), "__nv_int2double_rn", F64))  # exact: no other mode is needed
_add("uint2double_rn", ((U32,), "__nv_uint2double_rn", F64))

# -- reinterpreting bits -----------------------------------------------------------------------------
for _name, _arg, _result in (("int_as_float", I32, F32), ("float_as_int", F32, I32),
                             ("uint_as_float", U32, F32), ("float_as_uint", F32, I32),
                             ("longlong_as_double", I64, F64), ("double_as_longlong", F64, I64),
                             ("double2loint", F64, I32), ("double2hiint", F64, I32)):
    _add(_name, ((_arg,), f"__nv_{_name}", _result))
_add("hiloint2double", ((I32, I32), "__nv_hiloint2double", F64))

# -- integers ----------------------------------------------------------------------------------------
for _name in ("clz", "popc", "ffs"):  # a count or a position: int32 for both widths
    _add(_name, ((I32,), f"__nv_{_name}", I32), ((I64,), f"__nv_{_name}ll", I32))
_add("brev", ((I32,), "__nv_brev", I32), ((I64,), "__nv_brevll", I64))
_add("mulhi", ((I32, I32), "__nv_mulhi", I32), ((U32, U32), "__nv_umulhi", U32),
     ((I64, I64), "__nv_mul64hi", I64), ((U64, U64), "__nv_umul64hi", U64))
for _name in ("mul24", "hadd", "rhadd"):
    _add(_name, ((I32, I32), f"__nv_{_name}", I32), ((U32, U32), f"__nv_u{_name}", U32))
_add("sad", ((I32, I32, U32), "__nv_sad", I32), ((U32, U32, U32), "__nv_usad", U32))
_add("byte_perm", ((I32, I32, I32), "__nv_byte_perm", I32))

SYMBOLS: dict[str, Variant] = {v.symbol: v for variants in FUNCTIONS.values() for v in variants}
