"""Wrong kernels, by family: each mistake is a `CompilationError` at the user's line, with a hint,
whether the kernel is interpreted or compiled for a GPU; never an error from inside the compiler,
a silently wrong answer or a compile that does not end.

Each refused kernel below has its mistake on the line marked `# <-`; `refused` runs it both ways
(the interpreter, and a compile for sm_90 without running) and checks the error against that line.
Kernels that are right, if unusual, are run against numpy instead (conftest also compiles them to
PTX for sm_80 and sm_90). `test_operator_walk` goes through every operator of the language with
every kind of operand, and asks of each combination: a clear error, or a kernel that both the
interpreter and ptxas accept.
"""
import inspect
import os
import re
import time
import traceback

import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton.errors import CompilationError

PATHS = ("interpret", "compile")


def refused(kernel, path: str, match: str, *args):
    """Run `kernel` on `args` by `path` and check its CompilationError: at the line marked `# <-`,
    a message matching `match`, a hint, and none of the compiler's frames or internal errors."""
    args = args or (np.zeros(16, np.float32), np.zeros(16, np.int32))
    with pytest.raises(CompilationError) as info:
        if path == "interpret":
            os.environ["MINITRITON_INTERPRET"] = "1"
            kernel[(1,)](*args)
        else:
            kernel.warmup(*args, grid=(1,), target="sm_90")
    err = info.value
    lines, first = inspect.getsourcelines(kernel.fn)
    marked = [first + i for i, text in enumerate(lines) if "# <-" in text]
    assert len(marked) == 1, "mark exactly one line of the kernel with `# <-`"
    assert (err.loc.file, err.loc.line) == (__file__, marked[0]), str(err)
    assert re.search(match, err.message), str(err)
    assert err.hint, f"no hint: {err}"
    cause = err.__cause__
    # the language's own error, or Python's arithmetic on the kernel's constants: nothing of the compiler's
    assert cause is None or type(cause).__name__ in ("SemanticError", "ZeroDivisionError"), f"internal: {cause!r}"
    frames = [f for f in traceback.extract_tb(err.__traceback__) if "minitriton" in f.filename]
    assert len(frames) <= 2, frames
    return err


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


# ------------------------------------------------------------------------------ pointer misuse
# A pointer takes + and - of integer offsets, tl.where between two pointers of one type, and
# conversions to and from int64 (or to int1): nothing else, as in Triton.

@triton.jit
def ptr_plus_mask(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(x_ptr + (offs < 8)))  # <-


@triton.jit
def ptr_plus_float(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs * 1.0))  # <-


@triton.jit
def ptr_plus_python_float(x_ptr, i_ptr):
    tl.store(x_ptr, tl.load(x_ptr + 1.5))  # <-


@triton.jit
def where_ptr_or_zero(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    p = tl.where(offs < 8, x_ptr + offs, 0)  # <-
    tl.store(x_ptr + offs, tl.load(p))


@triton.jit
def where_two_pointer_types(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    p = tl.where(offs < 8, x_ptr + offs, i_ptr + offs)  # <-
    tl.store(x_ptr + offs, tl.load(p))


@triton.jit
def abs_of_ptr(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(tl.abs(x_ptr + offs)))  # <-


@triton.jit
def maximum_of_ptrs(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(tl.maximum(x_ptr + offs, x_ptr)))  # <-


@triton.jit
def ptr_times_two(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load((x_ptr + offs) * 2))  # <-


@triton.jit
def ptr_minus_ptr(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, ((x_ptr + offs) - x_ptr).to(tl.int32))  # <-


@triton.jit
def int_minus_ptr(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(offs - x_ptr))  # <-


@triton.jit
def ptr_less_than(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, ((x_ptr + offs) < x_ptr + 8).to(tl.int32))  # <-


@triton.jit
def ptr_equals_zero(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, ((x_ptr + offs) == 0).to(tl.int32))  # <-


@triton.jit
def ptr_bitwise_and(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load((x_ptr + offs) & -16))  # <-


@triton.jit
def ptr_shift(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load((x_ptr + offs) >> 1))  # <-


@triton.jit
def ptr_negated(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(-(x_ptr + offs)))  # <-


@triton.jit
def ptr_inverted(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(~(x_ptr + offs)))  # <-


@triton.jit
def exp_of_ptr(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.exp(x_ptr + offs))  # <-


@triton.jit
def sum_of_ptrs(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr, tl.load(tl.sum(x_ptr + offs)))  # <-


@triton.jit
def max_of_ptrs(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr, tl.load(tl.max(x_ptr + offs, 0)))  # <-


@triton.jit
def cumsum_of_ptrs(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(tl.cumsum(x_ptr + offs, 0)))  # <-


@triton.jit
def sort_of_ptrs(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(tl.sort(x_ptr + offs)))  # <-


@triton.jit
def ptr_to_float(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, (x_ptr + offs).to(tl.float32))  # <-


@triton.jit
def ptr_to_int32(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, (x_ptr + offs).to(tl.int32))  # <-


@triton.jit
def int32_to_ptr(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(offs.to(tl.pointer_type(tl.float32))))  # <-


@triton.jit
def float_to_ptr(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(offs.to(tl.float32).to(tl.pointer_type(tl.float32))))  # <-


@triton.jit
def fma_of_ptr(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.fma(x_ptr + offs, 1.0, 2.0))  # <-


@triton.jit
def umulhi_of_ptr(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, tl.umulhi(x_ptr + offs, 2))  # <-


@triton.jit
def clamp_of_ptr(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.clamp(x_ptr + offs, 0.0, 1.0))  # <-


@triton.jit
def store_a_pointer_as_a_float(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, x_ptr + offs)  # <-


@triton.jit
def pointer_as_other(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < 3, other=x_ptr))  # <-


@triton.jit
def pointer_as_mask(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=x_ptr + offs))  # <-


@triton.jit
def offsets_as_mask(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs))  # <-


@triton.jit
def float_as_store_mask(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, 1.0, mask=offs * 0.5)  # <-


