"""Coalescing: what the index arithmetic tells about addresses, and how wide each access may be.

Place in the pipeline: after `simplify`, before `layout`. It reads tile IR (no layouts yet) and the
kernel's specialization (`Function.arg_attrs`: which pointer and integer arguments are multiples of
16). `AxisAnalysis` finds the facts of every value (`passes/axis_info.py`: contiguity, divisibility,
constancy), loops to a fixed point. Then it writes `attrs["vector"]` (elements per thread per access)
and `attrs["contig_dim"]` on every load and store of a pointer tile (and float atomic add, which
Hopper vectorizes), and returns, for each such
pointer, the `order` and vector width that the layout pass gives its default blocked layout: lanes
run fastest along the dimension where addresses are consecutive, and each thread holds `vector`
neighbours there, so one warp's access is a few whole 128-byte lines and each thread's part is one
`ld.global.v4.b32`. Chapter: 05-coalesce.
"""
from __future__ import annotations

import functools
from typing import Callable

from .. import ir
from ..exercise_hooks import replaceable
from .axis_info import MAX_ROUNDS, RULES, AxisInfo, _floor_pow2, _gcd, _shape, _unknown

MAX_ACCESS_BYTES = 16  # the widest global access one thread makes: ld.global.v4.b32


# ---------------------------------------------------------------------------------------------------
# The analysis: facts for every value of a function, in program order; loops to a fixed point.
# ---------------------------------------------------------------------------------------------------

class AxisAnalysis:
    """The `AxisInfo` of every value of `fn` (`analysis[value]`)."""

    def __init__(self, fn: ir.Function):
        self.facts: dict[int, AxisInfo] = {}
        arg_attrs = fn.arg_attrs or []
        for i, arg in enumerate(fn.args):
            # The specialization promises `divisibility` (16) for pointers and integers it saw aligned.
            divisibility = arg_attrs[i].get("divisibility", 1) if i < len(arg_attrs) else 1
            self.facts[id(arg)] = AxisInfo((1,), (divisibility,), (1,))
        self.visit_block(fn.body)

    def __getitem__(self, v: ir.Value) -> AxisInfo:
        return self.facts[id(v)]

    def visit_block(self, block: ir.Block) -> None:
        for op in block.ops:
            if op.name == "for":
                self.visit_for(op)
            elif op.name == "while":
                self.visit_while(op)
            elif op.name == "if":
                self.visit_if(op)
            elif len(op.results) == 1:
                rule_ = RULES.get(op.name, _unknown)
                self.facts[id(op.result)] = rule_(op, [self[v] for v in op.operands])
            else:
                for r in op.results:
                    self.facts[id(r)] = AxisInfo.unknown(len(_shape(r)))

    # --8<-- [start:loops]
    def fixed_point(self, args: list[ir.Value], inits: list[AxisInfo],
                    run: Callable[[], list[AxisInfo]]) -> None:
        """Find facts for loop-carried `args` that hold on entry (`inits`) and after every trip
        (`run` analyses the body and returns the facts of what it carries back). Each round only
        weakens the facts, so the rounds end; past MAX_ROUNDS, nothing is assumed."""
        current = list(inits)
        for _ in range(MAX_ROUNDS):
            for arg, info in zip(args, current):
                self.facts[id(arg)] = info
            after = [c.meet(y) for c, y in zip(current, run())]
            if after == current:
                return
            current = after
        for arg in args:
            self.facts[id(arg)] = AxisInfo.unknown(len(_shape(arg)))
        run()

    def visit_for(self, op: ir.Op) -> None:
        loop = ir.loop_parts(op)
        lb, _, step = loop.bounds
        # The induction variable is lb + k*step: a multiple of whatever divides both.
        induction = _gcd(self[lb].divisibility[0], self[step].divisibility[0])
        self.facts[id(loop.induction)] = AxisInfo((1,), (induction,), (1,))

        def run() -> list[AxisInfo]:
            self.visit_block(loop.body)
            return [self[v] for v in loop.yielded]

        self.fixed_point(loop.carried, [self[v] for v in loop.inits], run)
        for result, arg in zip(op.results, loop.carried):
            self.facts[id(result)] = self[arg]
    # --8<-- [end:loops]

    def visit_while(self, op: ir.Op) -> None:
        before, after = op.regions
        condition = before.ops[-1]

        def run() -> list[AxisInfo]:
            self.visit_block(before)
            for arg, v in zip(after.args, condition.operands[1:]):
                self.facts[id(arg)] = self[v]
            self.visit_block(after)
            return [self[v] for v in after.terminator.operands]

        self.fixed_point(before.args, [self[v] for v in op.operands], run)
        for result, v in zip(op.results, condition.operands[1:]):
            self.facts[id(result)] = self[v]

    def visit_if(self, op: ir.Op) -> None:
        for region in op.regions:
            self.visit_block(region)
        yields = [[self[v] for v in region.terminator.operands] for region in op.regions]
        for i, result in enumerate(op.results):
            self.facts[id(result)] = functools.reduce(AxisInfo.meet, [y[i] for y in yields])


