"""`minitriton.language` (imported as `tl`): what a kernel may call, mirroring `triton.language`.

Each builtin takes the frontend's values (a `tensor` wrapping an IR value, or a Python constant),
hands them to `semantic`, and wraps what comes back. Calling one outside a kernel is an error: these
functions build IR, they do not compute. Chapter: 02-frontend.
"""
from __future__ import annotations

import builtins
import functools
from typing import Any

from .. import ir
from ..ir import DType, dtype_named
from . import dots, extern as _extern, semantic, tiles
from .semantic import SemanticError, Weak

# The dtypes, under Triton's names (one home: minitriton.ir).
dtype = DType
int1, int8, int16, int32, int64 = ir.int1, ir.int8, ir.int16, ir.int32, ir.int64
uint8, uint16, uint32, uint64 = ir.uint8, ir.uint16, ir.uint32, ir.uint64
float16, bfloat16, float32, float64 = ir.float16, ir.bfloat16, ir.float32, ir.float64
float8e4nv, float8e5, float8e4b15 = ir.float8e4nv, ir.float8e5, ir.float8e4b15
float8e4b8, float8e5b16 = ir.float8e4b8, ir.float8e5b16  # AMD's: no NVIDIA GPU has them


class _PointerTypes(type):
    def __instancecheck__(cls, value) -> bool:
        return isinstance(value, DType) and value.is_ptr()


class pointer_type(metaclass=_PointerTypes):
    """`tl.pointer_type(tl.float16)`: the type of a pointer to fp16 (a DType); and, as in Triton,
    `isinstance(t, tl.pointer_type)` asks whether `t` is a pointer type."""

    def __new__(cls, element_ty, address_space=1, const=False):
        return ir.pointer_type(element_ty, const)


pi32_t = pointer_type(int32)
TRITON_MAX_TENSOR_NUMEL = semantic.MAX_NUMEL  # the most elements a tile may have, as in Triton


class constexpr:
    """A compile-time constant: as an annotation (`BLOCK: tl.constexpr`) or a wrapper (`tl.constexpr(4)`)."""

    def __init__(self, value: Any):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self) -> str:
        return f"constexpr[{self.value!r}]"

    def __index__(self) -> int:
        return self.value

    def __bool__(self) -> bool:
        return bool(self.value)

    def __eq__(self, other) -> bool:
        return self.value == _unwrap(other)

    def __hash__(self) -> int:
        return hash(self.value)


class constexpr_type:
    """The type of a constexpr value (Triton's name for it; kernels compare types with it)."""

    def __init__(self, value: Any):
        self.value = constexpr_value(value)

    def __eq__(self, other) -> bool:
        return isinstance(other, constexpr_type) and self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"constexpr_type[{self.value!r}]"


class const:
    """An annotation for a pointer parameter whose data the kernel only reads (`x_ptr: tl.const`):
    storing through it, or through any pointer made from it, is a compile error."""


def is_const(annotation) -> bool:
    """Whether a parameter's annotation is `tl.const` (the class, or its name as text)."""
    if isinstance(annotation, str):
        return annotation.strip("'\"").split(".")[-1] == "const"
    return annotation is const


def annotated_dtype(annotation) -> DType | None:
    """The element type a parameter's annotation names (`v: tl.int8`, or `"tl.float16"` as text),
    which its argument is converted to, as Triton types an annotated argument; else None."""
    if isinstance(annotation, str):
        name = annotation.strip("'\"").split(".")[-1]
        annotation = globals().get(name)
    return annotation if isinstance(annotation, DType) and not annotation.is_ptr() else None


def constexpr_value(x):
    """`x`, or the value it wraps if it is a constexpr (minitriton's, or Triton's)."""
    return x.value if type(x).__name__ == "constexpr" else x


_unwrap = constexpr_value


