"""Random tile programs: the Python source of a @triton.jit kernel and, beside it, its reference.

`generate(seed)` builds one program, statement by statement. Each statement is an op family of
`FAMILIES` applied to values made before it (its operands picked at random, recent ones more
often), typed by `rules` and computed in numpy as it is written, so the reference never runs
minitriton. After each statement the kernel asserts the dtype it must have
(`tl.static_assert(v.dtype == ...)`), so a typing rule that differs from Triton's stops the
compile at that line. The kernel loads its inputs with masks (and `other=`, mostly) in the frame's
views, and stores a few values at the end: into frame-shaped arrays through a view's offsets and
mask, or whole tiles (padding lanes included) into one row per program.

Undefined behaviour is kept out by construction: divisors go through `tl.where` away from 0 (and
-1, so INT_MIN / -1 cannot happen), shift amounts are masked below the width, a float converted to
an integer is first clamped into its range (`tl.maximum` then ignores a NaN), and a float is
bitcast to an integer only straight from a load (a computed NaN's payload is not Triton's to
define). Approximate results (math functions, fp32 `/`, float sums in an unspecified order) carry
an error bound, and only flow into ops whose result depends continuously on them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import rules
from .frame import Frame, View, make_frame
from . import ops, tiles
from .rules import BF16, BOOL, FP16, FP32, I32, DType, Refused
from .values import Literal, Operand, Value, broadcast, defined_of, expand, holder_of


@dataclass
class Input:
    name: str
    dtype: DType
    data: np.ndarray  # holder values, the frame's shape


@dataclass
class Output:
    name: str
    dtype: DType
    expected: np.ndarray   # holder values; host shape
    err: np.ndarray | None  # float64 bound, or None: exact
    check: np.ndarray      # positions whose value the rules define
    written: np.ndarray    # positions the kernel writes; the others keep the poison
    what: str              # the statement that stores it


@dataclass
class Program:
    seed: int
    source: str
    inputs: list[Input]
    outputs: list[Output]
    scalars: dict[str, int | float]
    constexprs: dict[str, int]
    grid: tuple[int, ...]
    num_warps: int
    families: list[str] = field(default_factory=list)


POISON_BYTE = 0x5A


def poison(t: DType, shape) -> np.ndarray:
    """An output's contents before the launch: bytes 0x5A (0x02 for bool), as storage."""
    storage = np.full(int(np.prod(shape)) * t.storage.itemsize, 2 if t.kind == "bool" else POISON_BYTE, np.uint8)
    return storage.view(t.storage).reshape(shape)


