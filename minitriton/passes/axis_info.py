"""Axis info: what the index arithmetic tells about the values it computes, op by op.

The facts coalescing decides by (`passes/coalesce.py`), as Triton's AxisInfo keeps them. For every
value and every dimension d they are three powers of two:

- contiguity[d]: along d the tile splits into runs of this many elements, each run consecutive
  integers (for pointers: consecutive elements in memory);
- divisibility[d]: the first element of every such run is a multiple of this (pointers: in bytes);
- constancy[d]: along d the tile splits into runs of this many equal elements.

`arange(0, 1024)` is (1024, 2**30, 1): one run, starting at 0, which everything divides; a splat is
(1, d, shape); `pid * 1024 + arange(0, 1024)` is (1024, 1024, 1). A scalar is a tile of shape [1].
Each op has a rule in `RULES` from its operands' facts to its result's; an op without one knows
nothing, (1, 1, 1). Loops iterate their carried values to a fixed point. Like Triton's, the rules
for `div` and `rem` (and for casts, which keep the facts of a widened integer) assume that index
arithmetic does not go negative or wrap. Chapter: 05-coalesce.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from .. import ir

MAX_DIVISOR = 2 ** 30  # the divisibility of 0 (every power of two divides it), and the cap on all
MAX_ROUNDS = 16  # fixed-point rounds for a loop's carried values before assuming nothing of them


def highest_pow2_divisor(n: int) -> int:
    return MAX_DIVISOR if n == 0 else min(n & -n, MAX_DIVISOR)


def _floor_pow2(n: int) -> int:
    return 1 << (max(n, 1).bit_length() - 1)


def _cap(n: int) -> int:
    return min(n, MAX_DIVISOR)


def _gcd(*values: int) -> int:
    return math.gcd(*values)


def _c_div(x: int, y: int) -> int:
    """Integer division as C (and the GPU) does it: toward zero."""
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def _fmt(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


# --8<-- [start:axisinfo]
@dataclass(frozen=True)
class AxisInfo:
    """What is known of one value, per dimension (see the module docstring); `constant` is the value
    of every element when it is known at compile time."""

    contiguity: tuple[int, ...]
    divisibility: tuple[int, ...]
    constancy: tuple[int, ...]
    constant: int | None = None

    def __str__(self) -> str:
        text = (f"contiguity={_fmt(self.contiguity)}, divisibility={_fmt(self.divisibility)}, "
                f"constancy={_fmt(self.constancy)}")
        return text if self.constant is None else f"{text}, constant={self.constant}"

    @property
    def rank(self) -> int:
        return len(self.contiguity)

    @staticmethod
    def unknown(rank: int) -> AxisInfo:
        return AxisInfo((1,) * rank, (1,) * rank, (1,) * rank)

    @staticmethod
    def known(value: int, shape: tuple[int, ...]) -> AxisInfo:
        """A tile every element of which is `value`."""
        return AxisInfo((1,) * len(shape), (highest_pow2_divisor(value),) * len(shape),
                        tuple(shape), value)

    def divisibility_at(self, d: int, runs: int, scale: int = 1) -> int:
        """What divides the elements at every multiple of `runs` along `d`: the run starts when the
        runs are no longer than ours; inside one of our runs, a start plus a multiple of `runs`
        (times `scale`, the element size, for a pointer)."""
        if self.contiguity[d] <= runs:
            return self.divisibility[d]
        return _gcd(self.divisibility[d], _cap(runs * scale))

    def meet(self, other: AxisInfo) -> AxisInfo:
        """The facts true of both, for a value that may be either (a loop's carried value, an if's
        result)."""
        contiguity = tuple(map(_gcd, self.contiguity, other.contiguity))
        divisibility = tuple(_gcd(self.divisibility_at(d, c), other.divisibility_at(d, c))
                             for d, c in enumerate(contiguity))
        constancy = tuple(map(_gcd, self.constancy, other.constancy))
        constant = self.constant if self.constant == other.constant else None
        return AxisInfo(contiguity, divisibility, constancy, constant)
# --8<-- [end:axisinfo]


def _shape(v: ir.Value) -> tuple[int, ...]:
    return v.shape or (1,)


def _is_index(v: ir.Value) -> bool:
    """Integers and pointers: the values whose contiguity and divisibility mean something."""
    return v.dtype.is_int() or v.dtype.is_ptr()


# ---------------------------------------------------------------------------------------------------
# The rules: for each op, its result's facts from its operands' facts (`ins`, in operand order).
# ---------------------------------------------------------------------------------------------------

Rule = Callable[[ir.Op, list[AxisInfo]], AxisInfo]
RULES: dict[str, Rule] = {}


def rule(*names: str) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        for name in names:
            RULES[name] = fn
        return fn
    return register


def _unknown(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    return AxisInfo.unknown(len(_shape(op.results[0])))


@rule(*sorted(ir.MATH), "fma", "umulhi", "not", "extern_elementwise")
def _elementwise(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    """Any function of equal elements gives equal elements; nothing else survives."""
    rank = len(_shape(op.results[0]))
    constancy = tuple(_gcd(*(i.constancy[d] for i in ins)) for d in range(rank))
    return AxisInfo((1,) * rank, (1,) * rank, constancy)


def _folded(op: ir.Op, ins: list[AxisInfo], fold: Callable[..., int]) -> AxisInfo | None:
    """The facts of a result computed at compile time, when every operand is a known constant."""
    if any(i.constant is None for i in ins):
        return None
    try:
        return AxisInfo.known(int(fold(*(i.constant for i in ins))), _shape(op.results[0]))
    except ZeroDivisionError:
        return None


@rule("constant")
def _constant(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    if op.attrs["dtype"].is_floating():
        return AxisInfo.unknown(1)
    return AxisInfo.known(int(op.attrs["value"]), (1,))


@rule("program_id", "num_programs")
def _program_id(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    return AxisInfo.unknown(1)


@rule("arange")
def _arange(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    start, end = op.attrs["start"], op.attrs["end"]
    return AxisInfo((end - start,), (highest_pow2_divisor(start),), (1,))


# --8<-- [start:shapes]
@rule("splat")
def _splat(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    (x,), shape = ins, _shape(op.results[0])
    return AxisInfo((1,) * len(shape), (x.divisibility[0],) * len(shape), shape, x.constant)


@rule("broadcast")
def _broadcast(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    """A dimension of size one, repeated, is constant along itself."""
    (x,), before, after = ins, op.operands[0].shape, op.results[0].shape
    stretched = [b == 1 and a > 1 for b, a in zip(before, after)]
    return AxisInfo(tuple(1 if s else c for s, c in zip(stretched, x.contiguity)), x.divisibility,
                    tuple(a if s else c for s, a, c in zip(stretched, after, x.constancy)), x.constant)


@rule("expand_dims")
def _expand_dims(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    """Along the new dimension (size one) every element starts a run: it is divisible by what
    divides every element, which is known only along a dimension of runs of one."""
    (x,), axis = ins, op.attrs["axis"]
    every = max((dv for c, dv in zip(x.contiguity, x.divisibility) if c == 1), default=1)
    insert = lambda t, v: t[:axis] + (v,) + t[axis:]
    return AxisInfo(insert(x.contiguity, 1), insert(x.divisibility, every), insert(x.constancy, 1),
                    x.constant)
# --8<-- [end:shapes]


@rule("trans")
def _trans(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    (x,), perm = ins, op.attrs["perm"]
    pick = lambda t: tuple(t[p] for p in perm)
    return AxisInfo(pick(x.contiguity), pick(x.divisibility), pick(x.constancy), x.constant)


@rule("convert_layout")
def _convert_layout(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    """A layout conversion moves elements between threads; the tile, and so its facts, stay."""
    return ins[0]


@rule("reshape")
def _reshape(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    (x,), shape = ins, _shape(op.results[0])
    return AxisInfo.known(x.constant, shape) if x.constant is not None else AxisInfo.unknown(len(shape))


# --8<-- [start:add]
@rule("add", "sub", "addptr")
def _add(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    """A run of consecutive values plus a run of equal ones stays consecutive (minus, only on the
    left); the sum of multiples of d is a multiple of d. `addptr` scales the offset by the element
    size: contiguity counts elements, divisibility counts bytes."""
    result = op.results[0]
    if not _is_index(result):
        return _elementwise(op, ins)
    a, b = ins
    scale = result.dtype.pointee.itemsize if op.name == "addptr" else 1
    fold = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "addptr": lambda x, y: x + y * scale}
    folded = _folded(op, ins, fold[op.name])
    if folded:
        return folded
    contiguity, divisibility, constancy = [], [], []
    for d in range(a.rank):
        if op.name == "sub":
            runs = _gcd(a.contiguity[d], b.constancy[d])
        else:
            runs = max(_gcd(a.constancy[d], b.contiguity[d]), _gcd(a.contiguity[d], b.constancy[d]))
        contiguity.append(runs)
        divisibility.append(_gcd(a.divisibility_at(d, runs, scale),
                                 _cap(b.divisibility_at(d, runs) * scale)))
        constancy.append(_gcd(a.constancy[d], b.constancy[d]))
    return AxisInfo(tuple(contiguity), tuple(divisibility), tuple(constancy))
# --8<-- [end:add]


@rule("mul")
def _mul(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    """Times a constant the divisibilities multiply; only times 1 do runs stay consecutive."""
    if not _is_index(op.results[0]):
        return _elementwise(op, ins)
    a, b = ins
    folded = _folded(op, ins, lambda x, y: x * y)
    if folded:
        return folded
    contiguity, divisibility = [], []
    for d in range(a.rank):
        contiguity.append(max(a.contiguity[d] if b.constant == 1 else 1, b.contiguity[d] if a.constant == 1 else 1))
        # Inside a run only its first element is known to be a multiple: count on every element
        # only where runs are one long (or the other factor is 1 and the runs survive).
        da = a.divisibility[d] if a.contiguity[d] == 1 or b.constant == 1 else 1
        db = b.divisibility[d] if b.contiguity[d] == 1 or a.constant == 1 else 1
        divisibility.append(_cap(da * db))
    constancy = tuple(map(_gcd, a.constancy, b.constancy))
    return AxisInfo(tuple(contiguity), tuple(divisibility), constancy)


@rule("div")
def _div(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    """x // c is constant over aligned runs of consecutive x as long as c and the run start allow."""
    if not _is_index(op.results[0]):
        return _elementwise(op, ins)
    a, b = ins
    folded = _folded(op, ins, _c_div)
    if folded:
        return folded
    shape = _shape(op.results[0])
    contiguity, divisibility, constancy = [], [], []
    for d in range(a.rank):
        contiguity.append(a.contiguity[d] if b.constant == 1 else 1)
        runs = _gcd(a.constancy[d], b.constancy[d])
        if a.contiguity[d] == shape[d] and b.constancy[d] == shape[d]:
            runs = max(runs, _gcd(a.contiguity[d], a.divisibility[d], b.divisibility[d]))
        constancy.append(runs)
        if a.constant == 0 or b.constant == 1:
            divisibility.append(a.divisibility[d])
        elif b.constant is not None and b.constant != 0 and abs(b.constant) == _floor_pow2(abs(b.constant)) \
                and a.contiguity[d] == 1:
            divisibility.append(max(1, a.divisibility[d] // abs(b.constant)))
        else:
            divisibility.append(1)
    return AxisInfo(tuple(contiguity), tuple(divisibility), tuple(constancy))


@rule("rem")
def _rem(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    """Consecutive x % c stays consecutive within runs that c and the run start both divide."""
    if not _is_index(op.results[0]):
        return _elementwise(op, ins)
    a, b = ins
    folded = _folded(op, ins, lambda x, y: x - y * _c_div(x, y))
    if folded:
        return folded
    shape = _shape(op.results[0])
    contiguity, divisibility, constancy = [], [], []
    for d in range(a.rank):
        runs = 1
        if a.contiguity[d] == shape[d] and b.constancy[d] == shape[d]:
            runs = _gcd(a.contiguity[d], a.divisibility[d], b.divisibility[d])
        contiguity.append(runs)
        # x - q*c: a multiple of whatever divides both x and c there.
        divisibility.append(_gcd(a.divisibility_at(d, runs), b.divisibility_at(d, runs)))
        constancy.append(shape[d] if b.constant == 1 else _gcd(a.constancy[d], b.constancy[d]))
    return AxisInfo(tuple(contiguity), tuple(divisibility), tuple(constancy))


@rule("and", "or", "xor")
def _bitwise(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    """Low zero bits in both stay zero; `and` keeps the low zero bits of either."""
    a, b = ins
    fold = {"and": lambda x, y: x & y, "or": lambda x, y: x | y, "xor": lambda x, y: x ^ y}[op.name]
    folded = _folded(op, ins, fold)
    if folded:
        return folded
    combine = max if op.name == "and" else _gcd
    divisibility = tuple(combine(a.divisibility_at(d, 1), b.divisibility_at(d, 1)) for d in range(a.rank))
    return AxisInfo((1,) * a.rank, divisibility, tuple(map(_gcd, a.constancy, b.constancy)))


@rule("shl", "shr")
def _shift(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    a, b = ins
    fold = {"shl": lambda x, y: x << y, "shr": lambda x, y: x >> y}[op.name]
    folded = _folded(op, ins, fold) if b.constant is not None and 0 <= b.constant < 64 else None
    if folded:
        return folded
    shift = b.constant if b.constant is not None and 0 <= b.constant < 64 else None
    contiguity, divisibility = [], []
    for d in range(a.rank):
        runs = a.contiguity[d] if shift == 0 else 1
        contiguity.append(runs)
        known = a.divisibility_at(d, runs)
        if op.name == "shl":
            divisibility.append(_cap(known << (shift or 0)))
        else:
            divisibility.append(1 if shift is None else max(1, known >> shift))
    return AxisInfo(tuple(contiguity), tuple(divisibility), tuple(map(_gcd, a.constancy, b.constancy)))


@rule("minimum", "maximum")
def _min_max(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    if not _is_index(op.results[0]):
        return _elementwise(op, ins)
    a, b = ins
    folded = _folded(op, ins, min if op.name == "minimum" else max)
    if folded:
        return folded
    contiguity = tuple(map(_gcd, a.contiguity, b.contiguity))
    divisibility = tuple(_gcd(a.divisibility_at(d, c), b.divisibility_at(d, c)) for d, c in enumerate(contiguity))
    return AxisInfo(contiguity, divisibility, tuple(map(_gcd, a.constancy, b.constancy)))


@rule("neg", "abs")
def _sign(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    """-x and |x| have the factors of x."""
    if not _is_index(op.results[0]):
        return _elementwise(op, ins)
    (a,) = ins
    folded = _folded(op, ins, (lambda x: -x) if op.name == "neg" else abs)
    if folded:
        return folded
    return AxisInfo((1,) * a.rank, tuple(a.divisibility_at(d, 1) for d in range(a.rank)), a.constancy)


# --8<-- [start:cmp]
@rule("cmp")
def _cmp(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    """`x < c` with x consecutive and c a multiple of g is constant over aligned runs of g: a run
    [k*g, k*g + g) lies wholly below c or wholly at or above it. This is what lets a masked
    `offsets < n` load be vectorized when n is a multiple of 16."""
    a, b = ins
    pred = op.attrs["predicate"]
    compare = {"lt": lambda x, y: x < y, "le": lambda x, y: x <= y, "gt": lambda x, y: x > y,
               "ge": lambda x, y: x >= y, "eq": lambda x, y: x == y, "ne": lambda x, y: x != y}[pred]
    folded = _folded(op, ins, compare)
    if folded:
        return folded
    shape = _shape(op.results[0])
    constancy = []
    for d in range(a.rank):
        runs = _gcd(a.constancy[d], b.constancy[d])
        if pred in ("gt", "le") and a.constancy[d] == shape[d]:  # c > x, c <= x
            runs = max(runs, _gcd(b.contiguity[d], a.divisibility[d], b.divisibility[d]))
        elif pred in ("lt", "ge") and b.constancy[d] == shape[d]:  # x < c, x >= c
            runs = max(runs, _gcd(a.contiguity[d], a.divisibility[d], b.divisibility[d]))
        constancy.append(runs)
    return AxisInfo((1,) * a.rank, (1,) * a.rank, tuple(constancy))
# --8<-- [end:cmp]


@rule("select")
def _select(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    cond, a, b = ins
    if cond.constant is not None:
        return a if cond.constant else b
    contiguity = tuple(map(_gcd, a.contiguity, b.contiguity, cond.constancy))
    divisibility = tuple(_gcd(a.divisibility_at(d, c), b.divisibility_at(d, c)) for d, c in enumerate(contiguity))
    constancy = tuple(map(_gcd, a.constancy, b.constancy, cond.constancy))
    return AxisInfo(contiguity, divisibility, constancy, a.constant if a.constant == b.constant else None)


@rule("cast", "bitcast")
def _cast(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    """Widening an integer keeps its values, so its facts; anything else keeps only constancy."""
    source, target = op.operands[0].dtype, op.results[0].dtype
    if op.name == "cast" and source.is_int() and target.is_int() and target.bits >= source.bits:
        return ins[0]
    return _elementwise(op, ins)


# --8<-- [start:hint]
@rule("hint")
def _hint(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    """tl.multiple_of / max_contiguous / max_constancy: the kernel's author promises these facts."""
    (x,), shape = ins, _shape(op.results[0])
    facts = {"contiguity": x.contiguity, "divisibility": x.divisibility, "constancy": x.constancy}
    for name in facts.keys() & op.attrs.keys():
        values = tuple(op.attrs[name])
        values = values * len(shape) if len(values) == 1 else values
        # Runs of 48 are also aligned runs of 16, and a multiple of 48 is one of 16: keep the power of two.
        limit = shape if name != "divisibility" else (MAX_DIVISOR,) * len(shape)
        facts[name] = tuple(min(highest_pow2_divisor(v), cap) for v, cap in zip(values, limit))
    return AxisInfo(**facts, constant=x.constant)
# --8<-- [end:hint]


@rule("load")
def _load(op: ir.Op, ins: list[AxisInfo]) -> AxisInfo:
    """Nothing is known of loaded values, except that one address (and one mask) reads one value
    (a descriptor's block offsets, after them, say nothing of the elements)."""
    return _elementwise(op, ins[:3])