# --8<-- [start:constexpr-function]
class constexpr_function:
    """`@triton.constexpr_function`: a Python function that kernels call on compile-time values
    (shapes, dtypes, block sizes), evaluated while the kernel compiles. Its arguments arrive
    without their `tl.constexpr` wrappers and its result is a compile-time value of the kernel;
    called from host code it is the function itself. Its source is part of the cache key of every
    kernel that calls it. A method of an aggregate may be one (`self` is bound as usual)."""

    def __init__(self, fn):
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        return self.fn(*map(constexpr_value, args), **{k: constexpr_value(v) for k, v in kwargs.items()})

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)
# --8<-- [end:constexpr-function]


def is_constexpr(annotation) -> bool:
    """Whether a parameter's annotation makes it a compile-time constant: the class `constexpr`
    (minitriton's, or Triton's for kernels that import it), or its name as text (`"tl.constexpr"`,
    as annotations read under `from __future__ import annotations`, or as the source writes it)."""
    if isinstance(annotation, str):
        return annotation.strip("'\"").endswith("constexpr")
    return getattr(annotation, "__name__", "") == "constexpr"


def builtin(fn=None, *, method: bool = False):
    """Mark a function as a language builtin: the frontend calls it directly while it builds IR.
    With `method`, it is also a method of `tensor` (`x.sum(0)` is `tl.sum(x, 0)`), as Triton's
    tensors offer their free functions."""
    if fn is None:
        return lambda f: builtin(f, method=method)
    fn.__minitriton_builtin__ = True
    if method:
        setattr(tensor, fn.__name__, fn)
    return fn


def get_int_dtype(bitwidth: int, signed: bool) -> DType:
    """The integer dtype of `bitwidth` bits (Triton's `tl.core.get_int_dtype`)."""
    return dtype_named(f"{'int' if signed or bitwidth == 1 else 'uint'}{bitwidth}")


def _operand(x):
    """The semantic layer's view of an argument: an IR value, or a Weak Python number."""
    x = _unwrap(x)
    if isinstance(x, tensor):
        return x.handle
    if isinstance(x, (bool, int, float)):
        return Weak(x)
    if isinstance(x, ir.Value):
        return x
    raise SemanticError(f"expected a tensor or a number, got {type(x).__name__} {x!r}",
                        "give a tensor, a Python number or a tl.constexpr")


def _value(x) -> ir.Value:
    v = _operand(x)
    return semantic.scalar_constant(v.value) if isinstance(v, Weak) else v


def _const(x, what: str):
    x = _unwrap(x)
    if isinstance(x, tensor):
        raise SemanticError(f"{what} must be a compile-time constant, got a tensor",
                            "annotate the argument with tl.constexpr or use a literal")
    return x


def _const_int(x, what: str) -> int:
    x = _const(x, what)
    if not isinstance(x, int) or isinstance(x, bool):
        raise SemanticError(f"{what} must be an integer constant, got {x!r}",
                            "give a Python int or a tl.constexpr parameter")
    return x


def _shape(shape, what: str = "shape") -> tuple[int, ...]:
    shape = _unwrap(shape)
    if isinstance(shape, (int, tensor)):
        shape = (shape,)
    return tuple(_const_int(s, what) for s in shape)


def _dtype(x) -> DType:
    x = _unwrap(x)
    if not isinstance(x, DType):
        raise SemanticError(f"expected a dtype such as tl.float32, got {x!r}",
                            "name it from the language: tl.float32, tl.int64, x.dtype...")
    return x


