"""libdevice: every function of `tl.extra.libdevice`, in the interpreter against an independent
reference and on the GPU; the extern op compiled, linked with NVIDIA's bitcode and assembled; the
dispatch by dtype; `tl.extra.cuda`; and the version Triton code reads.

Each function's inputs, reference and tolerances are in `libdevice_cases.py`. The interpreter's
float twins compute in float64 and round once, so most are held to 1 ulp (fp32) or 2 ulp (fp64) of
the 120-bit reference, the exact ones (rounding modes, conversions, bits, integers) to the bit, and
the special functions to the accuracy their formulas reach (stated per function there).
"""
import math
import re
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
    """The interpreter's (1 ulp for fp32 and 2 for fp64 unless the case says otherwise); on the GPU,
    the case's GPU tolerance, else 8 ulp (libdevice documents most functions within 1 to 6), or the
    interpreter's where that is looser."""
    precision = "fp64" if dtype == ir.float64 else "fp32"
    interpreted = case.interpreter.get(precision, Tol(1) if precision == "fp32" else Tol(2))
    if device != "cuda":
        return interpreted
    return case.gpu.get(precision, Tol(max(8, interpreted.ulps), interpreted.atol))


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


# -- codegen: every variant compiled, linked and assembled ------------------------------------------------

SLOTS = (ir.int32, ir.uint32, ir.int64, ir.uint64, ir.float32, ir.float64, ir.float16, ir.bfloat16)
# every variant once, and the 16-bit floats through the f32 version
CALLS = tuple((name, tuple(SLOTS.index(a) for a in v.args), SLOTS.index(v.result))
              for name, variants in FUNCTIONS.items() for v in variants) + (
    ("sin", (6,), 6), ("tanh", (7,), 7), ("jn", (0, 6), 6), ("isnan", (7,), 0), ("pow", (6, 6), 6))


@triton.jit
def every_call(p0, p1, p2, p3, p4, p5, p6, CALLS: tl.constexpr):
    offsets = tl.arange(0, 32)
    pointers = (p0, p1, p2, p3, p4, p5, p6, p4)  # bf16 results are stored as fp32
    tiles = (tl.load(p0 + offsets), tl.load(p1 + offsets), tl.load(p2 + offsets), tl.load(p3 + offsets),
             tl.load(p4 + offsets), tl.load(p5 + offsets), tl.load(p6 + offsets),
             tl.load(p4 + offsets).to(tl.bfloat16))
    for i in tl.static_range(len(CALLS)):
        name, slots, out = CALLS[i]
        fn = getattr(libdevice, name)
        if len(slots) == 1:
            result = fn(tiles[slots[0]])
        elif len(slots) == 2:
            result = fn(tiles[slots[0]], tiles[slots[1]])
        elif len(slots) == 3:
            result = fn(tiles[slots[0]], tiles[slots[1]], tiles[slots[2]])
        else:
            result = fn(tiles[slots[0]], tiles[slots[1]], tiles[slots[2]], tiles[slots[3]])
        tl.store(pointers[out] + i * 32 + offsets, result.to(pointers[out].dtype.element_ty))
    cuda.gdc_wait()
    tl.store(p0 + offsets, cuda.smid() + cuda.num_threads())
    tl.store(p2 + offsets, cuda.globaltimer())
    cuda.gdc_launch_dependents()


def unused_functions(ptx: str) -> set[str]:
    """The device functions a PTX module defines and never calls (libdevice keeps a few helpers,
    such as fp64 trigonometry's slow argument reduction, out of line)."""
    defined = set(re.findall(r"^(?:\.visible\s+|\.weak\s+)?\.func\s+(?:\([^)]*\)\s*)?(\w+)", ptx, re.M))
    called = set(re.findall(r"\bcall(?:\.uni)?\s+(?:\([^)]*\),\s*)?(\w+)", ptx))
    return defined - called


