"""The fp8 types: their numbers, Triton's conversions to and from them, arithmetic on them.

Each format's 256 codes are decoded here from the format's definition, one code at a time, and
every conversion is checked against a nearest-number search over those codes, written here too:
upcasts on all 256 codes, downcasts on random numbers of every magnitude plus the edges (ties,
the largest numbers and past them, infinities, NaN, subnormals, -0). Kernels run in the
interpreter and are compiled for every arch that has their types (fp8e4nv: sm_89 and later).
"""
import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton import CompilationError
from minitriton.dtypes import FORMATS
from minitriton.floats import bf16_bits, bf16_from_bits, float_bits, fp8_bits, fp8_values


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


NVIDIA = [tl.float8e5, tl.float8e4b15, tl.float8e4nv]  # the fp8s an NVIDIA GPU has (e4nv from sm_89)
ALL = NVIDIA + [tl.float8e4b8, tl.float8e5b16]  # AMD's two: the interpreter only
# (exponent bits, mantissa bits, bias, what the top codes mean), from each format's definition
DEFINITIONS = {"fp8e5": (5, 2, 15, "ieee"), "fp8e4nv": (4, 3, 7, "fn"), "fp8e4b15": (4, 3, 15, "finite"),
               "fp8e4b8": (4, 3, 8, "fnuz"), "fp8e5b16": (5, 2, 16, "fnuz")}
LARGEST = {"fp8e5": 57344.0, "fp8e4nv": 448.0, "fp8e4b15": 1.75, "fp8e4b8": 240.0, "fp8e5b16": 57344.0}


def decode(code: int, name: str) -> float:
    exponent_bits, mantissa_bits, bias, specials = DEFINITIONS[name]
    sign = -1.0 if code & 0x80 else 1.0
    exponent = (code >> mantissa_bits) & ((1 << exponent_bits) - 1)
    mantissa = code & ((1 << mantissa_bits) - 1)
    top = exponent == (1 << exponent_bits) - 1
    if specials == "ieee" and top:
        return sign * float("inf") if mantissa == 0 else float("nan")
    if specials == "fn" and top and mantissa == (1 << mantissa_bits) - 1:
        return float("nan")
    if specials == "fnuz" and code == 0x80:
        return float("nan")
    if exponent == 0:
        return sign * mantissa * 2.0 ** (1 - bias - mantissa_bits)
    return sign * (1 + mantissa / 2 ** mantissa_bits) * 2.0 ** (exponent - bias)


def nearest_code(x: float, name: str, toward_zero: bool = False) -> int:
    """The reference conversion: search every code for the nearest number (ties: the even code,
    or away from zero for fp8e4b15), then saturate; NaN -> the format's NaN."""
    specials = DEFINITIONS[name][3]
    if x != x:
        return {"fnuz": 0x80, "finite": 0x7E}.get(specials, 0x7F)
    numbers = [(decode(c, name), c) for c in range(128) if decode(c, name) == decode(c, name)
               and abs(decode(c, name)) <= LARGEST[name]]
    magnitude = abs(x)
    if toward_zero:
        if magnitude == float("inf"):
            return 0x7C | (0x80 if x < 0 else 0)
        best = max(c for v, c in numbers if v <= magnitude)
    elif magnitude >= LARGEST[name]:
        best = max(c for _, c in numbers)
    else:
        distance = min(abs(v - magnitude) for v, _ in numbers)
        ties = [c for v, c in numbers if abs(v - magnitude) == distance]
        best = max(ties) if FORMATS[name].ties == "away" else next(c for c in ties if c % 2 == 0) \
            if len(ties) > 1 else ties[0]
    negative = np.signbit(x) and not (specials == "fnuz" and best == 0)
    return best | (0x80 if negative else 0)


# ------------------------------------------------------------------------------------ the formats

