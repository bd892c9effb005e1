"""The differential fuzzer (tests/fuzz): a fixed-seed batch of random tile programs, each run in
the interpreter against its reference and (by conftest) compiled for sm_80 and sm_90a through
ptxas; the reference's rules against exact arithmetic; and proof that the batch catches a wrong
interpreter. The GPU batch is `python -m tests.fuzz --gpu` (scripts/gpu_check.sh runs it).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from fuzz import rules
from fuzz.generate import generate
from fuzz.rules import BF16, BOOL, FP16, FP32, FP64, I32, I64, U32, U64, TYPES
from fuzz.run import check
from minitriton import interpreter

CI_SEEDS = range(64)


# The GPU runs these in `python -m tests.fuzz --gpu`, with each value's own error bound.
@pytest.mark.no_gpu_diff
@pytest.mark.targets("sm_80", "sm_90a")
@pytest.mark.parametrize("seed", CI_SEEDS)
def test_random_program(seed, tmp_path):
    program = generate(seed)
    outcomes = check(program, tmp_path, archs=())
    wrong = [o for o in outcomes if o.status != "ok"]
    assert not wrong, "\n".join(f"[{o.stage}] {o.status}: {o.detail}" for o in wrong) + "\n\n" + program.source


def test_the_batch_covers_every_family():
    from fuzz.generate import FAMILIES
    seen = {f for seed in CI_SEEDS for f in generate(seed).families}
    assert seen == set(FAMILIES)


@pytest.mark.no_gpu_diff  # its interpreter is wrong on purpose
def test_a_wrong_interpreter_is_caught(tmp_path, monkeypatch):
    """maximum computing the minimum: the programs that use it must report mismatches."""
    seeds = [s for s in CI_SEEDS if "extremum" in generate(s).families][:6]
    monkeypatch.setitem(interpreter.RULES, "maximum", interpreter.RULES["minimum"])
    outcomes = [o for s in seeds for o in check(generate(s), tmp_path, archs=())]
    assert any(o.status == "mismatch" for o in outcomes)


def test_programs_are_reproducible():
    a, b = generate(123), generate(123)
    assert a.source == b.source
    assert all(np.array_equal(x.data, y.data, equal_nan=True) for x, y in zip(a.inputs, b.inputs))


# ----------------------------------------------------------------------------------- the rules
def exact_round(v: Fraction, t: rules.DType) -> float:
    """The nearest value of float type t to v, ties to even, by exact arithmetic."""
    if v == 0:
        return 0.0
    sign, v = (-1 if v < 0 else 1), abs(v)
    exponent = v.numerator.bit_length() - v.denominator.bit_length()
    while Fraction(2) ** exponent > v:
        exponent -= 1
    while Fraction(2) ** (exponent + 1) <= v:
        exponent += 1
    quantum = Fraction(2) ** max(exponent - (t.significand - 1), {"float16": -24, "bfloat16": -133,
                                                                   "float32": -149, "float64": -1074}[t.name])
    n, rest = divmod(v, quantum)
    if rest > quantum / 2 or (rest == quantum / 2 and n % 2):
        n += 1
    value = float(n * quantum) if n * quantum <= Fraction(rules.max_finite(t)) else float("inf")
    return sign * value


@pytest.mark.parametrize("t", [FP16, BF16, FP32])
def test_round_float_rounds_once_to_nearest_even(t):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(3000) * 10.0 ** rng.integers(-45, 39, 3000)
    got = rules.round_float(x, t).astype(np.float64)
    assert list(got) == [exact_round(Fraction(float(v)), t) for v in x]


@pytest.mark.parametrize("source", [I64, U64, I32])
@pytest.mark.parametrize("t", [BF16, FP16, FP32, FP64])
def test_int_to_float_rounds_once(source, t):
    rng = np.random.default_rng(2)
    low, high = rules.int_range(source)
    x = np.concatenate([rng.integers(low, high, 500, dtype=source.holder, endpoint=True),
                        np.array([low, high, 0, 1, 65519, 65520, 2**24 + 1], dtype=object).astype(source.holder)])
    got = rules.int_to_float(x, source, t).astype(np.float64)
    assert list(got) == [exact_round(Fraction(int(v)), t) for v in x]


def test_fma_rounds_once():
    rng = np.random.default_rng(3)
    a, b, c = (rng.standard_normal(2000).astype(np.float32) * 10.0 ** rng.integers(-3, 3, 2000) for _ in range(3))
    got = rules.fma(a, b, c, FP32).astype(np.float64)
    want = [exact_round(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)), FP32) for x, y, z in zip(a, b, c)]
    assert list(got) == want


def test_integer_division_truncates_and_the_remainder_has_the_dividends_sign():
    a, b = np.array([-7, 7, -7, 7, -128], np.int8), np.array([2, -2, -2, 2, 3], np.int8)
    assert list(rules.c_div(a, b, TYPES["int8"])) == [-3, -3, 3, 3, -42]
    assert list(rules.c_rem(a, b, TYPES["int8"])) == [-1, 1, -1, 1, -2]


def test_shifts_and_umulhi():
    int8 = TYPES["int8"]
    assert list(rules.shift("shr", np.array([-128, 64], np.int8), np.array([1, 7]), int8, arithmetic=True)) == [-64, 0]
    assert list(rules.shift("shr", np.array([-128, 64], np.int8), np.array([1, 7]), int8, arithmetic=False)) == [64, 0]
    assert list(rules.shift("shl", np.array([-1], np.int64), np.array([63]), I64, arithmetic=False)) == [-2**63]
    assert list(rules.umulhi(np.array([-1, 2**31 - 1, -7], np.int32), np.array([-1, 2**31 - 1, 3], np.int32), I32)) == \
        [-2, (2**31 - 1) ** 2 >> 32, 2]  # (2**32 - 1)**2 >> 32 is 2**32 - 2; (2**32 - 7) * 3 >> 32 is 2
    assert int(rules.umulhi(np.array([2**64 - 1], np.uint64), np.array([2**64 - 1], np.uint64), U64)[0]) == 2**64 - 2


@pytest.mark.parametrize("a, a_literal, b, b_literal, div_or_mod, want", [
    (FP16, False, I64, False, False, FP16),   # a half with an integer: half
    (BF16, False, I32, False, False, FP32),   # bf16 with anything but bf16: fp32
    (BF16, False, FP16, False, False, FP16),  # fp16 comes before bf16 in Triton's rules
    (FP16, False, FP32, True, False, FP16),   # a float literal takes a float tensor's type
    (FP16, False, FP32, True, True, FP32),    # ... but / and % of 16-bit floats are fp32
    (TYPES["int8"], False, FP32, True, False, FP32),  # a float literal with integers: fp32
    (TYPES["int8"], False, TYPES["uint8"], False, False, TYPES["uint8"]),
    (TYPES["int16"], False, TYPES["uint8"], False, False, TYPES["int16"]),
    (BOOL, False, I32, True, False, I32),     # int1 is an unsigned integer of one bit
    (BOOL, False, TYPES["uint8"], False, False, TYPES["uint8"]),
])
def test_computation_type(a, a_literal, b, b_literal, div_or_mod, want):
    assert rules.computation_type(a, a_literal, b, b_literal, div_or_mod) == want


def test_literal_types():
    values = [0, -2**31, 2**31, 2**32 - 1, 2**32, -2**31 - 1, -2**63, 2**63, 1.5, 1e-40, 1e39, True]
    assert [rules.literal_type(v) for v in values] == [I32, I32, U32, U32, I64, I64, I64, U64, FP32, FP64, FP64, BOOL]


def test_sums_of_narrow_integers_and_booleans():
    assert [rules.sum_type(t) for t in (TYPES["int8"], TYPES["uint16"], BOOL, I64)] == [I32, U32, U32, I64]
    assert [rules.extremum_type(t) for t in (FP16, BF16, BOOL, TYPES["uint8"])] == [FP32, FP32, I32, I32]


class _HostAsDevice(np.ndarray):
    """A numpy array standing in for driver.DeviceArray (what the GPU stage allocates)."""

    @classmethod
    def from_numpy(cls, a):
        return np.array(a).view(cls)

    def numpy(self):
        return np.asarray(self).copy()


@pytest.mark.no_gpu_diff  # the interpreter stands in for the GPU, and is made wrong there on purpose
def test_the_gpu_stage_compares_with_the_reference_and_the_interpreter(tmp_path, monkeypatch):
    """The GPU stage's own code, with the interpreter standing in for the GPU: every program agrees,
    and a wrong "GPU" is reported against both."""
    from fuzz import run

    interpreted = run.interpreted
    monkeypatch.setattr(run, "interpreted", lambda on: interpreted(True))
    monkeypatch.setattr(run.driver, "DeviceArray", _HostAsDevice)
    seeds = [s for s in CI_SEEDS if "extremum" in generate(s).families][:3]
    for seed in seeds:
        assert [o.status for o in check(generate(seed), tmp_path, archs=(), gpu=True)] == ["ok", "ok"]
    real = run.launch

    def wrong_on_gpu(program, kernel, place, fetch):
        with monkeypatch.context() as m:
            if getattr(place, "__self__", None) is _HostAsDevice:
                m.setitem(interpreter.RULES, "maximum", interpreter.RULES["minimum"])
            return real(program, kernel, place, fetch)

    monkeypatch.setattr(run, "launch", wrong_on_gpu)
    details = [o.detail for s in seeds for o in check(generate(s), tmp_path, archs=(), gpu=True) if o.stage == "gpu"]
    assert any("gpu vs interpreter" in d for d in details)
