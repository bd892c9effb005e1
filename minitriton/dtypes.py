"""Element types: the one table of what minitriton knows about each dtype, and the float formats.

Place in the pipeline: below everything. The IR types values with these `DType`s; the interpreter
holds and stores their values as the table's numpy types say; codegen gives each its LLVM type; the
driver packs scalar arguments with its `struct` code and recognizes arrays by their typestr or
torch dtype; the specialization names each by Triton's signature string (`i32`, `*fp16`). Every
stage reads the row it needs here, so a fact about a dtype has one home. bf16 and the five fp8
formats have no numpy type: their values live in float32, and `floats.py` rounds them to the bit
patterns memory, kernel parameters and constants hold (each format's encoding is a row of
`FORMATS`). Chapter: 03-tile-ir.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from .errors import LaunchError


# --8<-- [start:dtype]
@dataclass(frozen=True)
class DType:
    """An element type. `name` is Triton's (`fp32`, `int32`, ...); `short` is what the IR prints."""

    name: str
    kind: str = ""  # "int" (int1, the boolean, among them), "uint", "float" or "ptr"
    bits: int = 0
    short: str = ""
    pointee: DType | None = None  # for pointers: the type they point to
    const: bool = False  # for pointers: read-only (a parameter annotated tl.const)

    def __post_init__(self):
        """`DType("int8")`, as `tl.dtype("int8")` is written, is the known type of that name."""
        if not self.kind:
            known = SCALAR_DTYPES.get(self.name)
            if known is None:
                raise ValueError(f"unknown dtype {self.name!r}; known: {', '.join(SCALAR_DTYPES)}")
            for field in ("kind", "bits", "short"):
                object.__setattr__(self, field, getattr(known, field))

    def __str__(self) -> str:
        return self.name if self.kind != "ptr" else f"pointer<{self.pointee}>"

    __repr__ = __str__

    # The predicates Triton's dtypes answer, so kernels written for Triton run unchanged.
    def is_floating(self) -> bool: return self.kind == "float"
    def is_int(self) -> bool: return self.kind in ("int", "uint")
    # int1 is unsigned, as Triton has it: True is 1, above False, wherever a boolean is compared,
    # divided, shifted or widened. Every choice between a signed and an unsigned instruction asks these.
    def is_int_signed(self) -> bool: return self.kind == "int" and self.bits > 1
    def is_int_unsigned(self) -> bool: return self.kind == "uint" or self.is_bool()
    def is_bool(self) -> bool: return self.kind == "int" and self.bits == 1
    def is_ptr(self) -> bool: return self.kind == "ptr"
    def is_fp16(self) -> bool: return self.name == "fp16"
    def is_bf16(self) -> bool: return self.name == "bf16"
    def is_fp32(self) -> bool: return self.name == "fp32"
    def is_fp64(self) -> bool: return self.name == "fp64"
    def is_fp8(self) -> bool: return self.name.startswith("fp8")
    def is_fp8e4nv(self) -> bool: return self.name == "fp8e4nv"
    def is_fp8e4b8(self) -> bool: return self.name == "fp8e4b8"
    def is_fp8e4b15(self) -> bool: return self.name == "fp8e4b15"
    def is_fp8e5(self) -> bool: return self.name == "fp8e5"
    def is_fp8e5b16(self) -> bool: return self.name == "fp8e5b16"
    def is_standard_floating(self) -> bool: return self.kind == "float" and not self.is_fp8()
    def is_int32(self) -> bool: return self.name == "int32"
    def is_int64(self) -> bool: return self.name == "int64"
    def is_block(self) -> bool: return False
    def is_const(self) -> bool: return self.const

    @property
    def primitive_bitwidth(self) -> int:
        return self.bits

    @property
    def int_bitwidth(self) -> int:
        return self.bits

    def is_int1(self) -> bool: return self.name == "int1"
    def is_int8(self) -> bool: return self.name == "int8"
    def is_int16(self) -> bool: return self.name == "int16"
    def is_uint8(self) -> bool: return self.name == "uint8"
    def is_uint16(self) -> bool: return self.name == "uint16"
    def is_uint32(self) -> bool: return self.name == "uint32"
    def is_uint64(self) -> bool: return self.name == "uint64"

    @staticmethod
    def is_dtype(name: str) -> bool:
        """Whether `name` is a scalar dtype's (`"fp32"`, `"int8"`)."""
        return name in SCALAR_DTYPES

    # A float's encoding, as Triton's float dtypes have it (another type has no such attribute).
    @property
    def fp_mantissa_width(self) -> int:
        return self._format("fp_mantissa_width").mantissa

    @property
    def exponent_bias(self) -> int:
        return self._format("exponent_bias").bias

    def _format(self, attribute: str) -> FloatFormat:
        if self.name not in FORMATS:
            raise AttributeError(f"{self.name} is not a float type: it has no {attribute}")
        return FORMATS[self.name]

    def get_int_max_value(self) -> int:
        """The largest value of an integer type (int1: 1, as an unsigned bit)."""
        assert self.is_int(), f"{self.name} is not an integer type"
        return (1 << (self.bits - (self.kind == "int" and self.bits > 1))) - 1

    def get_int_min_value(self) -> int:
        assert self.is_int(), f"{self.name} is not an integer type"
        return -(1 << (self.bits - 1)) if self.kind == "int" and self.bits > 1 else 0

    def codegen_name(self) -> str:
        """Its name in `tl`: `float32`, `bfloat16`, `int8`."""
        return self.facts.language

    @property
    def cache_key_part(self) -> str:
        return self.name

    @property
    def stored_as_bits(self) -> bool:
        """A float numpy has no type for (bf16, the fp8s): its values are held in float32, and
        memory, parameters and constants hold their bit patterns (`floats.float_bits`)."""
        return self.kind == "float" and self.facts.storage.kind == "u"

    @property
    def itemsize(self) -> int:
        """Bytes one element takes in memory (a boolean takes a byte)."""
        return max(self.bits // 8, 1)

    @property
    def element_ty(self) -> DType:
        return self.pointee if self.kind == "ptr" else self

    @property
    def scalar(self) -> DType:
        return self

    @property
    def facts(self) -> Facts:
        """This type's row of the table (a pointer's is the 64-bit address's)."""
        return POINTER_FACTS if self.kind == "ptr" else FACTS[self.name]

    @property
    def np(self) -> np.dtype:
        """The numpy dtype that holds this type's values (bf16 in float32, a pointer as int64)."""
        return self.facts.numpy

    @property
    def storage(self) -> np.dtype:
        """The numpy dtype of this type's elements in memory (bf16 as its bits, int1 as a byte)."""
        return self.facts.storage

    @property
    def signature(self) -> str:
        """Triton's name of this type in a kernel signature: `i32`, `fp16`, `*fp32`."""
        return f"*{self.pointee.signature}" if self.kind == "ptr" else self.facts.signature


int1 = DType("int1", "int", 1, "i1")
int8 = DType("int8", "int", 8, "i8")
int16 = DType("int16", "int", 16, "i16")
int32 = DType("int32", "int", 32, "i32")
int64 = DType("int64", "int", 64, "i64")
uint8 = DType("uint8", "uint", 8, "u8")
uint16 = DType("uint16", "uint", 16, "u16")
uint32 = DType("uint32", "uint", 32, "u32")
uint64 = DType("uint64", "uint", 64, "u64")
float16 = DType("fp16", "float", 16, "f16")
bfloat16 = DType("bf16", "float", 16, "bf16")
float32 = DType("fp32", "float", 32, "f32")
float64 = DType("fp64", "float", 64, "f64")
float8e4nv = DType("fp8e4nv", "float", 8, "f8E4M3FN")
float8e5 = DType("fp8e5", "float", 8, "f8E5M2")
float8e4b15 = DType("fp8e4b15", "float", 8, "f8E4M3B11FNUZ")
float8e4b8 = DType("fp8e4b8", "float", 8, "f8E4M3FNUZ")
float8e5b16 = DType("fp8e5b16", "float", 8, "f8E5M2FNUZ")


def pointer_type(pointee: DType, const: bool = False) -> DType:
    """The type of a pointer to `pointee` in global memory; a `const` one is never written
    through."""
    if const:
        return DType(f"ptr<const {pointee.name}>", "ptr", 64, f"!ptr<const {pointee.short}>",
                     pointee, True)
    return DType(f"ptr<{pointee.name}>", "ptr", 64, f"!ptr<{pointee.short}>", pointee)
# --8<-- [end:dtype]


# --8<-- [start:table]
@dataclass(frozen=True)
class Facts:
    """What each stage needs to know of one dtype (one row of `TABLE`)."""

    dtype: DType | None
    language: str  # its name in `tl`: tl.float16
    signature: str  # Triton's signature string: i32, fp16
    numpy: np.dtype  # what holds a value in the interpreter
    storage: np.dtype  # what memory holds
    struct: str  # the `struct` code of a scalar kernel parameter (`code`)
    typestr: str | None  # its arrays' typestr, as __array_interface__ says (`array`)
    torch: str | None  # torch's name for it
    llvm: str  # the LLVM type of a register (bf16, fp8: their bits)
    cuda: int | None = 0  # the oldest NVIDIA arch with it (sm_89: 89), None: none has it


def _row(dtype, language, signature, numpy, storage, struct, typestr, torch, llvm, cuda=0):
    return Facts(dtype, language, signature, np.dtype(numpy), np.dtype(storage), struct,
                 typestr, torch, llvm, cuda)


TABLE = (
    #    dtype     tl          sig     numpy      storage    code array  torch       llvm
    _row(int1,     "int1",     "i1",   "bool",    "uint8",   "?", "|b1", "bool",     "i1"),
    _row(int8,     "int8",     "i8",   "int8",    "int8",    "b", "|i1", "int8",     "i8"),
    _row(int16,    "int16",    "i16",  "int16",   "int16",   "h", "<i2", "int16",    "i16"),
    _row(int32,    "int32",    "i32",  "int32",   "int32",   "i", "<i4", "int32",    "i32"),
    _row(int64,    "int64",    "i64",  "int64",   "int64",   "q", "<i8", "int64",    "i64"),
    _row(uint8,    "uint8",    "u8",   "uint8",   "uint8",   "B", "|u1", "uint8",    "i8"),
    _row(uint16,   "uint16",   "u16",  "uint16",  "uint16",  "H", "<u2", "uint16",   "i16"),
    _row(uint32,   "uint32",   "u32",  "uint32",  "uint32",  "I", "<u4", "uint32",   "i32"),
    _row(uint64,   "uint64",   "u64",  "uint64",  "uint64",  "Q", "<u8", "uint64",   "i64"),
    _row(float16,  "float16",  "fp16", "float16", "float16", "e", "<f2", "float16",  "half"),
    _row(bfloat16, "bfloat16", "bf16", "float32", "uint16",  "H", None,  "bfloat16", "i16"),
    _row(float32,  "float32",  "fp32", "float32", "float32", "f", "<f4", "float32",  "float"),
    _row(float64,  "float64",  "fp64", "float64", "float64", "d", "<f8", "float64",  "double"),
    # the fp8s: NVIDIA GPUs have fp8e4nv from sm_89 on and fp8e4b8 / fp8e5b16 (AMD's) never
    _row(float8e4nv, "float8e4nv", "fp8e4nv", "float32", "uint8", "B", None, "float8_e4m3fn", "i8", 89),
    _row(float8e5, "float8e5", "fp8e5", "float32", "uint8", "B", None, "float8_e5m2", "i8"),
    _row(float8e4b15, "float8e4b15", "fp8e4b15", "float32", "uint8", "B", None, None, "i8"),
    _row(float8e4b8, "float8e4b8", "fp8e4b8", "float32", "uint8", "B", None, "float8_e4m3fnuz", "i8", None),
    _row(float8e5b16, "float8e5b16", "fp8e5b16", "float32", "uint8", "B", None, "float8_e5m2fnuz",
         "i8", None),
)
# A pointer is its address: an int64 to the interpreter, a u64 parameter, a global pointer.
POINTER_FACTS = _row(None, "pointer", "*", "int64", "int64", "Q", None, "", "ptr addrspace(1)")
# --8<-- [end:table]

FACTS = {row.dtype.name: row for row in TABLE}  # by Triton's dtype name
SCALAR_DTYPES = {row.dtype.name: row.dtype for row in TABLE}
# Triton's lists of the names of each kind (the boolean counts as unsigned, as Triton has it)
DType.SINT_TYPES = [n for n, d in SCALAR_DTYPES.items() if d.is_int_signed()]
DType.UINT_TYPES = [n for n, d in SCALAR_DTYPES.items() if d.is_int_unsigned()]
DType.FP_TYPES = [n for n, d in SCALAR_DTYPES.items() if d.kind == "float"]
DType.STANDARD_FP_TYPES = [n for n, d in SCALAR_DTYPES.items() if d.is_standard_floating()]
_BY_SIGNATURE = {row.signature: row.dtype for row in TABLE}
_BY_TYPESTR = {row.typestr: row.dtype for row in TABLE if row.typestr}
_BY_LANGUAGE = {row.language: row.dtype for row in TABLE}
_BY_TORCH = {row.torch: row.dtype for row in TABLE if row.torch}
_SEEN_TORCH: dict = {}  # torch's dtype objects met so far -> ours


def dtype_named(name: str) -> DType:
    """The DType whose `name` this is (`fp32`, `ptr<fp16>`, ...): how cached metadata names types."""
    if name.startswith("ptr<") and name.endswith(">"):
        pointee = name[4:-1]
        const = pointee.startswith("const ")
        return pointer_type(dtype_named(pointee.removeprefix("const ")), const)
    return SCALAR_DTYPES[name]


def dtype_of_signature(text: str) -> DType:
    """The DType of Triton's signature string: `i32`, `fp16`, `*fp32` (a pointer)."""
    if text.startswith("*"):
        return pointer_type(dtype_of_signature(text[1:]))
    if text not in _BY_SIGNATURE:
        raise KeyError(f"unknown type {text!r}; expected one of {', '.join(_BY_SIGNATURE)} or *<type>")
    return _BY_SIGNATURE[text]


def dtype_of_typestr(typestr: str) -> DType | None:
    """The DType of an array-interface typestr (`<f4`), or None; also normalizes byte orders."""
    return _BY_TYPESTR.get(typestr) or _BY_TYPESTR.get(np.dtype(typestr).str)


def dtype_from_numpy(dt: np.dtype) -> DType:
    """The DType of a numpy array's elements (bfloat16 has no numpy dtype of its own)."""
    found = dtype_of_typestr(np.dtype(dt).str)
    if found is None:
        raise TypeError(f"no minitriton dtype for numpy dtype {dt}")
    return found


def dtype_of_array(x) -> DType | None:
    """The dtype of an array's elements, or None for anything that is not an array: a torch tensor
    (by torch's dtype), a numpy array, or anything with `__cuda_array_interface__` (by typestr).
    An array of a type minitriton has no dtype for is a LaunchError."""
    if isinstance(x, TensorWrapper):
        return x.dtype
    torch = sys.modules.get("torch")  # never imported here: a torch tensor means torch is loaded
    if torch is not None and isinstance(x, torch.Tensor):
        dtype = _SEEN_TORCH.get(x.dtype)  # every launch asks: by the dtype object, not its name
        if dtype is None:
            dtype = _BY_TORCH.get(str(x.dtype).removeprefix("torch."))
            if dtype is None:
                raise LaunchError(f"minitriton has no dtype for torch tensors of {x.dtype}")
            _SEEN_TORCH[x.dtype] = dtype
        return dtype
    if isinstance(x, np.ndarray):
        typestr = x.dtype.str
    else:
        interface = getattr(x, "__cuda_array_interface__", None)
        if interface is None:
            return None
        typestr = interface["typestr"]
    dtype = dtype_of_typestr(typestr)
    if dtype is None:
        raise LaunchError(f"minitriton has no dtype for array elements of type {typestr!r}")
    return dtype


def array_address(x) -> int:
    """The address of an array's first element (a torch tensor's, a CUDA array's, a numpy array's)."""
    if hasattr(x, "data_ptr"):
        return x.data_ptr()
    interface = getattr(x, "__cuda_array_interface__", None) or x.__array_interface__
    return interface["data"][0]


# --8<-- [start:reinterpret]
class TensorWrapper:
    """An array whose memory a kernel reads as elements of another dtype of the same width
    (`triton.reinterpret(x, tl.float8e5)` for a uint8 array): numpy has no fp8, and a pointer's
    element type comes from its argument's dtype. The kernel gets the array's own address."""

    def __init__(self, base, dtype: DType):
        self.base, self.dtype = base, dtype
        self.shape = tuple(base.shape)

    def data_ptr(self) -> int:
        return array_address(self.base)

    def get_device(self) -> int:
        return self.base.get_device() if hasattr(self.base, "get_device") else -1

    # What Triton's wrapper answers of torch's tensor API, for a numpy base as well.
    @property
    def device(self):
        return getattr(self.base, "device", "cpu")

    def stride(self, *dim):
        """In elements, as torch counts them (numpy's byte strides divided by the item size)."""
        if callable(getattr(self.base, "stride", None)):
            return self.base.stride(*dim)
        if getattr(self.base, "strides", None) is not None:
            strides = tuple(s // self.base.itemsize for s in self.base.strides)
        else:  # a DeviceArray: contiguous
            strides = tuple(int(np.prod(self.base.shape[d + 1:])) for d in range(len(self.base.shape)))
        return strides[dim[0]] if dim else strides

    def element_size(self) -> int:
        return self.dtype.itemsize

    def cpu(self) -> TensorWrapper:
        return TensorWrapper(self.base.cpu() if hasattr(self.base, "cpu") else self.base, self.dtype)

    def clone(self) -> TensorWrapper:
        return TensorWrapper(self.base.clone() if hasattr(self.base, "clone") else self.base.copy(),
                             self.dtype)

    def to(self, device) -> TensorWrapper:
        return TensorWrapper(self.base.to(device), self.dtype)

    def new_empty(self, sizes) -> TensorWrapper:
        return TensorWrapper(self.base.new_empty(sizes), self.dtype)

    def copy_(self, other: TensorWrapper) -> None:
        source = other.base if isinstance(other, TensorWrapper) else other
        self.base.copy_(source) if hasattr(self.base, "copy_") else np.copyto(self.base, source)

    def __repr__(self) -> str:
        return f"TensorWrapper[{self.dtype}]({self.base!r})"


def reinterpret(array, dtype):
    """`array` seen as elements of `dtype` (of the width of its own elements): a TensorWrapper, or
    the array itself if that is its dtype already. `dtype` is a DType, or a torch or numpy dtype."""
    if isinstance(array, TensorWrapper):
        array = array.base
    if not isinstance(dtype, DType):
        named = _BY_TORCH.get(str(dtype).removeprefix("torch.")) if "torch" in str(type(dtype)) else None
        dtype = named or dtype_from_numpy(dtype)
    own = dtype_of_array(array)
    if own is None:
        raise TypeError(f"reinterpret takes an array (numpy, torch, DeviceArray), got "
                        f"{type(array).__name__}")
    if own == dtype:
        return array
    if own.itemsize != dtype.itemsize:
        raise ValueError(f"cannot reinterpret {own} elements ({own.itemsize} bytes) as {dtype} "
                         f"({dtype.itemsize} bytes): the widths must match")
    return TensorWrapper(array, dtype)
# --8<-- [end:reinterpret]


def dtype_of_language_name(name: str) -> DType | None:
    """The DType `tl.<name>` is (`float16`), or None."""
    return _BY_LANGUAGE.get(name)


# ---------------------------------------------------------------------------------------------------
# The float formats, and the fp8s: eight bits, rounded as Triton's conversions on NVIDIA GPUs round.
# ---------------------------------------------------------------------------------------------------

# --8<-- [start:formats]
@dataclass(frozen=True)
class FloatFormat:
    """How a float type encodes numbers: `mantissa` bits after the point, the exponent `bias`, and
    what the codes with the top exponent mean: "ieee" (infinity and NaNs), "fn" (numbers, but for
    S.1111.111: NaN), "fnuz" (numbers; no -0: 0x80 is the NaN) or "finite" (numbers only). A
    narrowing conversion to an fp8 rounds to nearest, ties to even ("even") or away from zero
    ("away"), and clamps to `saturate`: a magnitude past it, an infinity too, becomes +-saturate."""

    mantissa: int
    bias: int
    specials: str = "ieee"
    saturate: float | None = None
    ties: str = "even"

    @property
    def exponent(self) -> int:
        return 7 - self.mantissa


FORMATS = {
    "fp16": FloatFormat(10, 15), "bf16": FloatFormat(7, 127), "fp32": FloatFormat(23, 127),
    "fp64": FloatFormat(52, 1023),
    "fp8e4nv": FloatFormat(3, 7, "fn", 448.0),  # OCP e4m3fn: PTX cvt.rn.satfinite.e4m3x2
    "fp8e5": FloatFormat(2, 15, "ieee", 57344.0),  # OCP e5m2: fp16's top byte
    # Triton's own: e4m3 with fp16's bias, made for a fast software conversion that clamps to 1.75
    "fp8e4b15": FloatFormat(3, 15, "finite", 1.75, "away"),
    "fp8e4b8": FloatFormat(3, 8, "fnuz", 240.0),  # AMD's (torch's float8_e4m3fnuz)
    "fp8e5b16": FloatFormat(2, 16, "fnuz", 57344.0),  # AMD's (torch's float8_e5m2fnuz)
}
# --8<-- [end:formats]
