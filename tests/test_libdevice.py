"""libdevice: every function of `tl.extra.libdevice`, in the interpreter against an independent
reference and on the GPU; the extern op compiled, linked with NVIDIA's bitcode and assembled; the
dispatch by dtype; `tl.extra.cuda`; and the version Triton code reads.

Each function's inputs, reference and tolerances are in `libdevice_cases.py`. The interpreter's
float twins compute in float64 and round once, so most are held to 1 ulp (fp32) or 2 ulp (fp64) of
the 120-bit reference, the exact ones (rounding modes, conversions, bits, integers) to the bit, and
the special functions to the accuracy their formulas reach (stated per function there).
"""
import math
import struct
import sys
import zlib
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton import ir
from minitriton.codegen import toolkit
from minitriton.codegen.ptx import BackendError
from minitriton.language.extra import cuda, libdevice
from minitriton.libdevice.table import FUNCTIONS, SYMBOLS
from minitriton.libdevice.twins import TWINS

sys.path.insert(0, str(Path(__file__).parent))
from libdevice_cases import CASES, Tol, integer_reference, round_to  # noqa: E402

VARIANTS = [pytest.param(name, variant, id=variant.symbol) for name, variants in FUNCTIONS.items()
            for variant in variants]
N = 200  # random inputs per argument, and the edge cases on top: not a multiple of the block
BLOCK = 64