POINTER_MISUSE = [
    (ptr_plus_mask, r"invalid operands of type pointer<fp32> and int1: pointer offsets must be integers"),
    (ptr_plus_float, r"invalid operands of type pointer<fp32> and fp32"),
    (ptr_plus_python_float, r"invalid operands of type pointer<fp32> and fp32"),
    (where_ptr_or_zero, r"invalid operands of type pointer<fp32> and int32"),
    (where_two_pointer_types, r"invalid operands of type pointer<fp32> and pointer<int32>"),
    (abs_of_ptr, r"Unexpected dtype pointer<fp32>"),
    (maximum_of_ptrs, r"invalid operands of type pointer<fp32> and pointer<fp32>"),
    (ptr_times_two, r"invalid operands of type pointer<fp32> and int32"),
    (ptr_minus_ptr, r"invalid operands of type pointer<fp32> and pointer<fp32>"),
    (int_minus_ptr, r"invalid operands of type int32 and pointer<fp32>"),
    (ptr_less_than, r"invalid operands of type pointer<fp32> and pointer<fp32>"),
    (ptr_equals_zero, r"invalid operands of type pointer<fp32> and int32"),
    (ptr_bitwise_and, r"invalid operands of type pointer<fp32> and int32"),
    (ptr_shift, r"invalid operands of type pointer<fp32> and int32"),
    (ptr_negated, r"wrong type argument to unary minus \(pointer<fp32>\)"),
    (ptr_inverted, r"wrong type argument to unary invert \(pointer<fp32>\)"),
    (exp_of_ptr, r"Expected dtype \['fp32', 'fp64'\] but got pointer<fp32>"),
    (sum_of_ptrs, r"Unexpected dtype pointer<fp32>: tl.sum"),
    (max_of_ptrs, r"Unexpected dtype pointer<fp32>: tl.max"),
    (cumsum_of_ptrs, r"Unexpected dtype pointer<fp32>: tl.cumsum"),
    (sort_of_ptrs, r"invalid operands of type pointer<fp32> and pointer<fp32>"),
    (ptr_to_float, r"cannot cast pointer<fp32> to fp32"),
    (ptr_to_int32, r"cannot cast pointer<fp32> to int32"),
    (int32_to_ptr, r"cannot cast int32 to pointer<fp32>"),
    (float_to_ptr, r"cannot cast fp32 to pointer<fp32>"),
    (fma_of_ptr, r"invalid operands of type pointer<fp32> and fp32"),
    (umulhi_of_ptr, r"Expected dtype \['int32', 'int64', 'uint32', 'uint64'\] but got pointer<fp32>"),
    (clamp_of_ptr, r"Only floating point clamp is supported"),
    (store_a_pointer_as_a_float, r"cannot cast pointer<fp32> to fp32"),
    (pointer_as_other, r"cannot cast pointer<fp32> to fp32"),
    (pointer_as_mask, r"Mask must have boolean scalar type, got pointer<fp32>"),
    (offsets_as_mask, r"Mask must have boolean scalar type, got int32"),
    (float_as_store_mask, r"Mask must have boolean scalar type, got fp32"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kernel, match", POINTER_MISUSE, ids=[k.__name__ for k, _ in POINTER_MISUSE])
def test_pointer_misuse(kernel, match, path):
    refused(kernel, path, match)


@triton.jit
def pointer_uses_kernel(x_ptr, out_ptr):
    """What a pointer does take: offsets of any integer type, the other pointer of tl.where,
    conversions to int64 and int1 and back, and a truth value (`not p`: p is null)."""
    offs = tl.arange(0, 16)
    p = x_ptr + offs.to(tl.uint8)
    q = tl.where(offs < 8, p - 1, x_ptr)
    address = q.to(tl.int64)
    back = address.to(tl.pointer_type(tl.float32))
    null = not q
    value = tl.load(back, mask=q.to(tl.int1) & (offs >= 1), other=-1.0)
    tl.store(out_ptr + offs, value + (address - x_ptr.to(tl.int64)) + null.to(tl.float32))


def test_the_pointer_operations_that_are_allowed():
    x = np.arange(16, dtype=np.float32) * 10
    out = np.full(16, np.nan, np.float32)
    pointer_uses_kernel[(1,)](x, out)
    offs = np.arange(16)
    picked = np.where(offs < 8, offs - 1, 0)
    want = np.where(offs >= 1, x[np.maximum(picked, 0)], -1.0) + 4 * picked
    np.testing.assert_array_equal(out, want)


# ------------------------------------------------------------------------------ the operator walk
# Every operator of the language, on every kind of operand: a clear error, or a kernel that the
# interpreter runs and ptxas assembles. Never anything else (an IR VerificationError, a TypeError
# from numpy, LLVM refusing the module...).

KINDS = ("ptr", "bool", "int8", "uint32", "int64", "fp16", "bf16", "fp32", "fp8e5", "pyint", "pyfloat")
BINARY = ("add", "sub", "mul", "div", "floordiv", "mod", "and", "or", "xor", "shl", "shr", "lt", "eq", "minimum",
          "maximum", "where", "where_cond", "fma", "umulhi", "pow", "fdiv", "logical_and", "join")
UNARY = ("neg", "invert", "not", "abs", "exp", "sqrt", "floor", "sigmoid", "sum", "max", "argmax", "xor_sum",
         "cumsum", "cumprod", "sort", "flip", "softmax", "to_int64", "to_int8", "to_fp32", "to_fp16", "to_bool",
         "to_ptr", "bitcast_int32", "clamp", "histogram", "gather", "reshape", "trans", "expand", "broadcast",
         "split", "interleave", "device_print", "atomic_add", "load", "store_value", "dot")


@triton.jit
def operand(x_ptr, offs, KIND: tl.constexpr):
    """An operand of kind KIND: a tile of pointers, of booleans, of a dtype, or a Python number."""
    if KIND == "ptr":
        return x_ptr + offs
    elif KIND == "bool":
        return offs < 8
    elif KIND == "pyint":
        return 3
    elif KIND == "pyfloat":
        return 1.5
    elif KIND == "fp8e5":
        return offs.to(tl.float32).to(tl.float8e5)
    else:
        return offs.to(tl.dtype(KIND))


@triton.jit
def apply(OP: tl.constexpr, a, b, offs):
    if OP == "add":
        return a + b
    elif OP == "sub":
        return a - b
    elif OP == "mul":
        return a * b
    elif OP == "div":
        return a / b
    elif OP == "floordiv":
        return a // b
    elif OP == "mod":
        return a % b
    elif OP == "and":
        return a & b
    elif OP == "or":
        return a | b
    elif OP == "xor":
        return a ^ b
    elif OP == "shl":
        return a << b
    elif OP == "shr":
        return a >> b
    elif OP == "lt":
        return a < b
    elif OP == "eq":
        return a == b
    elif OP == "minimum":
        return tl.minimum(a, b)
    elif OP == "maximum":
        return tl.maximum(a, b)
    elif OP == "where":
        return tl.where(offs < 8, a, b)
    elif OP == "where_cond":
        return tl.where(a, b, b)
    elif OP == "fma":
        return tl.fma(a, b, b)
    elif OP == "umulhi":
        return tl.umulhi(a, b)
    elif OP == "pow":
        return tl.extra.libdevice.pow(a, b)
    elif OP == "fdiv":
        return tl.fdiv(a, b)
    elif OP == "logical_and":
        return a.logical_and(b)
    elif OP == "join":
        return tl.join(a, b)
    elif OP == "neg":
        return -a
    elif OP == "invert":
        return ~a
    elif OP == "not":
        return not a
    elif OP == "abs":
        return tl.abs(a)
    elif OP == "exp":
        return tl.exp(a)
    elif OP == "sqrt":
        return tl.sqrt(a)
    elif OP == "floor":
        return tl.floor(a)
    elif OP == "sigmoid":
        return tl.sigmoid(a)
    elif OP == "sum":
        return tl.sum(a)
    elif OP == "max":
        return tl.max(a, 0)
    elif OP == "argmax":
        return tl.argmax(a, 0)
    elif OP == "xor_sum":
        return tl.xor_sum(a, 0)
    elif OP == "cumsum":
        return tl.cumsum(a, 0)
    elif OP == "cumprod":
        return tl.cumprod(a, 0)
    elif OP == "sort":
        return tl.sort(a)
    elif OP == "flip":
        return tl.flip(a)
    elif OP == "softmax":
        return tl.softmax(a)
    elif OP == "to_int64":
        return a.to(tl.int64)
    elif OP == "to_int8":
        return a.to(tl.int8)
    elif OP == "to_fp32":
        return a.to(tl.float32)
    elif OP == "to_fp16":
        return a.to(tl.float16)
    elif OP == "to_bool":
        return a.to(tl.int1)
    elif OP == "to_ptr":
        return a.to(tl.pointer_type(tl.float32))
    elif OP == "bitcast_int32":
        return a.to(tl.int32, bitcast=True)
    elif OP == "clamp":
        return tl.clamp(a, 0, 1)
    elif OP == "histogram":
        return tl.histogram(a, 16)
    elif OP == "gather":
        return tl.gather(a, offs, 0)
    elif OP == "reshape":
        return tl.reshape(a, (4, 4))
    elif OP == "trans":
        return tl.trans(tl.reshape(a, (4, 4)))
    elif OP == "expand":
        return a[:, None]
    elif OP == "broadcast":
        return tl.broadcast_to(a[None, :], (2, 16))
    elif OP == "split":
        return tl.split(tl.reshape(a, (8, 2)))[0]
    elif OP == "interleave":
        return tl.interleave(a, a)
    elif OP == "device_print":
        tl.device_print("v", a)
        return offs
    elif OP == "atomic_add":
        return tl.atomic_add(a, 1, mask=offs < 0)
    elif OP == "load":
        return tl.load(a, mask=offs < 0)
    elif OP == "store_value":
        tl.store(tl.zeros((16,), tl.pointer_type(tl.float32)) + offs, a, mask=offs < 0)
        return offs
    else:
        tl.static_assert(OP == "dot")
        m = tl.broadcast_to(a[None, :], (16, 16))
        return tl.dot(m, m)


@triton.jit
def sink(out_ptr, offs, r):
    """Store any result (pointers as addresses, fp8 as fp32, other shapes summed) as float64s."""
    if r.dtype.is_ptr():
        r = r.to(tl.int64)
    if r.dtype.is_fp8():
        r = r.to(tl.float32)
    if len(r.shape) == 2:
        r = tl.sum(r.to(tl.float64), 0)
    if len(r.shape) == 1 and r.shape[0] != 16:
        r = tl.sum(r.to(tl.float64), 0)
    tl.store(out_ptr + offs, r)


@triton.jit
def operator_kernel(x_ptr, out_ptr, OP: tl.constexpr, PAIRS: tl.constexpr):
    """OP on each pair of operand kinds in PAIRS, each result in 16 elements of its own. x_ptr is
    also read as a pointer, so that a refused combination is the kernel's mistake, not the launch's
    (an array given where the kernel only uses a number)."""
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs))
    for i in tl.static_range(len(PAIRS)):
        a = operand(x_ptr, offs, PAIRS[i][0])
        b = operand(x_ptr, offs, PAIRS[i][1])
        sink(out_ptr + 16 * i, offs, apply(OP, a, b, offs))