@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_every_code_is_the_number_its_format_says(dtype):
    want = np.array([decode(c, dtype.name) for c in range(256)])
    np.testing.assert_array_equal(fp8_values(dtype), want.astype(np.float32))
    assert (dtype.fp_mantissa_width, dtype.exponent_bias) == DEFINITIONS[dtype.name][1:3]
    assert dtype.is_fp8() and dtype.is_floating() and not dtype.is_standard_floating()


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_each_number_is_stored_as_its_own_code(dtype):
    """Storing is exact: even the codes a conversion never gives (fp8e5's infinity, fp8e4b15's 1.875)."""
    values = fp8_values(dtype)
    numbers = ~np.isnan(values)
    np.testing.assert_array_equal(float_bits(values, dtype)[numbers], np.arange(256)[numbers])


def edge_values(name: str) -> np.ndarray:
    """Every number of the format, the midpoints between neighbours and a hair either side of
    them, numbers past the largest, infinities, NaN and zeros."""
    numbers = np.unique(np.abs(fp8_values(getattr(tl, "float8" + name[3:]))))
    numbers = numbers[np.isfinite(numbers)].astype(np.float64)
    middles = (numbers[1:] + numbers[:-1]) / 2
    around = np.concatenate([middles, middles * (1 + 2**-20), middles * (1 - 2**-20), numbers,
                             numbers[-3:] * 1.1, [LARGEST[name] * 1.0625, 1e30, np.inf, 0.0, 1e-30]])
    return np.concatenate([around, -around, [np.nan]])


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_conversion_from_fp32_is_the_nearest_number_saturated(dtype):
    rng = np.random.default_rng(1)
    random = rng.standard_normal(2000) * 2.0 ** rng.integers(-20, 20, 2000)
    x = np.concatenate([edge_values(dtype.name), random]).astype(np.float32)
    want = np.array([nearest_code(float(v), dtype.name) for v in x], np.uint8)
    np.testing.assert_array_equal(fp8_bits(x, dtype), want)


def test_fp8e5_toward_zero_stops_at_the_largest_and_keeps_infinity():
    x = edge_values("fp8e5").astype(np.float32)
    want = np.array([nearest_code(float(v), "fp8e5", toward_zero=True) for v in x], np.uint8)
    np.testing.assert_array_equal(fp8_bits(x, tl.float8e5, "rtz"), want)


def test_fp8e4b15_keeps_the_sign_of_an_fp16_nan_only():
    assert list(fp8_bits(np.array([np.nan, -np.nan], np.float16), tl.float8e4b15)) == [0x7E, 0xFE]
    assert list(fp8_bits(np.array([np.nan, -np.nan], np.float32), tl.float8e4b15)) == [0x7E, 0x7E]


# ------------------------------------------------------------------------------- kernels: casts