# --8<-- [start:tensor]
class tensor:
    """A tile (or scalar) inside a kernel being compiled: a handle on the IR value that holds it."""

    def __init__(self, handle: ir.Value):
        self.handle = handle

    @property
    def dtype(self) -> DType:
        return self.handle.dtype

    @property
    def shape(self) -> list[int]:
        return list(self.handle.shape)

    @property
    def type(self) -> ir.Type:
        return self.handle.type

    @property
    def numel(self) -> int:
        return self.handle.type.numel

    def __repr__(self) -> str:
        return f"tensor<{self.handle.type}>"

    def __bool__(self):
        raise SemanticError("a tensor's truth value is only known when the kernel runs",
                            "use it as the condition of an if or while, or combine masks with & and |")

    # Python's operators, through the semantic rules.
    def __add__(self, o): return _binary("add", self, o)
    def __radd__(self, o): return _binary("add", o, self)
    def __sub__(self, o): return _binary("sub", self, o)
    def __rsub__(self, o): return _binary("sub", o, self)
    def __mul__(self, o): return _binary("mul", self, o)
    def __rmul__(self, o): return _binary("mul", o, self)
    def __truediv__(self, o): return _binary("div", self, o)
    def __rtruediv__(self, o): return _binary("div", o, self)
    def __floordiv__(self, o): return _binary("floordiv", self, o)
    def __rfloordiv__(self, o): return _binary("floordiv", o, self)
    def __mod__(self, o): return _binary("rem", self, o)
    def __rmod__(self, o): return _binary("rem", o, self)
    def __and__(self, o): return _binary("and", self, o)
    def __rand__(self, o): return _binary("and", o, self)
    def __or__(self, o): return _binary("or", self, o)
    def __ror__(self, o): return _binary("or", o, self)
    def __xor__(self, o): return _binary("xor", self, o)
    def __rxor__(self, o): return _binary("xor", o, self)
    def __lshift__(self, o): return _binary("shl", self, o)
    def __rlshift__(self, o): return _binary("shl", o, self)
    def __rshift__(self, o): return _binary("shr", self, o)
    def __rrshift__(self, o): return _binary("shr", o, self)
    def __lt__(self, o): return tensor(semantic.compare("lt", _operand(self), _operand(o)))
    def __le__(self, o): return tensor(semantic.compare("le", _operand(self), _operand(o)))
    def __gt__(self, o): return tensor(semantic.compare("gt", _operand(self), _operand(o)))
    def __ge__(self, o): return tensor(semantic.compare("ge", _operand(self), _operand(o)))
    def __eq__(self, o): return tensor(semantic.compare("eq", _operand(self), _operand(o)))
    def __ne__(self, o): return tensor(semantic.compare("ne", _operand(self), _operand(o)))
    def __neg__(self): return tensor(semantic.unary("neg", self.handle))
    def __pos__(self): return self
    def __invert__(self): return tensor(semantic.unary("not", self.handle))
    def __abs__(self): return abs(self)
    __hash__ = object.__hash__
    # --8<-- [end:tensor]

    def __getitem__(self, slices):
        """`x[:, None]`: a None adds a dimension of size 1, a `:` keeps one (one of the tile's own:
        there are no more `:` than it has dimensions)."""
        if not isinstance(slices, tuple):
            slices = (slices,)
        result, dim = self, 0
        for s in slices:
            s = _unwrap(s)
            if s is None:
                result = tensor(tiles.expand_dims(_value(result), dim))
                dim += 1
            elif isinstance(s, slice) and s == slice(None):
                if dim >= len(result.shape):
                    raise SemanticError(f"too many indices for a tensor of dimension {len(self.shape)}",
                                        "write one `:` for each dimension the tile has (and None where a "
                                        "dimension of size 1 is added)")
                dim += 1
            else:
                raise SemanticError(f"unsupported tensor index: {s!r}",
                                    "tiles take only `:` and `None` (x[:, None]); index memory "
                                    "through pointers with tl.load")
        return result

    @builtin
    def to(self, dtype, fp_downcast_rounding=None, bitcast=False):
        return cast(self, dtype, fp_downcast_rounding, bitcast)

    @property
    def T(self):
        return tensor(tiles.trans(self.handle, None))  # the last two axes swapped

    @builtin
    def logical_and(self, other) -> tensor:
        return tensor(semantic.logical("and", self.handle, _operand(other)))

    @builtin
    def logical_or(self, other) -> tensor:
        return tensor(semantic.logical("or", self.handle, _operand(other)))

    def __iter__(self):
        raise SemanticError("cannot iterate over a tensor", "loop with range() over indices")

    def view(self, *shape):
        return tensor(tiles.reshape(self.handle, _shape(shape[0] if len(shape) == 1 else shape)))
    # The other methods are builtins marked `method=True`: x.sum(0), x.reshape(4, 8), x.exp(), ...


