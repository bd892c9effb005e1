"""Machine-independent clean-up of tile IR: peepholes, common subexpressions, dead code.

The frontend emits straightforwardly (a fresh constant for every literal, a splat for every scalar
meeting a tile); this pass merges what is computed twice (CSE: same op, same operands, same
attributes), rewrites a few patterns (`trans(trans(x)) = x`, a broadcast to the shape it already has),
and drops pure ops nobody reads. It runs before any backend, so the interpreter and the GPU see the
same program. Chapter: 03-tile-ir.
"""
from __future__ import annotations

from .. import ir
from ..exercise_hooks import replaceable

def simplify(fn: ir.Function, fp_fusion: bool = True) -> ir.Function:
    replaced: dict[int, ir.Value] = {}
    _simplify_block(fn.body, {}, replaced)
    _fold_dot_adds(fn)
    if fp_fusion:
        _fuse_multiply_adds(fn)
    _remove_dead(fn)
    ir.verify(fn)
    return fn


# --8<-- [start:cse]
@replaceable("simplify.cse_key")
def _key(op: ir.Op) -> tuple | None:
    """Two ops with equal keys compute the same value; None for an op that is never merged: one
    with effects, one with a region (a reduction's combine function: two regions are not
    compared), one without exactly one result. Floats are keyed by their bits: 0.0 == -0.0 in
    Python, but they are different constants."""
    if op.name in ir.EFFECTS or op.regions or len(op.results) != 1:
        return None
    attrs = tuple(sorted((k, _attr_key(v)) for k, v in op.attrs.items()))
    return (op.name, tuple(id(v) for v in op.operands), attrs, op.result.type)


def _attr_key(value):
    if isinstance(value, float):
        return ("float", value.hex())
    return tuple(value) if isinstance(value, list) else value


# --8<-- [start:peepholes]
def _peephole(op: ir.Op) -> ir.Value | None:
    """A value that can stand for `op`'s result without computing anything new, if there is one."""
    if op.name == "trans":
        src = op.operands[0].owner
        if src is not None and src.name == "trans":
            composed = tuple(src.attrs["perm"][p] for p in op.attrs["perm"])
            if composed == tuple(range(len(composed))):
                return src.operands[0]
        if tuple(op.attrs["perm"]) == tuple(range(len(op.attrs["perm"]))):
            return op.operands[0]
    if op.name in ("broadcast", "reshape") and op.operands[0].type == op.result.type:
        return op.operands[0]
    return None
# --8<-- [end:peepholes]


def _simplify_block(block: ir.Block, seen: dict, replaced: dict[int, ir.Value]) -> None:
    seen = dict(seen)  # values from enclosing blocks are visible; ours do not leak out
    kept = []
    for op in block.ops:
        op.operands = [replaced.get(id(v), v) for v in op.operands]
        unchanged = _unchanged_carried(op, replaced) if op.name == "for" else []
        for region in op.regions:
            _simplify_block(region, seen, replaced)
        if unchanged:
            _drop_carried(op, unchanged)
        key = _key(op)
        if key is not None:
            same = _peephole(op)
            if same is None:
                same = seen.get(key)
            if same is not None:
                replaced[id(op.result)] = same
                continue
            seen[key] = op.result
        kept.append(op)
    block.ops = kept
# --8<-- [end:cse]


# --8<-- [start:dot-add]
def _fold_dot_adds(fn: ir.Function) -> None:
    """`dot(a, b) + d` becomes `dot(a, b, d)`, as Triton combines them: where the dot's accumulator
    is zero and its result is read by that add alone, in the same block. The sum then accumulates
    where `d` is (attention's backward: `dk += tl.dot(ds, q)`), with no second tile of the
    accumulator's size held beside it, and the tensor cores add `d` in as they go."""
    uses: dict[int, int] = {}
    for op in fn.walk():
        for v in op.operands:
            uses[id(v)] = uses.get(id(v), 0) + 1
    for block in [fn.body] + [region for op in fn.walk() for region in op.regions]:
        here, folded = {id(op) for op in block.ops}, set()
        for op in block.ops:
            x, y = op.operands if op.name == "add" else (None, None)
            if x is None or not op.result.type == x.type == y.type:
                continue
            for dot, other in ((x.owner, y), (y.owner, x)):
                if dot is not None and dot.name == "dot" and id(dot) in here and id(dot) not in folded \
                        and uses[id(dot.result)] == 1 and ir.is_zero(dot.operands[2]):
                    op.name, op.attrs, op.loc = "dot", dict(dot.attrs), dot.loc
                    op.operands = [*dot.operands[:2], other]
                    folded.add(id(dot))
                    break
        block.ops = [op for op in block.ops if id(op) not in folded]