class _FactsPrinter(ir.Printer):
    def __init__(self, analysis: AxisAnalysis):
        super().__init__(show_layouts=False)
        self.analysis = analysis

    def op(self, op: ir.Op, depth: int) -> None:
        at = len(self.lines)
        super().op(op, depth)
        known = [self.analysis.facts.get(id(r)) for r in op.results]
        if known and all(known):
            comment = "// " + "; ".join(map(str, known))
            if len(self.lines[at]) + 2 + len(comment) <= self.WIDTH:
                self.lines[at] += "  " + comment
            else:  # on a line of its own under the op, so that the listing stays WIDTH wide
                self.lines.insert(at + 1, "  " * (depth + 2) + comment)


def print_axis_info(fn: ir.Function, analysis: AxisAnalysis | None = None) -> str:
    """The tile IR with each op's result facts as a comment: what the chapter shows."""
    return _FactsPrinter(analysis or AxisAnalysis(fn)).function(fn)


# ---------------------------------------------------------------------------------------------------
# The decision: the contiguous dimension and the vector width of each load and store.
# ---------------------------------------------------------------------------------------------------

# --8<-- [start:decide]
@replaceable("coalesce.vector_width")
def vector_width(contiguity: int, divisibility: int, mask_constancy: int | None, element_bytes: int,
                 numel: int, num_warps: int) -> int:
    """Elements per access along the contiguous dimension: a power of two no larger than the run of
    consecutive addresses; what the alignment of each run's start (in bytes) allows; 16 bytes; the
    run of equal mask bits (one predicate guards a whole vector; None: no mask); and the elements
    each thread holds when the tile is spread over all the threads (a wider vector would leave
    threads idle)."""
    limits = [contiguity, divisibility // element_bytes, MAX_ACCESS_BYTES // element_bytes,
              numel // (32 * num_warps)]
    if mask_constancy is not None:
        limits.append(mask_constancy)
    return _floor_pow2(min(limits))


def vector_atomic(op: ir.Op) -> bool:
    """An atomic add of floats, which Hopper does for up to 16 bytes at a time (`atom.add.v8.bf16`):
    coalesced like a store. Its old values come back a vector at a time too."""
    return op.name == "atomic" and op.attrs["kind"] == "add" and \
        op.operands[1].dtype.name in ("fp16", "bf16", "fp32")


def access_width(op: ir.Op, analysis: AxisAnalysis, num_warps: int) -> tuple[int, int]:
    """(contiguous dimension, elements per access) for a load or store of a pointer tile."""
    ptr = op.operands[0]
    info = analysis[ptr]
    dim = max(reversed(range(len(ptr.shape))), key=lambda d: info.contiguity[d])  # ties: the last
    mask = op.operands[1] if op.name == "load" and len(op.operands) > 1 else \
        op.operands[2] if op.name in ("store", "atomic") and len(op.operands) > 2 else None
    width = vector_width(info.contiguity[dim], info.divisibility[dim],
                         analysis[mask].constancy[dim] if mask is not None else None,
                         ptr.dtype.pointee.itemsize, ptr.type.numel, num_warps)
    return dim, width


def coalesce(fn: ir.Function, num_warps: int) -> dict[int, tuple[tuple[int, ...], int]]:
    """Annotate every load, store and float atomic add of a pointer tile with `vector` and
    `contig_dim`; return id(pointer) -> (order, vector) for the layout pass: the contiguous
    dimension first, then the others from last to first, and the widest vector any access through
    that pointer uses."""
    analysis = AxisAnalysis(fn)
    decisions: dict[int, tuple[tuple[int, ...], int]] = {}
    for op in fn.walk():
        accesses = op.name in ("load", "store") or vector_atomic(op)
        if not accesses or not op.operands[0].type.is_tile:
            continue  # other atomics stay one element per instruction
        ptr = op.operands[0]
        dim, width = access_width(op, analysis, num_warps)
        op.attrs["vector"], op.attrs["contig_dim"] = width, dim
        order = (dim,) + tuple(d for d in reversed(range(len(ptr.shape))) if d != dim)
        order, widest = decisions.get(id(ptr), (order, 1))
        decisions[id(ptr)] = (order, max(widest, width))
    _share_with_loop_values(fn, decisions)
    return decisions
# --8<-- [end:decide]


def _share_with_loop_values(fn: ir.Function, decisions: dict) -> None:
    """A pointer carried by a loop is one tile in four places (initial value, block argument,
    yielded value, loop result) and gets one layout, which the layout pass derives from the
    initial value: give all four the decision any of them has. A hint's result is its operand
    with a promise added: one tile too (tutorial 08 hints its carried pointers in the loop)."""
    groups = []
    for op in fn.walk():
        if op.name == "hint" and op.operands[0].type.is_tile:
            groups.append((op.operands[0], op.result))
        elif op.name == "for":
            loop = ir.loop_parts(op)
            groups += zip(loop.inits, loop.carried, loop.yielded, loop.results)
        elif op.name == "while":
            before, after = op.regions
            groups += zip(op.operands, before.args, after.terminator.operands)
            groups += zip(before.ops[-1].operands[1:], after.args, op.results)
    changed = True
    while changed:  # nested loops pass a decision outwards one level per sweep
        changed = False
        for group in groups:
            known = [decisions[id(v)] for v in group if id(v) in decisions]
            if not known:
                continue
            widest = max(width for _, width in known)
            for v in group:
                order = decisions.get(id(v), known[0])[0]
                if decisions.get(id(v)) != (order, widest):
                    decisions[id(v)] = (order, widest)
                    changed = True