def _arrays():
    return [np.zeros(32 * len(CALLS), d.np) for d in SLOTS[:7]]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_every_variant_compiles_links_and_assembles(arch):
    """One kernel calls every symbol: LLVM links libdevice, inlines what is called, and ptxas (where
    it is installed) assembles it. No call, and no libdevice function, is left in the PTX."""
    if toolkit.libdevice_path() is None:
        pytest.skip("no libdevice on this machine")
    arrays = _arrays()
    compiled = every_call.warmup(*arrays, CALLS=CALLS, grid=(1,), target=arch)
    ptx = compiled.asm["ptx"]
    assert all(f"@\"{v.symbol}\"" in compiled.asm["llir"] or f"@{v.symbol}(" in compiled.asm["llir"]
               for variants in FUNCTIONS.values() for v in variants)
    assert "__nv_" not in ptx and "__nvvm_reflect" not in ptx
    assert unused_functions(ptx) == set()
    assert "%smid" in ptx and "%globaltimer" in ptx
    hopper = arch == "sm_90a"  # griddepcontrol exists from sm_90 on; before it, nothing is emitted
    assert ("griddepcontrol.wait" in ptx) == hopper and ("griddepcontrol.launch_dependents" in ptx) == hopper
    if toolkit.ptxas_path():
        assert compiled.asm["cubin"]


def test_unused_functions_finds_an_uncalled_helper():
    ptx = ".func (.param .b32 r) helper(\n.param .b32 a)\n{\n}\n.visible .entry k()\n{\nret;\n}\n"
    assert unused_functions(ptx) == {"helper"}
    assert unused_functions(ptx + "call.uni (retval0), helper, (param0);\n") == set()