def _binary(op: str, a, b) -> tensor:
    return tensor(semantic.binary(op, _operand(a), _operand(b)))


# --8<-- [start:builtins]
@builtin
def program_id(axis) -> tensor:
    """The index of this program instance along `axis` of the launch grid."""
    return tensor(semantic.program_id(_const_int(axis, "program_id's axis")))


@builtin
def num_programs(axis) -> tensor:
    return tensor(semantic.num_programs(_const_int(axis, "num_programs' axis")))


@builtin
def arange(start, end) -> tensor:
    """The int32 tile [start, start + 1, ..., end - 1]; its length must be a power of two."""
    return tensor(tiles.arange(_const_int(start, "arange's start"), _const_int(end, "arange's end")))


# --8<-- [end:builtins]


@builtin
def zeros(shape, dtype) -> tensor:
    return full(shape, 0, dtype)


@builtin
def zeros_like(input) -> tensor:
    return full(input.shape, 0, input.dtype)


@builtin
def full(shape, value, dtype) -> tensor:
    value = _unwrap(value)
    value = value.handle if isinstance(value, tensor) else value
    return tensor(tiles.full(_shape(shape), value, _dtype(dtype)))


@builtin(method=True)
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False) -> tensor:
    """`input` converted to `dtype`; `bitcast` keeps the bits; `fp_downcast_rounding` ("rtne", the
    default, or "rtz") rounds a float narrowed to a smaller float."""
    if _unwrap(bitcast):
        return tensor(semantic.cast(_value(input), _dtype(dtype), bitcast=True))
    return tensor(semantic.cast(_value(input), _dtype(dtype), rounding=_unwrap(fp_downcast_rounding)))


@builtin(method=True)
def item(input) -> tensor:
    """The one element of a one-element tile, as a scalar."""
    x = _value(input)
    if x.type.is_tile and x.type.numel != 1:
        raise SemanticError(f"item() needs a tile of one element, got shape {list(x.shape)}",
                            "reduce the tile (tl.sum, tl.max...) or index memory instead")
    return tensor(semantic.unsplat(x))


def _sanitized(op: str):
    """tl.add, tl.sub, tl.mul: the operators as functions (`sanitize_overflow` asks for checks
    that only Triton's debug mode makes; accepted and ignored)."""
    def fn(x, y, sanitize_overflow=True) -> tensor:
        return _binary(op, x, y)
    fn.__name__ = op
    return builtin(fn)


add, sub, mul = (_sanitized(op) for op in ("add", "sub", "mul"))


@builtin
def to_tensor(x) -> tensor:
    return tensor(_value(x))


@builtin
def where(condition, x, y) -> tensor:
    return tensor(semantic.where(_operand(condition), _operand(x), _operand(y)))


class PropagateNan:
    """Whether tl.minimum, tl.maximum and tl.clamp give NaN when an operand is NaN (ALL), or the
    other operand (NONE, the default: IEEE's minNum and maxNum, what PTX's min and max do)."""

    NONE = 0
    ALL = 0xFFFF


def _nan_mode(propagate_nan) -> bool:
    mode = _unwrap(propagate_nan)
    if mode not in (None, PropagateNan.NONE, PropagateNan.ALL, True, False):
        raise SemanticError(f"Unexpected propagate_nan {mode!r}", "use tl.PropagateNan.NONE or tl.PropagateNan.ALL")
    return bool(mode)


@builtin
def minimum(x, y, propagate_nan=PropagateNan.NONE) -> tensor:
    """The smaller of two values. Python numbers are typed on their own here (as Triton does), and
    bf16 is compared in fp32."""
    return tensor(semantic.minmax("minimum", _value(x), _value(y), _nan_mode(propagate_nan)))


@builtin
def maximum(x, y, propagate_nan=PropagateNan.NONE) -> tensor:
    return tensor(semantic.minmax("maximum", _value(x), _value(y), _nan_mode(propagate_nan)))