@triton.jit
def upcast_kernel(x_ptr, f32_ptr, f16_ptr, bf16_ptr, n, BLOCK: tl.constexpr, BF16: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(f32_ptr + offs, x.to(tl.float32), mask=mask)
    tl.store(f16_ptr + offs, x.to(tl.float16), mask=mask)
    if BF16:
        tl.store(bf16_ptr + offs, x.to(tl.bfloat16).to(tl.uint16, bitcast=True), mask=mask)


def run_upcast(dtype):
    codes = np.arange(256, dtype=np.uint8)
    f32 = np.full(256, -7.0, np.float32)
    f16 = np.full(256, -7.0, np.float16)
    bf16 = np.zeros(256, np.uint16)
    upcast_kernel[(4,)](triton.reinterpret(codes, dtype), f32, f16, bf16, 256, BLOCK=64,
                        BF16=not dtype.is_fp8e4b15())
    values = np.array([decode(c, dtype.name) for c in range(256)])
    np.testing.assert_array_equal(f32, values.astype(np.float32))
    np.testing.assert_array_equal(f16, values.astype(np.float16))
    if not dtype.is_fp8e4b15():
        np.testing.assert_array_equal(bf16_from_bits(bf16), values.astype(np.float32))


@pytest.mark.parametrize("dtype", [tl.float8e5, tl.float8e4b15], ids=str)
def test_upcast_every_code(dtype):
    run_upcast(dtype)


@pytest.mark.targets("sm_90", "sm_90a")
def test_upcast_every_code_fp8e4nv():
    run_upcast(tl.float8e4nv)


@pytest.mark.no_ptx
@pytest.mark.parametrize("dtype", [tl.float8e4b8, tl.float8e5b16], ids=str)
def test_upcast_every_code_amd_formats_in_the_interpreter(dtype):
    run_upcast(dtype)


@triton.jit
def downcast_kernel(x_ptr, out_ptr, n, DST: tl.constexpr, ROUNDING: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x.to(DST, fp_downcast_rounding=ROUNDING).to(tl.uint8, bitcast=True), mask=mask)


def run_downcast(dtype, source=np.float32, rounding=None):
    rng = np.random.default_rng(2)
    random = rng.standard_normal(700) * 2.0 ** rng.integers(-12, 12, 700)
    with np.errstate(over="ignore"):
        x = np.concatenate([edge_values(dtype.name), random]).astype(np.float32 if source == "bf16" else source)
    if source == "bf16":
        x = bf16_from_bits(bf16_bits(x))
        arg = triton.reinterpret(bf16_bits(x), tl.bfloat16)
    else:
        arg = x
    out = np.full(x.size, 0x55, np.uint8)
    downcast_kernel[(triton.cdiv(x.size, 128),)](arg, out, x.size, DST=dtype, ROUNDING=rounding, BLOCK=128)
    if source == np.float16 and dtype.is_fp8e4b15():  # Triton's conversion takes fp16's sign of NaN
        want = fp8_bits(x, dtype)
    else:
        want = np.array([nearest_code(float(v), dtype.name, rounding == "rtz") for v in x], np.uint8)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("source", [np.float32, np.float16, "bf16"], ids=str)
def test_downcast_to_fp8e5(source):
    run_downcast(tl.float8e5, source)


def test_downcast_to_fp8e5_toward_zero():
    run_downcast(tl.float8e5, np.float32, "rtz")


@pytest.mark.parametrize("source", [np.float32, np.float16], ids=str)
def test_downcast_to_fp8e4b15(source):
    run_downcast(tl.float8e4b15, source)


@pytest.mark.targets("sm_90", "sm_90a")
@pytest.mark.parametrize("source", [np.float32, np.float16, "bf16"], ids=str)
def test_downcast_to_fp8e4nv(source):
    run_downcast(tl.float8e4nv, source)


@pytest.mark.no_ptx
@pytest.mark.parametrize("dtype", [tl.float8e4b8, tl.float8e5b16], ids=str)
def test_downcast_amd_formats_in_the_interpreter(dtype):
    run_downcast(dtype)


# ------------------------------------------------------------------------------- kernels: arithmetic

@triton.jit
def arithmetic_kernel(x_ptr, y_ptr, z_ptr, out_ptr, mixed_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x, y = tl.load(x_ptr + offs, mask=mask), tl.load(y_ptr + offs, mask=mask)
    z = tl.load(z_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, (x * y + x).to(tl.uint8, bitcast=True), mask=mask)  # fp8e5: each op rounded
    tl.store(out_ptr + n + offs, tl.abs(x).to(tl.uint8, bitcast=True), mask=mask)
    tl.store(out_ptr + 2 * n + offs, tl.where(x < y, x, y).to(tl.uint8, bitcast=True), mask=mask)
    mixed = x + z  # two fp8s meet at fp16
    tl.static_assert(mixed.dtype == tl.float16)
    tl.store(mixed_ptr + offs, mixed, mask=mask)  # a value: a NaN's bits are the GPU's to choose
    tl.store(out_ptr + 3 * n + offs, (-x).to(tl.uint8, bitcast=True), mask=mask)


def test_arithmetic_on_fp8_is_fp32_rounded_back():
    n = 256
    rng = np.random.default_rng(3)
    x_codes = np.arange(256, dtype=np.uint8)
    y_codes = rng.integers(0, 256, n, dtype=np.uint8)
    z_codes = rng.integers(0, 256, n, dtype=np.uint8)
    out, mixed = np.full(4 * n, 0x55, np.uint8), np.full(n, -7, np.float16)
    arithmetic_kernel[(2,)](triton.reinterpret(x_codes, tl.float8e5), triton.reinterpret(y_codes, tl.float8e5),
                            triton.reinterpret(z_codes, tl.float8e4b15), out, mixed, n, BLOCK=128)
    e5, e4b15 = fp8_values(tl.float8e5), fp8_values(tl.float8e4b15)
    x, y, z = e5[x_codes], e5[y_codes], e4b15[z_codes]
    with np.errstate(all="ignore"):
        product = fp8_values(tl.float8e5)[fp8_bits(x * y, tl.float8e5)]
        np.testing.assert_array_equal(out[:n], fp8_bits(product + x, tl.float8e5))
        np.testing.assert_array_equal(out[n:2 * n], x_codes & 0x7F)  # an infinity stays one
        np.testing.assert_array_equal(out[2 * n:3 * n], np.where(x < y, x_codes, y_codes))
        np.testing.assert_array_equal(mixed, x.astype(np.float16) + z.astype(np.float16))
        np.testing.assert_array_equal(out[3 * n:], fp8_bits(-x, tl.float8e5))


# ------------------------------------------------------------------------------- host side

def test_reinterpret_views_an_array_as_another_dtype_of_its_width():
    codes = np.zeros(4, np.uint8)
    wrapped = triton.reinterpret(codes, tl.float8e5)
    assert wrapped.dtype is tl.float8e5 and wrapped.base is codes and wrapped.data_ptr() == codes.ctypes.data
    assert triton.reinterpret(wrapped, tl.uint8) is codes
    with pytest.raises(ValueError, match="widths must match"):
        triton.reinterpret(np.zeros(4, np.float32), tl.float8e5)
    assert triton.reinterpret(wrapped, np.uint8) is codes  # a numpy (or torch) dtype names one too
    assert triton.reinterpret(np.zeros(4, np.int16), np.float16).dtype is tl.float16


def test_a_reinterpreted_array_answers_as_a_tensor_does():
    codes = np.zeros((3, 5), np.uint16)[:, ::2]  # strides (10, 4) bytes: (5, 2) elements
    wrapped = triton.reinterpret(codes, tl.bfloat16)
    assert wrapped.stride() == (5, 2) and wrapped.stride(1) == 2 and wrapped.element_size() == 2
    copy = wrapped.clone()
    assert copy.dtype is tl.bfloat16 and copy.base is not codes and copy.base.shape == (3, 3)
    copy.base[:] = 7
    wrapped.copy_(copy)
    assert (codes == 7).all() and wrapped.cpu().base is codes


def test_fp8_signatures_and_names():
    from minitriton.dtypes import dtype_of_signature
    for dtype, signature, torch_name in [(tl.float8e4nv, "fp8e4nv", "float8_e4m3fn"), (tl.float8e5, "fp8e5", "float8_e5m2"),
                                         (tl.float8e4b8, "fp8e4b8", "float8_e4m3fnuz"),
                                         (tl.float8e5b16, "fp8e5b16", "float8_e5m2fnuz")]:
        assert dtype_of_signature(signature) is dtype and dtype.facts.torch == torch_name
        assert dtype_of_signature("*" + signature) == tl.pointer_type(dtype)


# ------------------------------------------------------------------------------- mistakes

@triton.jit
def convert_kernel(x_ptr, out_ptr, DST: tl.constexpr, ROUNDING: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(out_ptr + tl.arange(0, 16), x.to(DST, fp_downcast_rounding=ROUNDING))


@pytest.mark.parametrize("src, dst, rounding, message", [
    (tl.float8e5, tl.float8e4nv, None, "cannot convert fp8e5 to fp8e4nv"),
    (tl.float8e5, tl.int32, None, "cannot convert fp8e5 to int32"),
    (tl.int8, tl.float8e5, None, "cannot convert int8 to fp8e5"),
    (tl.float64, tl.float8e5, None, "cannot convert fp64 to fp8e5"),
    (tl.bfloat16, tl.float8e4b15, None, "goes through fp16"),
    (tl.float16, tl.float8e5, "rtz", "'rtz' from fp16 to fp8e5 is not supported"),
    (tl.float32, tl.float8e4nv, "rtz", "'rtz' from fp32 to fp8e4nv is not supported"),
])
def test_conversions_triton_has_not_are_errors(src, dst, rounding, message):
    x = triton.reinterpret(np.zeros(16, f"u{src.itemsize}"), src) if src.stored_as_bits else \
        np.zeros(16, src.np)
    out = triton.reinterpret(np.zeros(16, f"u{dst.itemsize}"), dst) if dst.stored_as_bits else \
        np.zeros(16, dst.np)
    with pytest.raises(CompilationError, match=message):
        convert_kernel[(1,)](x, out, DST=dst, ROUNDING=rounding)


def test_fp8e4nv_needs_sm_89():
    x, out = np.zeros(16, np.float32), triton.reinterpret(np.zeros(16, np.uint8), tl.float8e4nv)
    with pytest.raises(CompilationError, match=r"type fp8e4nv not supported in this architecture \(sm_80\)\. "
                       r"The supported fp8 dtypes are \('fp8e4b15', 'fp8e5'\)"):
        convert_kernel.warmup(x, out, DST=tl.float8e4nv, ROUNDING=None, grid=(1,), target="sm_80")
    assert "cvt.rn.satfinite.e4m3x2.f32" in convert_kernel.warmup(
        x, out, DST=tl.float8e4nv, ROUNDING=None, grid=(1,), target="sm_90").asm["ptx"]


@pytest.mark.parametrize("dtype", [tl.float8e4b8, tl.float8e5b16], ids=str)
def test_amd_fp8s_are_on_no_nvidia_gpu(dtype):
    x, out = np.zeros(16, np.float32), triton.reinterpret(np.zeros(16, np.uint8), dtype)
    with pytest.raises(CompilationError, match=f"type {dtype} not supported in this architecture"):
        convert_kernel.warmup(x, out, DST=dtype, ROUNDING=None, grid=(1,), target="sm_90a")


def test_fp8e5_uses_the_hardware_conversion_from_sm_89_and_bit_arithmetic_before():
    x, out = np.zeros(16, np.float32), triton.reinterpret(np.zeros(16, np.uint8), tl.float8e5)
    sm90 = convert_kernel.warmup(x, out, DST=tl.float8e5, ROUNDING=None, grid=(1,), target="sm_90").asm["ptx"]
    sm80 = convert_kernel.warmup(x, out, DST=tl.float8e5, ROUNDING=None, grid=(1,), target="sm_80").asm["ptx"]
    assert "cvt.rn.satfinite.e5m2x2.f32" in sm90 and "satfinite" not in sm80 and "cvt.rz.f16.f32" in sm80


@triton.jit
def sum_kernel(x_ptr, out_ptr):
    tl.store(out_ptr, tl.sum(tl.load(x_ptr + tl.arange(0, 16)), 0))


def test_reducing_fp8_asks_for_a_conversion():
    x = triton.reinterpret(np.zeros(16, np.uint8), tl.float8e5)
    with pytest.raises(CompilationError, match="cannot reduce a tile of fp8e5") as info:
        sum_kernel[(1,)](x, np.zeros(1, np.float32))
    assert "x.to(tl.float32)" in str(info.value)