@triton.jit
def sine_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(y_ptr + offsets, libdevice.sin(tl.load(x_ptr + offsets)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_only_what_the_kernel_calls_is_linked(dtype):
    """libdevice has about 500 functions; a kernel calling one keeps that one (inlined) and the
    helpers it calls, nothing else."""
    if toolkit.libdevice_path() is None:
        pytest.skip("no libdevice on this machine")
    x = np.zeros(64, dtype)
    ptx = sine_kernel.warmup(x, x, BLOCK=64, grid=(1,), target="sm_80").asm["ptx"]
    assert unused_functions(ptx) == set() and "__nv_" not in ptx
    functions = re.findall(r"^\.func", ptx, re.M)
    assert len(functions) == 0 if dtype == np.float32 else 1 <= len(functions) <= 2  # fp64's slow reduction
    assert len(ptx) < 40_000, f"{len(ptx)} characters of PTX for one sine"


def test_a_missing_libdevice_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(toolkit, "libdevice_path", lambda: None)
    x = np.zeros(64, np.float32)
    with pytest.raises(BackendError) as error:
        sine_kernel.warmup(x, x, BLOCK=64, grid=(1,), target="sm_90a")
    message = str(error.value)
    assert error.value.stage == "libdevice"
    assert "__nv_sinf" in message and "libdevice.10.bc was not found" in message and "nvidia-nvvm" in message


def test_extern_libs_names_the_libdevice_a_launch_links(tmp_path, monkeypatch):
    """Triton's launch option `extern_libs={"libdevice": path}` (tutorial 07) links that file
    instead of NVIDIA's; the disk cache keys it by content; a wrong path is a launch error."""
    found = toolkit.libdevice_path()
    if found is None:
        pytest.skip("no libdevice on this machine")
    monkeypatch.setattr(toolkit, "libdevice_path", lambda: None)  # only the launch's file can be linked
    mine = tmp_path / "libdevice.10.bc"
    mine.write_bytes(open(found, "rb").read())
    x = np.zeros(64, np.float32)
    compiled = sine_kernel.warmup(x, x, BLOCK=64, grid=(1,), target="sm_90a", extern_libs={"libdevice": mine})
    assert "__nv_" not in compiled.asm["ptx"]
    assert compiled.metadata.extern_libs == (("libdevice", str(mine)),)
    with pytest.raises(triton.LaunchError, match=r"extern_libs\['libdevice'\] is '/nowhere/libdevice.10.bc', which is not a file"):
        sine_kernel.warmup(x, x, BLOCK=64, grid=(1,), target="sm_90a", extern_libs={"libdevice": "/nowhere/libdevice.10.bc"})
    with pytest.raises(triton.LaunchError, match="extern_libs must map a library's name to its bitcode file"):
        sine_kernel.warmup(x, x, BLOCK=64, grid=(1,), target="sm_90a", extern_libs=["libdevice.10.bc"])
    garbage = tmp_path / "garbage.bc"
    garbage.write_bytes(b"not bitcode")
    with pytest.raises(BackendError, match="garbage.bc is not LLVM bitcode"):
        sine_kernel.warmup(x, x, BLOCK=64, grid=(1,), target="sm_90a", extern_libs={"libdevice": garbage})


def test_extern_libs_runs_in_the_interpreter(interpret):
    """The interpreter computes libdevice's functions itself: the option is accepted and has no effect."""
    if toolkit.libdevice_path() is None:
        pytest.skip("no libdevice on this machine")
    x = np.linspace(-3, 3, 64).astype(np.float32)
    y = np.full_like(x, np.nan)
    sine_kernel[(1,)](x, y, BLOCK=64, extern_libs={"libdevice": toolkit.libdevice_path()})
    np.testing.assert_allclose(y, np.sin(x), rtol=1e-6, atol=1e-6)


def test_a_kernel_without_libdevice_does_not_need_it(monkeypatch):
    monkeypatch.setattr(toolkit, "libdevice_path", lambda: None)

    @triton.jit
    def plain(x_ptr, BLOCK: tl.constexpr):
        offsets = tl.arange(0, BLOCK)
        tl.store(x_ptr + offsets, tl.load(x_ptr + offsets) + 1)
    assert "ld.global" in plain.warmup(np.zeros(64, np.float32), BLOCK=64, grid=(1,), target="sm_80").asm["ptx"]


def test_the_wheels_stand_in_for_a_toolkit(monkeypatch):
    """Without a system CUDA, ptxas and libdevice come from the nvidia-cuda-nvcc and nvidia-nvvm wheels."""
    libdevice_wheel = toolkit.from_wheels("nvvm/libdevice/libdevice.10.bc")
    ptxas_wheel = toolkit.from_wheels("bin/ptxas")
    if libdevice_wheel is None or ptxas_wheel is None:
        pytest.skip("NVIDIA's wheels are not installed here")
    monkeypatch.setattr(toolkit, "_cuda_roots", lambda: [])
    monkeypatch.setenv("PATH", "/nonexistent")
    assert toolkit.libdevice_path() == libdevice_wheel
    assert toolkit.ptxas_path() == ptxas_wheel
    assert "cuda_13.0" in toolkit.ptxas_version(ptxas_wheel)

    @triton.jit
    def tangent(x_ptr, BLOCK: tl.constexpr):
        offsets = tl.arange(0, BLOCK)
        tl.store(x_ptr + offsets, libdevice.tan(tl.load(x_ptr + offsets)))
    compiled = tangent.warmup(np.zeros(64, np.float32), BLOCK=64, grid=(1,), target="sm_90a")
    assert compiled.asm["cubin"][:4] == b"\x7fELF" and "__nv_" not in compiled.asm["ptx"]


def test_the_cache_key_names_ptxas_and_libdevice(monkeypatch):
    from minitriton import cache
    parts = {}
    real = cache.make_key

    def make_key(**given):
        parts.update(given)
        return real(**given)
    monkeypatch.setattr(cache, "make_key", make_key)

    @triton.jit
    def cosine(x_ptr, BLOCK: tl.constexpr):
        offsets = tl.arange(0, BLOCK)
        tl.store(x_ptr + offsets, libdevice.cos(tl.load(x_ptr + offsets)))
    cosine.warmup(np.zeros(64, np.float32), BLOCK=64, grid=(1,), target="sm_80")
    assert parts["toolkit"] == toolkit.versions()
    assert set(parts["toolkit"]) == {"ptxas", "libdevice"}
    if toolkit.ptxas_path():
        assert "cuda_" in parts["toolkit"]["ptxas"]


# -- the language: dispatch by dtype ------------------------------------------------------------------------

@pytest.fixture
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


@triton.jit
def unary(x_ptr, y_ptr, FN: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(y_ptr + offsets, FN(tl.load(x_ptr + offsets)))


@triton.jit
def pow_kernel(x_ptr, y_ptr, EXPONENT: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(y_ptr + offsets, libdevice.pow(tl.load(x_ptr + offsets), EXPONENT))


def symbols(kernel, *args, **kwargs) -> list[str]:
    return re.findall(r"symbol = \"?(__\w+)", kernel.warmup(*args, grid=(1,), **kwargs).asm["ttir"]) or \
        re.findall(r"(__nv_\w+)", kernel.warmup(*args, grid=(1,), **kwargs).asm["ttir"])


def test_python_numbers_pick_the_version_as_in_triton(interpret):
    x = np.linspace(0.5, 2, 64).astype(np.float32)
    y = np.empty_like(x)
    assert symbols(pow_kernel, x, y, EXPONENT=2, BLOCK=64) == ["__nv_powif"]  # an int is an int32
    # (another BLOCK: the JIT's cache does not tell the constexprs 2 and 2.0 apart)
    assert symbols(pow_kernel, x[:32], y[:32], EXPONENT=2.0, BLOCK=32) == ["__nv_powf"]
    pow_kernel[(1,)](x, y, EXPONENT=3, BLOCK=64)
    np.testing.assert_allclose(y, x.astype(np.float64) ** 3, rtol=1e-7)
    x64 = x.astype(np.float64)
    # a Python float next to fp64 takes fp64 (Triton would refuse (fp64, fp32))
    assert symbols(pow_kernel, x64, x64.copy(), EXPONENT=0.5, BLOCK=64) == ["__nv_pow"]


@pytest.mark.parametrize("dtype", [np.float16, "bf16"])
def test_16_bit_floats_use_the_f32_version(interpret, dtype):
    """fp16 and bf16 are widened to fp32, the f32 function runs, the result is rounded back."""
    @triton.jit
    def sine_of_16_bit(x_ptr, y_ptr, BF16: tl.constexpr, BLOCK: tl.constexpr):
        offsets = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offsets)
        if BF16:
            x = x.to(tl.bfloat16)
        y = libdevice.sin(x)
        tl.static_assert(y.dtype == x.dtype)
        tl.store(y_ptr + offsets, y.to(tl.float32))
    x = np.linspace(-4, 4, 64).astype(np.float32 if dtype == "bf16" else dtype)
    y = np.empty(64, np.float32)
    sine_of_16_bit[(1,)](x, y, BF16=dtype == "bf16", BLOCK=64)
    from minitriton.floats import round_to_bf16
    wide = x.astype(np.float32)
    if dtype == "bf16":
        wide = round_to_bf16(wide)
        want = round_to_bf16(np.sin(wide.astype(np.float64)).astype(np.float32))
    else:
        want = np.sin(wide.astype(np.float64)).astype(np.float32).astype(np.float16).astype(np.float32)
    np.testing.assert_array_equal(y, want)
    ttir = sine_of_16_bit.warmup(x, y, BF16=dtype == "bf16", BLOCK=64, grid=(1,)).asm["ttir"]
    assert "__nv_sinf" in ttir


def test_a_type_libdevice_does_not_take_is_a_clear_error(interpret):
    x = np.zeros(64, np.int32)
    with pytest.raises(triton.CompilationError) as error:
        unary[(1,)](x, x, FN=libdevice.sin, BLOCK=64)
    message = str(error.value)
    assert "libdevice.sin has no version for arguments (int32)" in message
    assert "input arg type does not match" in message and ".to(tl.float32)" in message


def test_arguments_broadcast(interpret):
    @triton.jit
    def table(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
        offsets = tl.arange(0, BLOCK)
        x, y = tl.load(x_ptr + offsets), tl.load(y_ptr + offsets)
        tl.store(out_ptr + offsets[:, None] * BLOCK + offsets[None, :], libdevice.atan2(x[:, None], y[None, :]))
    x, y = np.linspace(-1, 1, 16).astype(np.float32), np.linspace(-2, 3, 16).astype(np.float32)
    out = np.empty(256, np.float32)
    table[(1,)](x, y, out, BLOCK=16)
    np.testing.assert_allclose(out.reshape(16, 16), np.arctan2(x[:, None], y[None, :]), rtol=2e-7)


def test_triton_2_names_and_homes(interpret):
    """`tl.math.tanh` (Triton 2.x's home for libdevice), `tl.extra.cuda.libdevice`, and
    `tl.extern_elementwise` with Triton's table of versions all reach the same function."""
    from minitriton.language.extra.cuda import libdevice as cuda_libdevice
    assert tl.math.tanh is not libdevice.tanh or tl.math.tanh is tl.tanh  # 3.6's tl.math.tanh is tl's own
    assert tl.math.erfinv is libdevice.erfinv and cuda_libdevice.j0 is libdevice.j0
    assert tl.extra.libdevice.cyl_bessel_i0 is libdevice.cyl_bessel_i0

    @triton.jit
    def direct(x_ptr, y_ptr, BLOCK: tl.constexpr):
        offsets = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offsets)
        y = tl.extern_elementwise("libdevice", "/any/libdevice.10.bc", [x], {(tl.float32,): ("__nv_expf", tl.float32),
                                                         (tl.float64,): ("__nv_exp", tl.float64)}, is_pure=True)
        z = tl.core.extern_elementwise("", "", [x, 2.0], {("fp32", "fp32"): ("__nv_powf", "fp32")}, True)
        tl.store(y_ptr + offsets, y + z)
    x = np.linspace(-1, 1, 32).astype(np.float32)
    y = np.empty_like(x)
    direct[(1,)](x, y, BLOCK=32)
    np.testing.assert_allclose(y, np.exp(x.astype(np.float64)) + x.astype(np.float64) ** 2, rtol=3e-7)


@pytest.mark.no_ptx  # its library does not exist: only the interpreter's error is wanted here
def test_a_function_the_interpreter_does_not_know(interpret):
    @triton.jit
    def mine(x_ptr, BLOCK: tl.constexpr):
        offsets = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offsets)
        tl.store(x_ptr + offsets, tl.extern_elementwise("mine", "/somewhere/mine.bc", [x],
                                                        {(tl.float32,): ("my_function", tl.float32)}, True))
    x = np.zeros(16, np.float32)
    assert 'libpath = "/somewhere/mine.bc"' in mine.warmup(x, BLOCK=16, grid=(1,)).asm["ttir"] or \
        "/somewhere/mine.bc" in mine.warmup(x, BLOCK=16, grid=(1,)).asm["ttir"]
    with pytest.raises(triton.InterpreterError, match="cannot run my_function"):
        mine[(1,)](x, BLOCK=16)
    with pytest.raises(BackendError, match="mine.bc .tl.extern_elementwise's lib_path, or extern_libs., which does not exist"):
        mine.warmup(x, BLOCK=16, grid=(1,), target="sm_80")


# -- tl.extra.cuda ---------------------------------------------------------------------------------------

@triton.jit
def registers(out_ptr, time_ptr, BLOCK: tl.constexpr):
    cuda.gdc_wait()
    offsets = tl.arange(0, cuda.num_threads())
    start = cuda.globaltimer()
    tl.store(out_ptr + offsets, cuda.smid() + offsets * 0 + cuda.num_warps() * 1000)
    end = cuda.globaltimer()
    tl.store(time_ptr, start)
    tl.store(time_ptr + 1, end)
    cuda.gdc_launch_dependents()


@pytest.mark.no_gpu_diff  # the multiprocessor's number and the clock differ from the interpreter's
@pytest.mark.parametrize("num_warps", [1, 4])
def test_special_registers_and_launch_constants(device, num_warps):
    """smid is 0 in the interpreter (a multiprocessor number on the GPU); num_warps and num_threads
    are the launch's, as constants; globaltimer does not go backwards."""
    out = device.array(np.full(32 * num_warps, -1, np.int32))
    times = device.array(np.zeros(2, np.int64))
    registers[(1,)](out, times, BLOCK=32, num_warps=num_warps)
    out, times = device.numpy(out), device.numpy(times)
    smid = out - num_warps * 1000
    assert np.all(smid == smid[0]) and (smid[0] == 0 if device.name == "interpreter" else 0 <= smid[0] < 1024)
    assert 0 < times[0] <= times[1]


def _fp8e4b15_value(code: int) -> float:
    sign = -1.0 if code & 0x80 else 1.0
    exponent, mantissa = (code >> 3) & 0xF, code & 0x7
    if exponent == 0:
        return sign * mantissa / 8 * 2.0 ** -14
    return sign * (1 + mantissa / 8) * 2.0 ** (exponent - 15)


@triton.jit
def fp8_round_trip(codes_ptr, decoded_ptr, encoded_ptr, from32_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    codes = tl.load(codes_ptr + offsets)
    half = cuda.convert_custom_float8_sm80(codes, tl.float16)
    tl.store(decoded_ptr + offsets, half.to(tl.float32))
    tl.store(encoded_ptr + offsets, cuda.convert_custom_float8_sm70(half, tl.uint8))
    tl.store(from32_ptr + offsets, cuda.convert_custom_float8_sm80(half.to(tl.float32) * 1.0001, tl.uint8))


def test_convert_custom_float8(device):
    """fp8e4b15 (bias 15, no inf or NaN) as uint8 bits: every code decodes to its value, and encodes
    back to itself, except 0x7f and 0xff (1.875), which encoding clamps to 1.75 as Triton's PTX does."""
    codes = np.arange(256, dtype=np.uint8)
    decoded, encoded, from32 = np.zeros(256, np.float32), np.zeros(256, np.uint8), np.zeros(256, np.uint8)
    arrays = [device.array(a) for a in (codes, decoded, encoded, from32)]
    fp8_round_trip[(1,)](*arrays, BLOCK=256)
    decoded, encoded, from32 = (device.numpy(a) for a in arrays[1:])
    np.testing.assert_array_equal(decoded, [_fp8e4b15_value(c) for c in range(256)])
    clamped = np.where((codes & 0x7F) == 0x7F, codes - 1, codes)
    np.testing.assert_array_equal(encoded, clamped)
    np.testing.assert_array_equal(from32, clamped)  # 1.0001 x rounds back down (toward zero, then half up)


# -- the version Triton code reads -------------------------------------------------------------------------

def test_version_checks_written_for_triton_find_3_6():
    from importlib import metadata
    from packaging.version import Version
    assert triton.__version__ >= "3" and triton.__version__ >= "3.0.0" and not triton.__version__ >= "3.7"
    assert Version(triton.__version__) >= Version("3.0") and Version(triton.__version__).release == (3, 6, 0)
    assert tuple(int(p) for p in triton.__version__.split(".")[:2]) == (3, 6)
    assert triton.__version__.split("+")[0] == "3.6.0"
    try:  # the package's own version, where it is installed (a checkout run from source is not)
        assert triton.version.VERSION == metadata.version("minitriton")
    except metadata.PackageNotFoundError:
        pass
    assert triton.version.VERSION in triton.__version__


@triton.jit
def square_roots_kernel(x_ptr, fast_ptr, exact_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(fast_ptr + offs, tl.sqrt(x), mask=offs < n)
    tl.store(exact_ptr + offs, tl.sqrt_rn(x), mask=offs < n)


def test_sqrt_is_the_fast_instruction_and_sqrt_rn_the_ieee_one():
    """As in Triton: `tl.sqrt` is sqrt.approx (two MUFU instructions), `tl.sqrt_rn` libdevice's
    correctly rounded one; fp64 has only the exact instruction."""
    x = np.zeros(256, np.float32)
    ptx = square_roots_kernel.warmup(x, x, x, 256, BLOCK=256, grid=(1,), target="sm_90a").asm["ptx"]
    assert "sqrt.approx.f32" in ptx and "sqrt.rn.f32" in ptx
    x = np.zeros(256, np.float64)
    ptx = square_roots_kernel.warmup(x, x, x, 256, BLOCK=256, grid=(1,), target="sm_90a").asm["ptx"]
    assert "sqrt.rn.f64" in ptx and "sqrt.approx" not in ptx


def test_sqrt_is_within_an_ulp_and_sqrt_rn_exact(device):
    """Over normal and subnormal inputs, zero and infinity: sqrt.approx.f32 is within 2**-22 of
    the exact root (the interpreter computes it exactly), sqrt_rn is it."""
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(0, 1e4, 700), 2.0 ** rng.uniform(-149, 127, 290),
                        [0.0, np.inf, 1e-45, 1.0]]).astype(np.float32)
    n = len(x)
    fast, exact = (device.array(np.full(n, np.nan, np.float32)) for _ in range(2))
    square_roots_kernel[(triton.cdiv(n, 256),)](device.array(x), fast, exact, n, BLOCK=256)
    want = np.sqrt(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(device.numpy(exact), want)
    got = device.numpy(fast).astype(np.float64)
    finite = np.isfinite(want)
    assert np.all(np.abs(got[finite] - want[finite]) <= 2.0 ** -22 * want[finite])
    assert np.array_equal(got[~finite], want[~finite])