@pytest.mark.no_ptx  # compiled below, once for all the combinations an operator accepts
@pytest.mark.no_gpu_diff  # its results hold addresses, which differ between the GPU and the interpreter
@pytest.mark.parametrize("op", BINARY + UNARY)
def test_operator_walk(op):
    """Each combination alone: a clear error, or accepted; then all that are accepted in one
    kernel, run by the interpreter and assembled by ptxas for sm_80 and sm_90."""
    pairs = [(a, b) for a in KINDS for b in (KINDS if op in BINARY else ("pyint",))
             if not (a.startswith("py") and b.startswith("py"))]
    x, out = np.zeros(16, np.float32), np.zeros(16 * len(pairs), np.float64)
    accepted = []
    for pair in pairs:
        try:
            operator_kernel.warmup(x, out, op, (pair,), grid=(1,))
        except CompilationError as err:
            cause = err.__cause__
            # the language's own error: x_ptr is also used as a pointer, so no launch argument is to blame
            assert type(cause).__name__ == "SemanticError" and err.hint, f"{op}{pair}: {err!r} from {cause!r}"
        else:
            accepted.append(pair)
    assert accepted, f"{op} takes no operands at all"
    operator_kernel[(1,)](x, out, op, tuple(accepted))
    for arch in ("sm_80", "sm_90"):
        assert operator_kernel.warmup(x, out, op, tuple(accepted), grid=(1,), target=arch).asm["cubin"]