@triton.jit
def call_kernel(out_ptr, a_ptr, b_ptr, c_ptr, d_ptr, n, NAME: tl.constexpr, ARITY: tl.constexpr,
                BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    fn = getattr(libdevice, NAME)
    a = tl.load(a_ptr + offsets, mask=mask)
    if ARITY == 1:
        result = fn(a)
    elif ARITY == 2:
        result = fn(a, tl.load(b_ptr + offsets, mask=mask))
    elif ARITY == 3:
        result = fn(a, tl.load(b_ptr + offsets, mask=mask), tl.load(c_ptr + offsets, mask=mask))
    else:
        result = fn(a, tl.load(b_ptr + offsets, mask=mask), tl.load(c_ptr + offsets, mask=mask),
                    tl.load(d_ptr + offsets, mask=mask))
    tl.store(out_ptr + offsets, result, mask=mask)


# -- inputs and references -------------------------------------------------------------------------------

def inputs(name: str, variant) -> list[np.ndarray]:
    case = CASES[name]
    rng = np.random.default_rng(zlib.crc32(variant.symbol.encode()))
    arrays = []
    for k, dtype in enumerate(variant.args):
        domain = case.domain[k] if k < len(case.domain) else ("int", None, None)
        np_type = dtype.np
        if dtype.is_int():
            info = np.iinfo(np_type)
            low, high = (domain[1], domain[2]) if domain[0] == "int" else (int(domain[0]), int(domain[1]))
            low = info.min if low is None else max(low, info.min)
            high = info.max if high is None else min(high, info.max)
            values = rng.integers(low, high, N, dtype=np.int64 if high < 2 ** 63 else np.uint64, endpoint=True)
            arrays.append(values.astype(np_type))
        else:
            low, high = domain
            values = rng.uniform(low, high, N)
            if dtype == ir.float32:
                values = np.clip(values, -3.4e38, 3.4e38)
            arrays.append(values.astype(np_type))
    if len(variant.args) == 1 and case.edges:
        edges = np.array(case.edges, np.float64)
        if variant.args[0].is_floating():
            arrays[0] = np.concatenate([arrays[0], edges.astype(variant.args[0].np)])
    return arrays


def _python(x):
    return int(x) if np.asarray(x).dtype.kind in "iu" else float(x)


def _nextafter(x: float, y: float, dtype) -> float:
    """The float of `dtype` next to x toward y, by stepping its bit pattern."""
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x == y:
        return y
    unsigned = f"u{np.dtype(dtype).itemsize}"
    if x == 0:
        return math.copysign(float(np.asarray(1, unsigned).view(dtype)), y - x)
    bits = int(np.asarray(x, dtype).view(unsigned))
    away = (y > x) == (x > 0)
    return float(np.asarray(bits + (1 if away else -1), unsigned).view(dtype))


def reference(name: str, variant, args: list[np.ndarray]) -> list:
    """The exact (or 120-bit) answer for each element, as a Python number."""
    case = CASES[name]
    result = variant.result
    mode = name.rsplit("_", 1)[1] if name.rsplit("_", 1)[-1] in ("rn", "rz", "rd", "ru") else "rn"
    if variant.args[0].is_int() and result.is_int() or name in ("abs",) and result.is_int():
        first = variant.args[0]
        fn = integer_reference(name, first.bits, first.kind == "uint")
    elif name == "nextafter":
        fn = lambda x, y: _nextafter(x, y, result.np)  # noqa: E731
    elif name == "abs":
        fn = abs
    elif name == "fma":
        fn = lambda x, y, z: Fraction(x) * Fraction(y) + Fraction(z)  # noqa: E731
    elif name.startswith("sqrt_"):
        def fn(x):
            root = mp.sqrt(mp.mpf(x))
            man, exp = root.man_exp
            return Fraction(int(man)) * Fraction(2) ** int(exp) * (1 if root >= 0 else -1) if root else Fraction(0)
    else:
        fn = case.reference
    answers = []
    for values in zip(*args):
        values = [_python(v) for v in values]
        if any(isinstance(v, float) and not math.isfinite(v) for v in values) and case.exact and \
                result.is_floating() and not name.startswith(("floor", "ceil", "trunc", "rint", "nearby",
                                                                "round", "saturate", "logb", "abs", "int_as",
                                                                "uint_as", "longlong", "hilo")):
            with np.errstate(all="ignore"):
                answers.append(float("nan"))
            continue
        try:
            answer = fn(*values)
        except (ZeroDivisionError, OverflowError, ValueError):
            answer = math.nan
        if result.is_floating() and isinstance(answer, (Fraction, int)) and not isinstance(answer, bool):
            answer = round_to(answer, result.np, mode)
        answers.append(answer)
    return answers


def tolerance(case, device: str, dtype) -> Tol:
    precision = "fp64" if dtype == ir.float64 else "fp32"
    table = case.gpu if device == "cuda" else case.interpreter
    default = Tol(1) if precision == "fp32" else Tol(2)
    if device == "cuda" and precision not in table:
        default = Tol(8) if precision == "fp32" else Tol(4)
        return case.interpreter.get(precision, default) if case.interpreter.get(precision, default).ulps > 8 else default
    return table.get(precision, default)


def check(name, variant, args, got, device="interpreter"):
    case = CASES[name]
    want = reference(name, variant, args)
    result = variant.result
    bad = []
    for i, (g, w) in enumerate(zip(got, want)):
        if result.is_int():
            ok = int(g) == int(w)
        else:
            g, w = float(g), float(w)
            if math.isnan(w) or math.isnan(g):
                ok = math.isnan(w) and math.isnan(g)
            elif math.isinf(w) or math.isinf(g) or case.exact:
                # the tolerance of a non-exact function also covers a result that just overflowed
                ok = g == w or not case.exact and not math.isinf(g) and abs(w) > 1e300
            else:
                tol = tolerance(case, device, result)
                ulp = float(np.spacing(np.abs(result.np.type(w)))) if result != ir.float64 else float(np.spacing(abs(w)))
                if result == ir.float32 and not np.isfinite(result.np.type(w)):
                    ok = np.isinf(g)
                else:
                    ok = abs(g - w) <= tol.ulps * ulp + tol.atol
        if not ok:
            bad.append((tuple(_python(a[i]) for a in args), g, w))
    assert not bad, (f"{variant.symbol} on the {device}: {len(bad)} of {len(want)} wrong, e.g. "
                     + "; ".join(f"args {a} gave {g!r}, expected {w!r}" for a, g, w in bad[:4]))


def run(device, name, variant, args) -> np.ndarray:
    n = len(args[0])
    out = np.full(n, 0x5A, variant.result.np) if variant.result.is_int() else np.full(n, np.nan, variant.result.np)
    arrays = [device.array(a) for a in args]
    arrays += [arrays[0]] * (4 - len(arrays))
    out_array = device.array(out)
    call_kernel[(triton.cdiv(n, BLOCK),)](out_array, *arrays, n, NAME=name, ARITY=len(args), BLOCK=BLOCK)
    return device.numpy(out_array)


# -- every function, on the interpreter and the GPU ------------------------------------------------------

@pytest.mark.no_ptx  # compiled all at once, below (one kernel per function would take minutes)
@pytest.mark.parametrize("name, variant", VARIANTS)
def test_function_against_reference(device, name, variant):
    args = inputs(name, variant)
    check(name, variant, args, run(device, name, variant, args), device.name)


@pytest.mark.gpu
@pytest.mark.no_ptx
@pytest.mark.parametrize("name, variant", VARIANTS)
def test_gpu_matches_interpreter(monkeypatch, name, variant):
    """The GPU against the interpreter, element by element, within the sum of their tolerances
    (bit for bit where the answer is exact)."""
    from conftest import Device
    args = inputs(name, variant)
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    expected = run(Device("interpreter"), name, variant, args)
    monkeypatch.setenv("MINITRITON_INTERPRET", "0")
    got = run(Device("cuda"), name, variant, args)
    case = CASES[name]
    if case.exact or variant.result.is_int():
        np.testing.assert_array_equal(got, expected, err_msg=variant.symbol)
        return
    gpu, interpreted = tolerance(case, "cuda", variant.result), tolerance(case, "interpreter", variant.result)
    ulp = np.spacing(np.abs(expected.astype(variant.result.np)))
    close = np.abs(got - expected) <= (gpu.ulps + interpreted.ulps) * ulp + gpu.atol + interpreted.atol
    same = (got == expected) | np.isnan(got) & np.isnan(expected)
    assert np.all(close | same), f"{variant.symbol}: GPU and interpreter differ at {np.flatnonzero(~(close | same))[:5]}"


def test_the_table_is_triton_s():
    """197 functions with Triton 3.6's names, argument counts and symbols; every symbol has a twin."""
    assert len(FUNCTIONS) == 197
    assert set(TWINS) == set(SYMBOLS)
    assert [(v.args, v.symbol, v.result) for v in FUNCTIONS["pow"]] == [
        ((ir.float32, ir.int32), "__nv_powif", ir.float32), ((ir.float64, ir.int32), "__nv_powi", ir.float64),
        ((ir.float32, ir.float32), "__nv_powf", ir.float32), ((ir.float64, ir.float64), "__nv_pow", ir.float64)]
    assert [v.symbol for v in FUNCTIONS["jn"]] == ["__nv_jnf", "__nv_jn"]
    assert FUNCTIONS["float2uint_rz"][0].result == ir.int32  # unsigned results come back signed, as in Triton
    assert list(FUNCTIONS["norm4d"][0].args) == [ir.float32] * 4