# --8<-- [end:dot-add]


# --8<-- [start:fma]
def _fuse_multiply_adds(fn: ir.Function) -> None:
    """`a * b + c` becomes `fma(a, b, c)`: one instruction where there were two, and one rounding.
    Triton lets LLVM and ptxas fuse such pairs wherever they find them (`enable_fp_fusion`, on by
    default). Here the rule is fixed, and applied to the tile IR, so the interpreter computes the
    fused value too and both backends round alike: every fp32 add or subtract one of whose operands
    is an fp32 product made in the same block (the first, if both are). `a * b - c` is
    fma(a, b, -c) and `c - a * b` is fma(-a, b, c); negating is exact. A product read elsewhere too
    is still computed for those readers. A launch with `enable_fp_fusion=False` fuses nothing."""
    for block in [fn.body] + [region for op in fn.walk() for region in op.regions]:
        here, ops = {id(op) for op in block.ops}, []
        for op in block.ops:
            x, y = op.operands if op.name in ("add", "sub") else (None, None)
            if x is not None and op.result.dtype.is_fp32() and x.type == y.type:
                for i, (product, other) in enumerate((op.operands, op.operands[::-1])):
                    mul = product.owner
                    if mul is None or mul.name != "mul" or id(mul) not in here:
                        continue
                    a, b = mul.operands
                    if op.name == "sub":  # i == 0: a*b - other; i == 1: other - a*b
                        negated = ir.Op("neg", [other if i == 0 else a], [], {}, [], op.loc)
                        negated.results = [ir.Value(negated.operands[0].type, negated)]
                        ops.append(negated)
                        other, a = (negated.result, a) if i == 0 else (other, negated.result)
                    op.name, op.operands, op.attrs = "fma", [a, b, other], {}
                    break
            ops.append(op)
        block.ops = ops  # a product no longer read goes with the dead code
# --8<-- [end:fma]


# --8<-- [start:loop-invariants]
def _unchanged_carried(loop: ir.Op, replaced: dict[int, ir.Value]) -> list[int]:
    """The carried values of a `for` loop that every iteration yields as it received them (a
    variable of a tuple, or the base of a block pointer, carried along with the rest): each is its
    initial value throughout. Inside the body and after the loop, the initial value stands for
    it."""
    parts = ir.loop_parts(loop)
    unchanged = [i for i, (arg, value) in enumerate(zip(parts.carried, parts.yielded)) if value is arg]
    for i in unchanged:
        replaced[id(parts.carried[i])] = replaced[id(parts.results[i])] = parts.inits[i]
    return unchanged


def _drop_carried(loop: ir.Op, indices: list[int]) -> None:
    """Remove carried values from a `for` loop: their initial values, block arguments, yields and
    results."""
    gone = set(indices)
    body = loop.regions[0]
    loop.operands = loop.operands[:3] + [v for i, v in enumerate(loop.operands[3:]) if i not in gone]
    loop.results = [r for i, r in enumerate(loop.results) if i not in gone]
    body.args = body.args[:1] + [a for i, a in enumerate(body.args[1:]) if i not in gone]
    body.terminator.operands = [v for i, v in enumerate(body.terminator.operands) if i not in gone]
# --8<-- [end:loop-invariants]


# --8<-- [start:dce]
@replaceable("simplify.remove_dead")
def _remove_dead(fn: ir.Function) -> None:
    """Drop pure ops whose results nobody reads, until nothing changes."""
    while True:
        used = {id(v) for op in fn.walk() for v in op.operands}
        removed = _sweep(fn.body, used)
        if not removed:
            return


def _sweep(block: ir.Block, used: set[int]) -> bool:
    removed = False
    kept = []
    for op in block.ops:
        for region in op.regions:
            removed |= _sweep(region, used)
        if op.name not in ir.EFFECTS and op.results and not any(id(r) in used for r in op.results):
            removed = True
            continue
        kept.append(op)
    block.ops = kept
    return removed
# --8<-- [end:dce]