@builtin
def clamp(x, min, max, propagate_nan=PropagateNan.NONE) -> tensor:
    """`x` within [min, max], floats only; with PropagateNan.NONE a NaN `x` becomes `min`."""
    x, lo, hi = (_value(v) for v in (x, min, max))
    if not semantic.promoted_bf16(x).dtype.is_floating():
        raise SemanticError(f"Unexpected dtype {x.dtype}. Only floating point clamp is supported",
                            "for integers, use tl.minimum(tl.maximum(x, lo), hi)")
    nan = _nan_mode(propagate_nan)
    return tensor(semantic.minmax("minimum", semantic.minmax("maximum", x, lo, nan), hi, nan))


def _math(op: str):
    def fn(x) -> tensor:
        return tensor(semantic.math(op, _value(x)))
    fn.__name__ = op
    fn.__doc__ = f"Elementwise {op} of a float tile (integers are converted to fp32 first)."
    return builtin(fn, method=True)


exp, exp2, log, log2, sqrt, rsqrt = (_math(op) for op in ("exp", "exp2", "log", "log2", "sqrt", "rsqrt"))
sin, cos, tanh, erf, floor, ceil = (_math(op) for op in ("sin", "cos", "tanh", "erf", "floor", "ceil"))


@builtin(method=True)
def sqrt_rn(x) -> tensor:
    """The square root rounded to nearest (IEEE), libdevice's; `sqrt` is the fast one, as in Triton."""
    return tensor(_extern.libdevice("sqrt_rn", [_operand(x)]))


@builtin(method=True)
def abs(x) -> tensor:
    return tensor(semantic.absolute(_value(x)))


@builtin(method=True)
def fma(x, y, z) -> tensor:
    """x * y + z, rounded once. A Python number is a tensor of its own type here (Triton's
    to_tensor), so `tl.fma(h, 2.0, h)` of an fp16 `h` computes in fp32."""
    a, b = semantic.meet(_value(x), _value(y), "fma")
    a, c = semantic.meet(a, _value(z), "fma")
    b, _ = semantic.meet(b, c, "fma")
    if not a.dtype.is_floating():
        raise SemanticError(f"tl.fma takes floats, got {a.dtype}", "convert the operands: x.to(tl.float32)")
    return tensor(semantic.through_fp32("fma", [a, b, c]))


@builtin(method=True)
def umulhi(x, y) -> tensor:
    """The high half of the product of x and y read as unsigned integers (int32 and int64 too).
    Each tile must be one of Triton's four types (checked before they meet, as Triton does)."""
    allowed = ("int32", "int64", "uint32", "uint64")
    for v in (x, y):
        if isinstance(v, tensor) and v.dtype.name not in allowed:
            raise SemanticError(f"Expected dtype {list(allowed)} but got {v.dtype}",
                                "umulhi is the high half of a 32- or 64-bit integer product")
    a, b = semantic.meet(_value(x), _value(y), "umulhi")  # a number is an int32 tensor (to_tensor)
    if a.dtype.name not in allowed:
        raise SemanticError(f"Expected dtype {list(allowed)} but got {a.dtype}",
                            "umulhi is the high half of a 32- or 64-bit integer product")
    return tensor(semantic.emit("umulhi", [a, b]))


@builtin(method=True)
def fdiv(x, y, ieee_rounding=False) -> tensor:
    """x / y; fp32 division is approximate (2 ulp, as `/` in Triton) unless `ieee_rounding`."""
    result = _binary("div", x, y)
    if _unwrap(ieee_rounding):
        result.handle.owner.attrs["rounding"] = "rn"
    return result


@builtin
def div_rn(x, y) -> tensor:
    """x / y rounded to nearest, as IEEE 754 says."""
    return fdiv(x, y, ieee_rounding=True)


@builtin
def pow(x, y) -> tensor:
    a, b = semantic.meet(_operand(x), _operand(y), "pow")
    if not a.dtype.is_floating():
        a, b = semantic.cast(a, float32), semantic.cast(b, float32)
    return tensor(semantic.through_fp32("pow", [a, b]))