# ------------------------------------------------------------------------------ constants
# A constant holds what its type holds: `tl.full` of a number its integer type cannot hold is an
# error (Triton 3.6 wraps 2**40 to 0 silently, and fails inside its bindings for -inf). A number
# meeting a tile must fit the tile's type (Triton's rule). Conversions stay conversions.

@triton.jit
def full_too_big(x_ptr, i_ptr):
    tl.store(i_ptr + tl.arange(0, 16), tl.full((16,), 2**40, tl.int32))  # <-


@triton.jit
def full_minus_inf_int(x_ptr, i_ptr):
    tl.store(i_ptr + tl.arange(0, 16), tl.full((16,), float("-inf"), tl.int32))  # <-


@triton.jit
def full_fraction_int(x_ptr, i_ptr):
    tl.store(i_ptr + tl.arange(0, 16), tl.full((16,), 2.5, tl.int32))  # <-


@triton.jit
def full_negative_unsigned(x_ptr, i_ptr):
    tl.store(i_ptr + tl.arange(0, 16), tl.full((16,), -1, tl.uint32).to(tl.int32))  # <-


@triton.jit
def full_past_uint8(x_ptr, i_ptr):
    tl.store(i_ptr + tl.arange(0, 16), tl.full((16,), 300, tl.uint8).to(tl.int32))  # <-


@triton.jit
def full_past_64_bits(x_ptr, i_ptr):
    tl.store(i_ptr + tl.arange(0, 16), tl.full((16,), 2**70, tl.int64).to(tl.int32))  # <-


@triton.jit
def full_huge_float(x_ptr, i_ptr):
    tl.store(x_ptr + tl.arange(0, 16), tl.full((16,), 10**400, tl.float32))  # <-


@triton.jit
def int8_plus_big(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, (tl.load(i_ptr + offs).to(tl.int8) + 1000).to(tl.int32))  # <-


@triton.jit
def where_int8_big(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, tl.where(offs < 3, offs.to(tl.int8), 1000).to(tl.int32))  # <-


@triton.jit
def uint_minus_negative(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, (offs.to(tl.uint32) + -1).to(tl.int32))  # <-


@triton.jit
def int32_plus_past_64_bits(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, offs + 2**70)  # <-