class Generator:
    def __init__(self, seed: int):
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.frame: Frame = make_frame(self.rng)
        self.P = self.frame.programs
        self.valid = self.frame.valid()
        self.lines: list[str] = []
        self.helpers: dict[str, str] = {}
        self.inputs: list[Input] = []
        self.outputs: list[Output] = []
        self.pool: list[Value] = []
        self.views: set[str] = set()
        self.scalars: dict[str, int | float] = {}
        self.families: list[str] = []
        self.count = 0

    # --- choices ------------------------------------------------------------------------------------
    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def choice(self, items):
        items = list(items)
        return items[int(self.rng.integers(len(items)))]

    def pick(self, want=lambda v: True) -> Value | None:
        """A value made before, recent ones more often."""
        candidates = [v for v in self.pool if want(v)]
        if not candidates:
            return None
        weights = np.arange(1, len(candidates) + 1, dtype=np.float64) ** 1.5
        return candidates[int(self.rng.choice(len(candidates), p=weights / weights.sum()))]

    def literal_for(self, t: DType) -> Literal:
        """A Python number to write next to a value of type `t` (now and then a float next to an
        integer, which makes the result an fp32)."""
        if t.is_float or self.chance(0.15):
            if self.chance(0.3):
                return Literal(int(self.choice([0, 1, 2, 3, -1, -4, 100])))
            return Literal(float(self.choice([0.5, -1.0, 2.0, 3.0, -0.25, 0.1, 7.5, 1000.0, -0.001, 0.0])))
        low, high = rules.int_range(t)
        values = [0, 1, 2, 3, 5, 7, 100, high // 3, high] + ([-1, -3, -100, low // 5, low] if t.signed else [])
        return Literal(int(min(max(self.choice(values), low), high)))

    def partner(self, a: Value, literal: float = 0.25, want=lambda v: True) -> Operand:
        """A second operand for `a`: a literal, or a value whose shape broadcasts with a's."""
        if self.chance(literal):
            return self.literal_for(a.dtype)
        same = self.pick(lambda v: v.shape == a.shape and want(v)) if self.chance(0.75) else None
        return same or self.pick(lambda v: broadcast([a.shape, v.shape]) is not None and want(v)) or a

    # --- the kernel's statements --------------------------------------------------------------------
    def emit(self, line: str) -> None:
        self.lines.append(line)

    def value(self, expr: str, t: DType, shape, ref, err=None, operands=(), defined=None, leaf=False) -> Value:
        """A new kernel variable `expr`, with its reference (`defined`: by default, where all the
        operands are)."""
        if defined is None:
            defined = defined_of(list(operands), tuple(shape), self.P)
        return self.values(expr, [(t, shape, ref, err)], defined, leaf)[0]

    def values(self, expr: str, results: list[tuple], defined, leaf=False) -> list[Value]:
        """New kernel variables from one statement (two for `tl.max(x, 0, return_indices=True)`),
        each with its dtype asserted in the kernel and its reference: (dtype, shape, ref, err)."""
        names = [f"v{self.count + k}" for k in range(len(results))]
        self.count += len(results)
        self.emit(f"{', '.join(names)} = {expr}")
        made = []
        for name, (t, shape, ref, err) in zip(names, results):
            self.emit(f"tl.static_assert({name}.dtype == tl.{t.name}, \"{name}: {t.name}\")")
            full = (self.P,) + tuple(shape)
            if err is not None:  # NaN (inf - inf) means no bound at all
                err = np.broadcast_to(np.nan_to_num(np.asarray(err, np.float64), nan=np.inf, posinf=np.inf), full).copy()
            made.append(Value(name, t, tuple(shape), np.broadcast_to(np.asarray(ref).astype(t.holder), full).copy(),
                              err, defined, leaf))
        self.pool.extend(made)
        return made

    def view(self, name: str) -> View:
        view = self.frame.views[name]
        if name not in self.views:
            self.views.add(name)
            self.lines.extend(self.frame.view_lines(view))
        return view

    # --- inputs and loads ---------------------------------------------------------------------------
    def new_input(self, t: DType) -> Input:
        data = random_data(self.rng, t, self.frame.size)
        inp = Input(f"x{len(self.inputs)}", t, data)
        self.inputs.append(inp)
        return inp

    def load(self, inp: Input, view: View, cond: Value | None = None) -> Value:
        """tl.load in a view, with its mask (and `cond`), and mostly an `other=`."""
        self.view(view.name)
        other = self.other_for(inp.dtype) if self.chance(0.85) else None
        tiles = self.frame.tiles(inp.data, np.zeros((), inp.dtype.holder))
        data = self.frame.gather(tiles, view)
        mask = self.frame.gather(self.valid, view)
        mask_src = f"mask{view.name}"
        if cond is not None:
            mask = mask & cond.ref
            mask_src += f" & {cond.name}"
        if other is None:
            ref, defined, tail = data, mask, ""
        else:
            fill = holder_of(other, inp.dtype, self.P, weak=False)
            ref, defined, tail = np.where(mask, data, expand(fill, len(view.shape))), None, f", other={other.name}"
        if cond is not None and cond.defined is not None:
            defined = cond.defined if defined is None else defined & cond.defined
        return self.value(f"tl.load({inp.name}_ptr + offs{view.name}, mask={mask_src}{tail})", inp.dtype, view.shape,
                          ref, defined=defined, leaf=True)

    def other_for(self, t: DType) -> Literal:
        if t.kind == "bool":
            return Literal(self.chance(0.5))
        if t.is_float:
            return Literal(float(self.choice([0.0, 1.0, -2.5, 0.5, 3.0, -1.0])))
        low, high = rules.int_range(t)
        return Literal(int(min(max(self.choice([0, 1, -1, 3, 7, -100]), low), high)))

    # --- outputs ------------------------------------------------------------------------------------
    def store(self, v: Value) -> None:
        """Store `v`: through a view of its shape (frame-shaped output), or as whole tiles."""
        views = [w for w in self.frame.views.values() if w.shape == v.shape]
        name = f"o{len(self.outputs)}"
        if views and self.chance(0.7):
            view = self.view(self.choice(views).name)
            mask_src, keep = f"mask{view.name}", self.frame.gather(self.valid, view)
            cond = self.pick(lambda c: c.dtype == BOOL and c.shape == v.shape and c.exact) if self.chance(0.2) else None
            if cond is not None:
                mask_src, keep = mask_src + f" & {cond.name}", keep & cond.ref
            line = f"tl.store({name}_ptr + offs{view.name}, {v.name}, mask={mask_src})"
            expected = self.scatter(rules.from_storage(poison(v.dtype, self.frame.size), v.dtype), view, v.ref, keep)
            written = self.frame.untile(self.scatter_mask(view, keep))
            check = self.frame.untile(self.scatter_mask(view, keep & v.defined_lanes()
                                                        & (cond.defined_lanes() if cond else True)))
            err = None if v.err is None else self.scatter(np.zeros(self.frame.size), view, v.err, keep)
        else:
            numel = math.prod(v.shape)
            index = {0: "", 1: f" + tl.arange(0, {v.shape[0]})" if v.shape else ""}.get(len(v.shape)) \
                if len(v.shape) < 2 else f" + tl.arange(0, {v.shape[0]})[:, None] * {v.shape[1]}" \
                                         f" + tl.arange(0, {v.shape[1]})[None, :]"
            line = f"tl.store({name}_ptr + program * {numel}{index}, {v.name})"
            expected, err = v.ref.reshape(-1), None if v.err is None else v.err.reshape(-1)
            written, check = np.ones(expected.shape, bool), v.defined_lanes().reshape(-1)
        self.emit(line)
        self.outputs.append(Output(name, v.dtype, expected, err, check, written, line))

    def scatter(self, full: np.ndarray, view: View, tile: np.ndarray, keep: np.ndarray) -> np.ndarray:
        tiles = self.frame.tiles(np.asarray(full), np.zeros((), np.asarray(full).dtype))
        positions = view.positions()
        tiles[:, positions] = np.where(keep, tile.astype(tiles.dtype), tiles[:, positions])
        return self.frame.untile(tiles)

    def scatter_mask(self, view: View, keep: np.ndarray) -> np.ndarray:
        tiles = np.zeros((self.P, self.frame.numel), bool)
        tiles[:, view.positions()] = keep
        return tiles

    # --- the whole program --------------------------------------------------------------------------
    def build(self) -> Program:
        rng = self.rng
        types = list(rules.TYPES.values())
        weights = np.array([0.5 if t.kind == "bool" else 1.5 if t in (FP16, BF16, FP32) else 1.0 for t in types])
        for _ in range(int(rng.integers(1, 4))):
            inp = self.new_input(types[int(rng.choice(len(types), p=weights / weights.sum()))])
            self.load(inp, self.frame.views[""])
        self.leaves()
        for _ in range(int(rng.integers(4, 14))):
            for _attempt in range(20):
                family = self.choice_weighted()
                try:
                    if FAMILIES[family][1](self):
                        self.families.append(family)
                        break
                except Refused:
                    continue
        candidates = [v for v in self.pool[::-1] if v.defined is None or v.defined.any()]
        stored = []
        for v in candidates[:int(rng.integers(1, 4))]:
            if v not in stored:
                stored.append(v)
                self.store(v)
        return self.program()

    def choice_weighted(self) -> str:
        names = list(FAMILIES)
        weights = np.array([FAMILIES[n][0] for n in names], np.float64)
        return names[int(self.rng.choice(len(names), p=weights / weights.sum()))]

    def leaves(self) -> None:
        """Values every program has: its id, an index tile, and maybe scalar arguments."""
        if self.chance(0.3):
            self.value("program", I32, (), np.arange(self.P, dtype=np.int32))
        if self.chance(0.2):
            self.scalars["s0"] = int(self.choice([-7, 3, 42, 1000, -100000, 2**31 - 5]))
            self.value("s0", I32, (), np.full(self.P, self.scalars["s0"], np.int32))
        if self.chance(0.2):
            self.scalars["f0"] = float(self.choice([0.75, -3.5, 1e-3, 250.0]))
            self.value("f0", FP32, (), np.full(self.P, self.scalars["f0"], np.float32))
        if self.chance(0.3):
            view = self.frame.views[""]
            self.view("")
            self.value(f"e{view.name}", I32, view.shape, np.broadcast_to(view.positions(), (self.P,) + view.shape))

    def program(self) -> Program:
        f = self.frame
        params = [f"{i.name}_ptr" for i in self.inputs] + [f"{o.name}_ptr" for o in self.outputs] \
            + f.size_args() + list(self.scalars) + [f"{k}: tl.constexpr" for k in f.block_args()]
        body = f.preamble() + self.lines
        helpers = "".join(f"\n\n@triton.jit\ndef {name}(a, b):\n    return {expr}\n" for name, expr in self.helpers.items())
        source = (f'"""A random tile program: python -m tests.fuzz --seed {self.seed}."""\n'
                  "import minitriton as triton\nimport minitriton.language as tl\n" + helpers +
                  "\n\n@triton.jit\ndef kernel(" + ", ".join(params) + "):\n" +
                  "".join(f"    {line}\n" for line in body))
        scalars = dict(zip(f.size_args(), f.size)) | self.scalars
        num_warps = int(self.choice([1, 2, 4, 4, 4, 8]))
        return Program(self.seed, source, self.inputs, self.outputs, scalars, f.block_args(), f.grid, num_warps,
                       self.families)


def random_data(rng: np.random.Generator, t: DType, shape) -> np.ndarray:
    """Inputs: mostly small numbers, some of the whole range, some edge values."""
    n = int(np.prod(shape))
    kind = rng.random(n)
    if t.kind == "bool":
        return (rng.random(n) < 0.5).reshape(shape)
    if t.is_int:
        low, high = rules.int_range(t)
        small = rng.integers(max(low, -20), 21, n)
        wide = rng.integers(low, high, n, dtype=np.int64 if t.signed or t.bits < 64 else np.uint64, endpoint=True)
        edges = np.array([low, high, 0, 1, high // 2 + 1] + ([-1] if t.signed else []), dtype=object)
        edge = np.array([int(e) for e in rng.choice(edges, n)], dtype=object)
        data = np.where(kind < 0.6, small.astype(object), np.where(kind < 0.9, wide.astype(object), edge))
        return np.array([int(x) for x in data], dtype=object).astype(t.holder).reshape(shape)
    scale = np.where(rng.random(n) < 0.2, 100.0, 3.0)
    data = rng.standard_normal(n) * scale
    data = np.where(kind < 0.25, np.round(data), data)  # ties for argmax, exact integers
    specials = rng.choice(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-7, 65504.0]), n)
    data = np.where(kind > 0.97, specials, data)
    return rules.round_float(data, t).reshape(shape)


# Each family: how often it is tried, and its function (ops.py, tiles.py).
FAMILIES = {
    "arith": (4, ops.arith), "divide": (1.5, ops.divide), "extremum": (1.5, ops.extremum),
    "compare": (2, ops.compare), "bitwise": (2, ops.bitwise), "where": (2, ops.where), "unary": (2, ops.unary),
    "cast": (3, ops.cast), "load": (1, ops.load), "reduce": (2.5, tiles.reduce), "scan": (1.5, tiles.scan),
    "shape": (2, tiles.shape), "dot": (1, tiles.dot),
}


def generate(seed: int) -> Program:
    with np.errstate(all="ignore"):  # the reference overflows, divides by zero... as the kernel does
        return Generator(seed).build()