@builtin
def extern_elementwise(lib_name, lib_path, args, arg_type_symbol_dict, is_pure=True, _builder=None,
                       _semantic=None) -> tensor:
    """Triton's call of a device-library function, element by element: `arg_type_symbol_dict` maps
    the argument dtypes to (symbol, result dtype). A symbol of libdevice (`__nv_...`) needs no
    `lib_path`; another library's is linked from the bitcode file `lib_path`. Every library function
    is taken to be pure (`is_pure` is accepted for Triton's signature)."""
    versions = _extern.versions_from(_unwrap(arg_type_symbol_dict))
    name = _unwrap(lib_name) or next(iter(versions.values()))[0]
    return tensor(_extern.call(name, versions, [_operand(a) for a in _unwrap(args)], _unwrap(lib_path) or ""))


def extern(fn):
    """Triton's decorator for a function that calls a device library: it is a builtin."""
    return builtin(fn)


@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
        out_dtype=float32) -> tensor:
    """`acc + input @ other` (batched over a leading dimension for 3-D tiles), on tensor cores where
    the types allow. fp32 operands are rounded to tf32 unless `input_precision` says otherwise
    (`allow_tf32=False`, deprecated, is "ieee"). `max_num_imprecise_acc` is checked and otherwise
    ignored: minitriton's fp8 wgmma always accumulates all of K in the tensor cores."""
    precision, allow_tf32 = _unwrap(input_precision), _unwrap(allow_tf32)
    if precision is not None and allow_tf32 is not None:
        raise SemanticError("Only one of input_precision and allow_tf32 can be specified",
                            "allow_tf32 is deprecated: use input_precision alone")
    if precision is None:
        precision = "tf32" if allow_tf32 in (True, None) else "ieee"
    if not isinstance(precision, str):
        raise SemanticError(f"input_precision must be a string, got {precision!r}",
                            'for example input_precision="ieee"')
    a, b, acc = _value(input), _value(other), _unwrap(acc)
    acc = None if acc is None else _value(acc)
    rank = len(a.shape)
    if rank >= 4 and len(b.shape) == rank:  # Triton folds the leading dimensions into one batch
        batch = a.shape[:-2]
        fold = lambda x: None if x is None else tiles.reshape(x, (x.type.numel // (x.shape[-2] * x.shape[-1]),)
                                                                 + x.shape[-2:])
        folded = dots.dot(fold(a), fold(b), fold(acc), precision, _unwrap(max_num_imprecise_acc),
                              _dtype(out_dtype))
        return tensor(tiles.reshape(folded, batch + folded.shape[-2:]))
    return tensor(dots.dot(a, b, acc, precision, _unwrap(max_num_imprecise_acc), _dtype(out_dtype)))


@builtin(method=True)
def cdiv(x, div):
    """ceil(x / div) for positive integers: the number of blocks of size `div` that cover `x`."""
    x, div = _unwrap(x), _unwrap(div)
    return (x + div - 1) // div


class static_range:
    """`for i in tl.static_range(n)`: the loop is unrolled at compile time; `i` is a constexpr."""

    def __init__(self, arg1, arg2=None, step=None):
        arg1, arg2, step = (None if x is None else _const_int(x, "tl.static_range's bounds")
                            for x in (arg1, arg2, step))
        self.start, self.end = (0, arg1) if arg2 is None else (arg1, arg2)
        self.step = 1 if step is None else step
        if self.step == 0:
            raise SemanticError("tl.static_range's step must not be zero", "count up (step > 0) or down (step < 0)")

    def __iter__(self):
        return iter(builtins.range(self.start, self.end, self.step))

    def __len__(self) -> int:
        return len(builtins.range(self.start, self.end, self.step))


class range:
    """`for i in tl.range(lo, hi, step, num_stages=...)`: a loop kept in the IR (not unrolled)."""

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 disallow_acc_multi_buffer=False, flatten=False, warp_specialize=False):
        self.args = (0, arg1) if arg2 is None else (arg1, arg2)
        self.step = 1 if step is None else step
        self.num_stages = _unwrap(num_stages)


def is_builtin(fn) -> bool:
    return getattr(fn, "__minitriton_builtin__", False)