CONSTANTS = [
    (full_too_big, r"Scalar 1099511627776 is out of range for type int32"),
    (full_minus_inf_int, r"cannot make a constant of int32 from the float -inf"),
    (full_fraction_int, r"cannot make a constant of int32 from the float 2.5"),
    (full_negative_unsigned, r"Scalar -1 is out of range for type uint32"),
    (full_past_uint8, r"Scalar 300 is out of range for type uint8"),
    (full_past_64_bits, r"Scalar 1180591620717411303424 is out of range for type int64"),
    (full_huge_float, r"Nonrepresentable number"),
    (int8_plus_big, r"Scalar 1000 is out of range for type int8"),
    (where_int8_big, r"Scalar 1000 is out of range for type int8"),
    (uint_minus_negative, r"unsigned tensor \(uint32\) and a negative scalar \(-1\)"),
    (int32_plus_past_64_bits, r"Nonrepresentable integer"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kernel, match", CONSTANTS, ids=[k.__name__ for k, _ in CONSTANTS])
def test_constants(kernel, match, path):
    refused(kernel, path, match)


@triton.jit
def conversions_kernel(h_ptr, u8_ptr, i32_ptr, i8_ptr, b_ptr):
    """What is a conversion, not a constant: a float rounded to fp16 (past its range, infinity),
    `other=` and stored numbers typed on their own and then cast (Triton's rule), booleans
    adding as one-bit integers."""
    offs = tl.arange(0, 16)
    tl.store(h_ptr + offs, tl.where(offs < 8, tl.full((16,), 1e10, tl.float16), tl.load(h_ptr + offs) * 1e10))
    tl.store(u8_ptr + offs, tl.load(u8_ptr + offs, mask=offs < 8, other=-1))
    tl.store(i32_ptr + offs, tl.load(i32_ptr + offs, mask=offs < 8, other=float("-inf")))
    tl.store(i8_ptr + offs, 300)
    t = offs < 8
    tl.store(b_ptr + offs, (t + t) | ((t * t) & (t - (offs < 4))))


def test_conversions_of_numbers():
    h = np.arange(16, dtype=np.float16) - np.float16(9.5)
    u8, i32 = np.arange(16, dtype=np.uint8), np.arange(16, dtype=np.int32)
    i8, b = np.zeros(16, np.int8), np.full(16, 7, np.int8)
    want_h = np.where(np.arange(16) < 8, np.inf, np.sign(h) * np.inf).astype(np.float16)
    conversions_kernel[(1,)](h, u8, i32, i8, b.view(np.bool_))
    np.testing.assert_array_equal(h, want_h)
    np.testing.assert_array_equal(u8, np.where(np.arange(16) < 8, np.arange(16), 255))
    np.testing.assert_array_equal(i32, np.where(np.arange(16) < 8, np.arange(16), -2**31))
    np.testing.assert_array_equal(i8, np.full(16, 44))
    t = np.arange(16) < 8
    np.testing.assert_array_equal(b.view(np.bool_), t & (t ^ (np.arange(16) < 4)))  # t + t is 0


# ------------------------------------------------------------------------------ tl.dot
# Triton 3.6's rules (language/semantic.py, dot): int8 (or two fp8s), fp16, bf16, fp32 or fp64
# operands of one type, 2-D or 3-D, K equal and at least 16 (32 for 8-bit types); an int8 dot
# accumulates in int32, fp16 in fp32 or fp16, nothing in bf16.

@triton.jit
def dot_of_int32(x_ptr, i_ptr):
    a = tl.zeros((16, 16), tl.int32)
    tl.store(i_ptr + tl.arange(0, 16), tl.sum(tl.dot(a, a), 1))  # <-


@triton.jit
def dot_of_bool(x_ptr, i_ptr):
    a = tl.zeros((16, 16), tl.int1)
    tl.store(i_ptr + tl.arange(0, 16), tl.sum(tl.dot(a, a), 1))  # <-


@triton.jit
def dot_of_uint8(x_ptr, i_ptr):
    a = tl.zeros((32, 32), tl.uint8)
    tl.store(i_ptr + tl.arange(0, 32), tl.sum(tl.dot(a, a), 1))  # <-


@triton.jit
def dot_int_accumulator_for_fp16(x_ptr, i_ptr):
    a = tl.zeros((16, 16), tl.float16)
    c = tl.dot(a, a, tl.zeros((16, 16), tl.int32))  # <-
    tl.store(i_ptr + tl.arange(0, 16), tl.sum(c, 1))


@triton.jit
def dot_int_out_dtype_for_fp16(x_ptr, i_ptr):
    a = tl.zeros((16, 16), tl.float16)
    c = tl.dot(a, a, out_dtype=tl.int32)  # <-
    tl.store(i_ptr + tl.arange(0, 16), tl.sum(c, 1))


@triton.jit
def dot_bf16_out_dtype(x_ptr, i_ptr):
    a = tl.zeros((16, 16), tl.bfloat16)
    c = tl.dot(a, a, out_dtype=tl.bfloat16)  # <-
    tl.store(x_ptr + tl.arange(0, 16), tl.sum(c, 1).to(tl.float32))


@triton.jit
def dot_k_mismatch(x_ptr, i_ptr):
    c = tl.dot(tl.zeros((16, 32), tl.float16), tl.zeros((16, 16), tl.float16))  # <-
    tl.store(x_ptr + tl.arange(0, 16), tl.sum(c, 1))


@triton.jit
def dot_rank_one(x_ptr, i_ptr):
    a = tl.zeros((16,), tl.float16)
    tl.store(x_ptr + tl.arange(0, 16), tl.dot(a, a))  # <-


@triton.jit
def dot_ranks_differ(x_ptr, i_ptr):
    c = tl.dot(tl.zeros((2, 16, 16), tl.float16), tl.zeros((16, 16), tl.float16))  # <-
    tl.store(x_ptr + tl.arange(0, 16), tl.sum(tl.sum(c, 2), 0))


@triton.jit
def dot_mixed_types(x_ptr, i_ptr):
    c = tl.dot(tl.zeros((16, 16), tl.float16), tl.zeros((16, 16), tl.float32))  # <-
    tl.store(x_ptr + tl.arange(0, 16), tl.sum(c, 1))


@triton.jit
def dot_small_k(x_ptr, i_ptr):
    c = tl.dot(tl.zeros((16, 8), tl.float16), tl.zeros((8, 16), tl.float16))  # <-
    tl.store(x_ptr + tl.arange(0, 16), tl.sum(c, 1))


@triton.jit
def dot_accumulator_shape(x_ptr, i_ptr):
    a = tl.zeros((16, 16), tl.float16)
    c = tl.dot(a, a, tl.zeros((16, 32), tl.float32))  # <-
    tl.store(x_ptr + tl.arange(0, 16), tl.sum(c, 1))


@triton.jit
def dot_unknown_precision(x_ptr, i_ptr):
    a = tl.zeros((16, 16), tl.float32)
    c = tl.dot(a, a, input_precision="tf64")  # <-
    tl.store(x_ptr + tl.arange(0, 16), tl.sum(c, 1))


@triton.jit
def dot_batch_mismatch(x_ptr, i_ptr):
    c = tl.dot(tl.zeros((2, 16, 16), tl.float16), tl.zeros((4, 16, 16), tl.float16))  # <-
    tl.store(x_ptr + tl.arange(0, 16), tl.sum(tl.sum(c, 2), 0))


DOTS = [
    (dot_of_int32, r"Unsupported lhs dtype int32"),
    (dot_of_bool, r"Unsupported lhs dtype int1"),
    (dot_of_uint8, r"only int8 supported!"),
    (dot_int_accumulator_for_fp16, r"the accumulator is a \[16, 16\] tile of int32"),
    (dot_int_out_dtype_for_fp16, r"out_dtype=int32 is unsupported for fp16 operands"),
    (dot_bf16_out_dtype, r"out_dtype=bfloat16 is unsupported"),
    (dot_k_mismatch, r"inner dimensions differ .*not compatible for matmul"),
    (dot_rank_one, r"Both inputs must be either 2D or 3D"),
    (dot_ranks_differ, r"Both inputs must be either 2D or 3D"),
    (dot_mixed_types, r"Both operands must be same dtype. Got fp16 and fp32"),
    (dot_small_k, r"K >= 16"),
    (dot_accumulator_shape, r"the accumulator is a \[16, 32\] tile"),
    (dot_unknown_precision, r"input_precision must be one of"),
    (dot_batch_mismatch, r"equal batch shapes"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kernel, match", DOTS, ids=[k.__name__ for k, _ in DOTS])
def test_dot_operands(kernel, match, path):
    refused(kernel, path, match)


# ------------------------------------------------------------------------------ indexing and shapes

@triton.jit
def two_slices_of_1d(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, offs[:, :])  # <-


@triton.jit
def slices_after_none(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, tl.sum(offs[None, :, :], 0))  # <-


@triton.jit
def integer_index(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, offs[None, None, :, 5])  # <-


@triton.jit
def strided_slice(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, offs[::2])  # <-


@triton.jit
def expand_dims_past_rank(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, tl.sum(tl.expand_dims(offs, 3), 1))  # <-


@triton.jit
def expand_dims_twice_one_axis(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, tl.sum(tl.sum(tl.expand_dims(offs, (0, 0)), 0), 0))  # <-


@triton.jit
def permute_repeated_axis(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, tl.sum(tl.permute(offs[:, None] + offs[None, :], (0, 0)), 1))  # <-


@triton.jit
def permute_too_many_axes(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, tl.sum(tl.permute(offs[:, None] + offs[None, :], (0, 1, 2)), 1))  # <-


@triton.jit
def transpose_1d(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, tl.trans(offs))  # <-


@triton.jit
def reshape_other_numel(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + tl.arange(0, 8), tl.sum(tl.reshape(offs, (8, 4)), 1))  # <-


@triton.jit
def reshape_not_power_of_two(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, tl.sum(tl.reshape(offs, (3, 16)), 0))  # <-


@triton.jit
def broadcast_incompatible(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + tl.arange(0, 8), tl.broadcast_to(offs, (8,)))  # <-


@triton.jit
def broadcast_to_lower_rank(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, tl.broadcast_to(offs[:, None], (16,)))  # <-


@triton.jit
def add_incompatible_shapes(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, offs + tl.arange(0, 8))  # <-


@triton.jit
def arange_not_power_of_two(x_ptr, i_ptr):
    tl.store(i_ptr + tl.arange(0, 12), 1)  # <-


@triton.jit
def arange_backwards(x_ptr, i_ptr):
    tl.store(i_ptr + tl.arange(16, 0), 1)  # <-


@triton.jit
def arange_empty(x_ptr, i_ptr):
    tl.store(i_ptr + tl.arange(4, 4), 1)  # <-


@triton.jit
def arange_runtime_bound(x_ptr, i_ptr, n):
    tl.store(i_ptr + tl.arange(0, n), 1)  # <-


@triton.jit
def arange_past_int32(x_ptr, i_ptr):
    tl.store(i_ptr + tl.arange(2**32, 2**32 + 16), 1)  # <-


@triton.jit
def assert_with_tensor_message(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.device_assert(offs < 100, offs)  # <-


@triton.jit
def assert_statement_with_tensor_message(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    assert offs < 100, offs  # <-


@triton.jit
def split_last_dim_not_two(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    a, b = tl.split(offs[:, None] + offs[None, :])  # <-
    tl.store(i_ptr + offs, a)


@triton.jit
def join_mismatched(x_ptr, i_ptr):
    c = tl.join(tl.arange(0, 16), tl.arange(0, 8))  # <-
    tl.store(i_ptr + tl.arange(0, 16), tl.sum(c, 1))


@triton.jit
def join_two_dtypes(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    c = tl.join(offs, offs.to(tl.float32))  # <-
    tl.store(x_ptr + offs, tl.sum(c, 1))


@triton.jit
def sum_past_rank(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr, tl.sum(offs, 2))  # <-


@triton.jit
def flip_past_rank(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, tl.flip(offs, 1))  # <-


@triton.jit
def static_range_step_zero(x_ptr, i_ptr):
    for i in tl.static_range(0, 4, 0):  # <-
        tl.store(i_ptr + i, i)


@triton.jit
def program_id_three(x_ptr, i_ptr):
    tl.store(i_ptr, tl.program_id(3))  # <-


@triton.jit
def constant_divided_by_zero(x_ptr, i_ptr, BLOCK: tl.constexpr):
    tl.store(i_ptr + tl.arange(0, 16), BLOCK // 0)  # <-


SHAPES = [
    (two_slices_of_1d, r"too many indices for a tensor of dimension 1"),
    (slices_after_none, r"too many indices for a tensor of dimension 1"),
    (integer_index, r"unsupported tensor index: 5"),
    (strided_slice, r"unsupported tensor index"),
    (expand_dims_past_rank, r"invalid axis 3. Expected -2 <= axis < 2"),
    (expand_dims_twice_one_axis, r"expand_dims received duplicate axes"),
    (permute_repeated_axis, r"permute dims must be a permutation of 0, 1, ..., n-1, but were \[0, 0\]"),
    (permute_too_many_axes, r"permute dims must have the same length as input shape"),
    (transpose_1d, r"tl.trans invoked with a 0- or 1-dimensional tensor"),
    (reshape_other_numel, r"reshape\(\) cannot change total number of elements in tensor"),
    (reshape_not_power_of_two, r"shape element 0 must be a power of 2"),
    (broadcast_incompatible, r"the expanded size of the tensor \(8\) must match the existing size \(16\)"),
    (broadcast_to_lower_rank, r"Cannot broadcast, rank mismatch"),
    (add_incompatible_shapes, r"incompatible dimensions at index 0: 16 and 8"),
    (arange_not_power_of_two, r"range must be a power of 2"),
    (arange_backwards, r"arange's end argument must be greater than the start argument"),
    (arange_empty, r"arange's end argument must be greater than the start argument"),
    (arange_runtime_bound, r"arange's end must be a compile-time constant"),
    (arange_past_int32, r"arange must fit in int32"),
    (assert_with_tensor_message, r"device_assert's message must be a string"),
    (assert_statement_with_tensor_message, r"an assert's message must be a string"),
    (split_last_dim_not_two, r"split needs a tensor whose last dimension has size 2"),
    (join_mismatched, r"incompatible dimensions at index 0: 16 and 8"),
    (join_two_dtypes, r"join needs two tensors of one dtype"),
    (sum_past_rank, r"invalid axis 2. Expected -1 <= axis < 1"),
    (flip_past_rank, r"flip's dim is not an axis of x"),
    (static_range_step_zero, r"step must not be zero"),
    (program_id_three, r"program_id axis must be 0, 1, or 2 but got 3"),
    (constant_divided_by_zero, r"integer division or modulo by zero"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kernel, match", SHAPES, ids=[k.__name__ for k, _ in SHAPES])
def test_indexing_and_shapes(kernel, match, path):
    args = (np.zeros(16, np.float32), np.zeros(16, np.int32))
    extra = {arange_runtime_bound: (16,), constant_divided_by_zero: (16,)}.get(kernel, ())
    refused(kernel, path, match, *args, *extra)


# ------------------------------------------------------------------------------ calls and operands out of range

@triton.jit
def store_without_value(x_ptr, i_ptr):
    tl.store(x_ptr + tl.arange(0, 16))  # <-


@triton.jit
def load_with_unknown_keyword(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, maskk=offs < 3))  # <-


@triton.jit
def exp_of_two_values(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.exp(offs, offs))  # <-


@triton.jit
def full_of_a_tile(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, tl.full((16,), offs, tl.int32))  # <-


@triton.jit
def shift_past_the_width(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, offs << 32)  # <-


@triton.jit
def shift_by_a_negative_amount(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.store(i_ptr + offs, offs >> -1)  # <-


@triton.jit
def loop_of_step_zero(x_ptr, i_ptr, n):
    for i in range(0, n, 0):  # <-
        tl.store(i_ptr + i, i)


@triton.jit
def loop_to_a_float(x_ptr, i_ptr, n):
    for i in range(0, n * 1.5):  # <-
        tl.store(i_ptr + i, i)


CALLS = [
    (store_without_value, r"bad call to store\(\): missing a required argument: 'value'"),
    (load_with_unknown_keyword, r"bad call to load\(\): got an unexpected keyword argument 'maskk'"),
    (exp_of_two_values, r"bad call to exp\(\): too many positional arguments"),
    (full_of_a_tile, r"tl.full's value must be a scalar.*only accepts size-1 tensor"),
    (shift_past_the_width, r"Value 32 exceeds the maximum bitwidth \(32\) for type 'int32'"),
    (shift_by_a_negative_amount, r"shift by a negative amount \(-1\)"),
    (loop_of_step_zero, r"range step must not be zero"),
    (loop_to_a_float, r"For loop bounds and step must all be integer scalars"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kernel, match", CALLS, ids=[k.__name__ for k, _ in CALLS])
def test_calls_and_operands_out_of_range(kernel, match, path):
    extra = (16,) if kernel in (loop_of_step_zero, loop_to_a_float) else ()
    refused(kernel, path, match, np.zeros(16, np.float32), np.zeros(16, np.int32), *extra)


# ------------------------------------------------------------------------------ integer division by zero
# Triton 3.6 has no rule: LLVM calls it undefined, PTX "an unspecified, machine-specific value",
# and Triton's interpreter (numpy) gives 0. minitriton's rule is that one, on both backends: x // 0
# and x % 0 are 0 (codegen guards a divisor that is not a nonzero constant). A compile-time
# constant divided by zero is Python's error, at its line.

@triton.jit
def divide_kernel(x_ptr, y_ptr, q_ptr, r_ptr, n):
    offs = tl.arange(0, 64)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(q_ptr + offs, x // y, mask=mask)
    tl.store(r_ptr + offs, x % y, mask=mask)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint32, np.int64, np.uint64])
def test_integer_division_by_zero_is_zero(dtype):
    rng = np.random.default_rng(15)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, 50, dtype=dtype, endpoint=True)
    y = rng.integers(-3 if info.min else 0, 4, 50).astype(dtype)
    y[::3] = 0
    q, r = np.full(50, 77, dtype), np.full(50, 77, dtype)
    divide_kernel[(1,)](x, y, q, r, 50)
    safe = np.where(y == 0, 1, y)
    with np.errstate(all="ignore"):  # C's division: toward zero, the remainder has x's sign
        want_q = np.where(y == 0, 0, (x - np.fmod(x, safe)) // safe).astype(dtype)
        want_r = np.where(y == 0, 0, np.fmod(x, safe)).astype(dtype)
    np.testing.assert_array_equal(q, want_q)
    np.testing.assert_array_equal(r, want_r)


@triton.jit
def divide_by_constant_kernel(x_ptr, q_ptr):
    offs = tl.arange(0, 16)
    tl.store(q_ptr + offs, tl.load(x_ptr + offs) // 7 + tl.load(x_ptr + offs) % 5)


def test_division_by_a_nonzero_constant_is_not_guarded():
    x = np.arange(-8, 8, dtype=np.int32)
    q = np.zeros(16, np.int32)
    divide_by_constant_kernel[(1,)](x, q)
    np.testing.assert_array_equal(q, np.trunc(x / 7).astype(np.int32) + np.fmod(x, 5))
    llir = divide_by_constant_kernel.warmup(x, q, grid=(1,), target="sm_90").asm["llir"]
    assert "select" not in llir, "a constant divisor needs no guard against zero"


# ------------------------------------------------------------------------------ atomics
# Triton 3.6's element types (atom_red_typechecking_impl): 32- and 64-bit integers; floats for
# add (fp16, bf16, fp32, fp64) and max, min, xchg (fp32, fp64); compare-and-swap of 16, 32, 64
# bits. Nothing narrower: ptxas has no 8-bit atomics.

@triton.jit
def atomic_add_int8(x_ptr, i_ptr):
    tl.atomic_add(i_ptr.to(tl.pointer_type(tl.int8)) + tl.arange(0, 16), 1)  # <-


@triton.jit
def atomic_add_uint8(x_ptr, i_ptr):
    tl.atomic_add(i_ptr.to(tl.pointer_type(tl.uint8)) + tl.arange(0, 16), 1)  # <-


@triton.jit
def atomic_add_int16(x_ptr, i_ptr):
    tl.atomic_add(i_ptr.to(tl.pointer_type(tl.int16)) + tl.arange(0, 16), 1)  # <-


@triton.jit
def atomic_add_uint16(x_ptr, i_ptr):
    tl.atomic_add(i_ptr.to(tl.pointer_type(tl.uint16)) + tl.arange(0, 16), 1)  # <-


@triton.jit
def atomic_add_bool(x_ptr, i_ptr):
    tl.atomic_add(i_ptr.to(tl.pointer_type(tl.int1)) + tl.arange(0, 16), True)  # <-


@triton.jit
def atomic_add_fp8(x_ptr, i_ptr):
    tl.atomic_add(i_ptr.to(tl.pointer_type(tl.float8e5)) + tl.arange(0, 16), 1.0)  # <-


@triton.jit
def atomic_xor_int8(x_ptr, i_ptr):
    tl.atomic_xor(i_ptr.to(tl.pointer_type(tl.int8)) + tl.arange(0, 16), 1)  # <-


@triton.jit
def atomic_min_int16(x_ptr, i_ptr):
    tl.atomic_min(i_ptr.to(tl.pointer_type(tl.int16)) + tl.arange(0, 16), 1)  # <-


@triton.jit
def atomic_max_fp16(x_ptr, i_ptr):
    tl.atomic_max(i_ptr.to(tl.pointer_type(tl.float16)) + tl.arange(0, 16), 1.0)  # <-


@triton.jit
def atomic_max_bf16(x_ptr, i_ptr):
    tl.atomic_max(i_ptr.to(tl.pointer_type(tl.bfloat16)) + tl.arange(0, 16), 1.0)  # <-


@triton.jit
def atomic_xchg_int16(x_ptr, i_ptr):
    tl.atomic_xchg(i_ptr.to(tl.pointer_type(tl.int16)) + tl.arange(0, 16), 1)  # <-


@triton.jit
def atomic_and_fp32(x_ptr, i_ptr):
    tl.atomic_and(x_ptr + tl.arange(0, 16), 1.0)  # <-


@triton.jit
def atomic_cas_int8(x_ptr, i_ptr):
    tl.atomic_cas(i_ptr.to(tl.pointer_type(tl.int8)) + tl.arange(0, 16), 1, 2)  # <-


@triton.jit
def atomic_cas_bool(x_ptr, i_ptr):
    tl.atomic_cas(i_ptr.to(tl.pointer_type(tl.int1)) + tl.arange(0, 16), True, False)  # <-


@triton.jit
def atomic_on_offsets(x_ptr, i_ptr):
    tl.atomic_add(tl.arange(0, 16), 1)  # <-


@triton.jit
def atomic_with_offsets_as_mask(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    tl.atomic_add(i_ptr + offs, 1, mask=offs)  # <-


ATOMICS = [
    (atomic_add_int8, r"atomic_add does not support int8"),
    (atomic_add_uint8, r"atomic_add does not support uint8"),
    (atomic_add_int16, r"atomic_add does not support int16"),
    (atomic_add_uint16, r"atomic_add does not support uint16"),
    (atomic_add_bool, r"atomic_add does not support int1"),
    (atomic_add_fp8, r"atomic_add does not support fp8e5"),
    (atomic_xor_int8, r"atomic_xor does not support int8"),
    (atomic_min_int16, r"atomic_min does not support int16"),
    (atomic_max_fp16, r"atomic_max does not support fp16"),
    (atomic_max_bf16, r"atomic_max does not support bf16"),
    (atomic_xchg_int16, r"atomic_xchg does not support int16"),
    (atomic_and_fp32, r"atomic_and does not support fp32"),
    (atomic_cas_int8, r"atomic_cas only supports elements with width \{16, 32, 64\}"),
    (atomic_cas_bool, r"atomic_cas only supports elements with width \{16, 32, 64\}"),
    (atomic_on_offsets, r"tl.atomic_add needs a pointer"),
    (atomic_with_offsets_as_mask, r"Mask must have boolean scalar type"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kernel, match", ATOMICS, ids=[k.__name__ for k, _ in ATOMICS])
def test_atomic_element_types(kernel, match, path):
    refused(kernel, path, match)


@triton.jit
def narrow_atomics_kernel(h_ptr, s_ptr, f_ptr):
    """The narrow atomics there are: add of fp16 and bf16, compare-and-swap of 16 bits."""
    offs = tl.arange(0, 16)
    tl.atomic_add(h_ptr + offs, 1.5)
    tl.atomic_add(f_ptr.to(tl.pointer_type(tl.bfloat16)) + offs, 2.0)
    tl.atomic_cas(s_ptr + offs, offs.to(tl.int16), (offs * 3).to(tl.int16))


def test_the_narrow_atomics_there_are():
    h = np.arange(16, dtype=np.float16)
    s = np.where(np.arange(16) % 2 == 0, np.arange(16), -1).astype(np.int16)
    f = (np.arange(16, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)  # bf16 bit patterns
    narrow_atomics_kernel[(1,)](h, s, f)
    np.testing.assert_array_equal(h, np.arange(16, dtype=np.float16) + np.float16(1.5))
    np.testing.assert_array_equal(s, np.where(np.arange(16) % 2 == 0, 3 * np.arange(16), -1))
    np.testing.assert_array_equal((f.astype(np.uint32) << 16).view(np.float32), np.arange(16) + 2.0)


# ------------------------------------------------------------------------------ sizes that would not end
# Triton refuses a tile of more than 2**20 elements; an unrolled loop (tl.static_range) stops
# growing the kernel at MAX_UNROLLED_OPS operations (Triton has no limit, and takes minutes).

@triton.jit
def arange_of_2_31(x_ptr, i_ptr):
    tl.store(i_ptr + tl.arange(0, 2**31), 1)  # <-


@triton.jit
def zeros_of_4096_squared(x_ptr, i_ptr):
    tl.store(x_ptr + tl.arange(0, 4096), tl.sum(tl.zeros((4096, 4096), tl.float32), 1))  # <-


@triton.jit
def broadcast_to_huge(x_ptr, i_ptr):
    x = tl.zeros((1024, 1024), tl.float32)
    y = tl.broadcast_to(x[None, :, :], (4, 1024, 1024))  # <-
    tl.store(x_ptr + tl.arange(0, 4), tl.sum(tl.sum(y, 2), 1))


@triton.jit
def join_to_huge(x_ptr, i_ptr):
    x = tl.zeros((1024, 1024), tl.float32)
    y = tl.join(x, x)  # <-
    tl.store(x_ptr + tl.arange(0, 2), tl.sum(tl.sum(y, 0), 0))


@triton.jit
def histogram_of_huge_bins(x_ptr, i_ptr):
    h = tl.histogram(tl.arange(0, 16), 2**30)  # <-
    tl.store(i_ptr + tl.arange(0, 16), tl.sum(h, 0))


@triton.jit
def unrolled_too_far(x_ptr, i_ptr):
    offs = tl.arange(0, 16)
    acc = tl.zeros((16,), tl.float32)
    for i in tl.static_range(100_000):  # <-
        acc += tl.load(x_ptr + offs) * i
    tl.store(x_ptr + offs, acc)


HANGS = [
    (arange_of_2_31, r"numel \(2147483648\) exceeds triton maximum tensor numel \(1048576\)"),
    (zeros_of_4096_squared, r"numel \(16777216\) exceeds triton maximum tensor numel"),
    (broadcast_to_huge, r"numel \(4194304\) exceeds triton maximum tensor numel"),
    (join_to_huge, r"numel \(2097152\) exceeds triton maximum tensor numel"),
    (histogram_of_huge_bins, r"numel \(1073741824\) exceeds triton maximum tensor numel"),
    (unrolled_too_far, r"this unrolled loop has grown the kernel past 32768 operations"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kernel, match", HANGS, ids=[k.__name__ for k, _ in HANGS])
def test_sizes_that_would_not_end(kernel, match, path):
    start = time.perf_counter()
    refused(kernel, path, match)
    assert time.perf_counter() - start < 120, "the error must come before the compile would have gone on for minutes"


@triton.jit
def long_constant_loop(i_ptr):
    total = 0
    for i in tl.static_range(100_000):  # constants only: no operation is made, nothing to stop
        total += i % 7
    tl.store(i_ptr, total)


def test_a_long_unrolled_loop_of_constants_compiles():
    out = np.zeros(1, np.int32)
    long_constant_loop[(1,)](out)
    assert out[0] == sum(i % 7 for i in range(100_000))
