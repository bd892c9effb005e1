"""Element types: the one table of what minitriton knows about each dtype, and bf16's rounding.

Place in the pipeline: below everything. The IR types values with these `DType`s; the interpreter
holds and stores their values as the table's numpy types say; codegen gives each its LLVM type; the
driver packs scalar arguments with its `struct` code and recognizes arrays by their typestr or
torch dtype; the specialization names each by Triton's signature string (`i32`, `*fp16`). Every
stage reads the row it needs here, so a fact about a dtype has one home. bf16 has no numpy type:
its values live in float32, and `bf16_bits` rounds them to the 16-bit patterns memory, kernel
parameters and constants hold, the same way for every stage. Chapter: 03-tile-ir.
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
    kind: str = ""  # "int" (signed; int1 is the boolean), "uint", "float" or "ptr"
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
    def is_int_signed(self) -> bool: return self.kind == "int"
    def is_int_unsigned(self) -> bool: return self.kind == "uint"
    def is_bool(self) -> bool: return self.kind == "int" and self.bits == 1
    def is_ptr(self) -> bool: return self.kind == "ptr"
    def is_fp16(self) -> bool: return self.name == "fp16"
    def is_bf16(self) -> bool: return self.name == "bf16"
    def is_fp32(self) -> bool: return self.name == "fp32"
    def is_fp64(self) -> bool: return self.name == "fp64"
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


def pointer_type(pointee: DType, const: bool = False) -> DType:
    """The type of a pointer to `pointee` in global memory; a `const` one is never written through."""
    if const:
        return DType(f"ptr<const {pointee.name}>", "ptr", 64, f"!ptr<const {pointee.short}>", pointee, True)
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
    torch: str  # torch's name for it
    llvm: str  # the LLVM type of a register (bf16: its 16 bits)


def _row(dtype, language, signature, numpy, storage, struct, typestr, torch, llvm):
    return Facts(dtype, language, signature, np.dtype(numpy), np.dtype(storage), struct,
                 typestr, torch, llvm)


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
)
# A pointer is its address: an int64 to the interpreter, a u64 parameter, a global pointer.
POINTER_FACTS = _row(None, "pointer", "*", "int64", "int64", "Q", None, "", "ptr addrspace(1)")
# --8<-- [end:table]

FACTS = {row.dtype.name: row for row in TABLE}  # by Triton's dtype name
SCALAR_DTYPES = {row.dtype.name: row.dtype for row in TABLE}
_BY_SIGNATURE = {row.signature: row.dtype for row in TABLE}
_BY_TYPESTR = {row.typestr: row.dtype for row in TABLE if row.typestr}
_BY_LANGUAGE = {row.language: row.dtype for row in TABLE}
_BY_TORCH = {row.torch: row.dtype for row in TABLE}


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
    torch = sys.modules.get("torch")  # never imported here: a torch tensor means torch is loaded
    if torch is not None and isinstance(x, torch.Tensor):
        dtype = _BY_TORCH.get(str(x.dtype).removeprefix("torch."))
        if dtype is None:
            raise LaunchError(f"minitriton has no dtype for torch tensors of {x.dtype}")
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


def dtype_of_language_name(name: str) -> DType | None:
    """The DType `tl.<name>` is (`float16`), or None."""
    return _BY_LANGUAGE.get(name)


# ---------------------------------------------------------------------------------------------------
# bf16: numpy has no such type, so values live in float32 and memory holds their top 16 bits.
# ---------------------------------------------------------------------------------------------------

# --8<-- [start:bf16]
def bf16_bits(x) -> np.ndarray:
    """Numbers (any float width, or Python floats) -> the bit patterns of their nearest bf16 (ties
    to even; a NaN stays a NaN). Wider values are first rounded to odd in float32, so that they are
    rounded once, not twice. The one rounding the interpreter, codegen and the driver all use."""
    x = np.asarray(x)
    if x.dtype not in (np.float32, np.float16):
        x = _round_to_odd_float32(x)
    bits = np.asarray(x, np.float32).view(np.uint32)
    with np.errstate(over="ignore"):
        # Adding 0x7FFF, plus 1 when the kept part is odd, carries into bit 16 exactly when the
        # dropped half is above one half, or equal to it and the kept part is odd.
        rounded = (bits + np.uint32(0x7FFF) + ((bits >> 16) & 1)) >> 16
    quiet_nan = (bits >> 16) | 0x40  # keep sign and payload's top; the quiet bit keeps it a NaN
    return np.where(np.isnan(x), quiet_nan, rounded).astype(np.uint16)


def bf16_from_bits(bits) -> np.ndarray:
    """16-bit patterns -> the float32 values they stand for (exact: bf16 is float32's top half)."""
    return (np.asarray(bits).view(np.uint16).astype(np.uint32) << 16).view(np.float32)


def _round_to_odd_float32(x: np.ndarray) -> np.ndarray:
    """Wider values -> float32, rounded toward zero with the last bit set when inexact.

    A value rounded to odd in float32 rounds to bf16 exactly as the original would: the sticky
    last bit remembers that something was dropped, so the second rounding is not a double rounding.
    """
    wide = x.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        narrow = wide.astype(np.float32)
        narrow = np.where(np.abs(narrow) > np.abs(wide), np.nextafter(narrow, np.float32(0)), narrow)
    return (narrow.view(np.uint32) | (narrow != wide)).astype(np.uint32).view(np.float32)


def round_to_bf16(x) -> np.ndarray:
    """Values rounded to bf16 precision (to nearest, ties to even), as float32."""
    return bf16_from_bits(bf16_bits(x))
# --8<-- [end:bf16]
