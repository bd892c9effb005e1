"""Hierarchical tiling: give every tile value a layout (which thread holds which element).

Reads simplified tile IR and `num_warps`; sets `Value.layout` on every tile value and inserts
`convert_layout` ops where a consumer needs its operand laid out differently from how the producer
made it. Two kinds of values:

- *anchored* values have a layout forced by how they are made: a load takes the layout of its
  pointers' tile (the default blocked layout, vectorized by `coalesce`), a reduction the slice of
  its operand's layout, a dot on tensor cores the MMA layout, a loop argument that of its value;
- *flexible* values (splats, aranges and the index arithmetic built from them) cost almost nothing
  to compute, so instead of converting them the pass recomputes ("rematerializes") them in
  whatever layout their consumer wants.

Converting an anchored value costs a trip through shared memory; the pass only does it where two
anchored layouts meet. Chapter: 04-layouts.
"""
from __future__ import annotations

from .. import ir
from ..layouts import (BlockedLayout, DistributedLayout, MmaLayout, PermutedLayout, SharedOperandLayout, SliceLayout,
                       default_blocked, merged_pairs, with_pairs, without_pairs)
from .tensor_cores import mma_layouts, swap_tf32_operands, upcast_fp8_operands

# --8<-- [start:flexible-ops]
# A value is flexible when the op that makes it is cheap (`ir.CHEAP`: splats, aranges, index
# arithmetic) and so are those of its operands: it can be recomputed in any layout at the cost of
# the ops themselves. Flexible chains longer than this are anchored instead (recomputing them
# would cost more than a convert). An expand_dims or a broadcast is always flexible: where its
# result must change layout, converting its operand, which has fewer elements, is never dearer
# (a row of 64 weights broadcast over a 64 x 1024 tile moves 64 elements, not 65536).
MAX_REMAT_OPS = 24
# --8<-- [end:flexible-ops]


# --8<-- [start:blocked-for]
def blocked_for(shape: tuple[int, ...], num_warps: int, vector: int = 1,
                order: tuple[int, ...] | None = None) -> BlockedLayout:
    """The default layout of a tile: lanes fastest along `order[0]` (row-major, the last dimension,
    unless coalescing found addresses consecutive along another), with `vector` consecutive
    elements per thread along that dimension when coalescing allows it."""
    order = tuple(order) if order is not None else tuple(reversed(range(len(shape))))
    spt = [1] * len(shape)
    if shape:
        spt[order[0]] = max(1, min(vector, shape[order[0]]))
    return default_blocked(shape, num_warps, order=order, size_per_thread=spt)
# --8<-- [end:blocked-for]


def fma_layout(shape: tuple[int, ...], num_warps: int) -> BlockedLayout:
    """The accumulator of a dot on CUDA cores: 4x4 blocks per thread, so that each step of k reads
    4 + 4 operand values (two 16-byte loads) for 16 FMAs, where one element each would read 2 per
    FMA. Lanes form a 4 x 8 grid and warps split the tile so each warp's share stays square: a
    warp then reads 4 runs of rows and 8 of columns per k, where a row of 32 lanes would read 1
    and 32, and the shared-memory reads of a step fall from 12 transactions to 6."""
    m, n = shape
    if m * n < 16 * 32 * num_warps or m < 4 or n < 4:
        return default_blocked(shape, num_warps)
    lanes_n = min(8, n // 4)
    lanes = (32 // lanes_n, lanes_n)
    if m < 4 * lanes[0]:
        return default_blocked(shape, num_warps, size_per_thread=(4, 4))
    warps = [1, 1]
    while warps[0] * warps[1] < num_warps:  # double along the longer side of each warp's share
        rows, cols = m // (4 * lanes[0] * warps[0]), n // (4 * lanes[1] * warps[1])
        warps[0 if rows >= cols and rows > 1 or cols <= 1 else 1] *= 2
    return BlockedLayout((4, 4), lanes, tuple(warps), (1, 0))


def expand_layout(layout: DistributedLayout, axis: int) -> DistributedLayout:
    """The layout of `expand_dims(x, axis)` for x laid out in `layout`: a slice along `axis` gives
    back its parent; a blocked layout gains a dimension of one element, one lane, one warp."""
    if isinstance(layout, SliceLayout) and layout.dim == axis:
        return layout.parent
    if isinstance(layout, BlockedLayout):
        insert = lambda t, v: t[:axis] + (v,) + t[axis:]
        order = tuple(d + (d >= axis) for d in layout.order) + (axis,)
        return BlockedLayout(insert(layout.size_per_thread, 1), insert(layout.threads_per_warp, 1),
                             insert(layout.warps_per_cta, 1), order)
    return None


def permute_layout(layout: DistributedLayout, perm: tuple[int, ...]) -> DistributedLayout | None:
    """The layout of `trans(x, perm)` that keeps every element in the thread that had it: a
    blocked layout with its fields permuted, else a `PermutedLayout` (a transposed one back to
    its parent)."""
    perm = tuple(perm)
    if isinstance(layout, PermutedLayout):
        composed = tuple(layout.perm[p] for p in perm)
        return layout.parent if composed == tuple(range(len(perm))) else PermutedLayout(layout.parent, composed)
    if not isinstance(layout, BlockedLayout):
        return PermutedLayout(layout, perm) if isinstance(layout, DistributedLayout) else None
    pick = lambda t: tuple(t[p] for p in perm)
    inverse = {p: i for i, p in enumerate(perm)}
    return BlockedLayout(pick(layout.size_per_thread), pick(layout.threads_per_warp),
                         pick(layout.warps_per_cta), tuple(inverse[d] for d in layout.order))


# --8<-- [start:preferred]
def preferred(layouts: list[DistributedLayout]) -> DistributedLayout:
    """The layout an elementwise op runs in when its operands arrive in several: a tensor-core
    accumulator's (or a row or column of one: its slice), else the first operand's. An
    accumulator is the dearest value to convert (every element through shared memory), and what
    is computed from it usually goes back to it (`acc = acc * alpha[:, None] + dot(p, v)`): kept
    there, a loop's accumulator and its statistics never leave their registers, and the other
    operands (a bias, a row of scales) are converted instead, as Triton's layout propagation
    does."""
    def from_mma(layout):
        while isinstance(layout, SliceLayout):
            layout = layout.parent
        return isinstance(layout, MmaLayout)
    return next((layout for layout in layouts if from_mma(layout)), layouts[0])
# --8<-- [end:preferred]


def interleaves(op: ir.Op) -> bool:
    """A reshape that merges a join's pairs into the dimension before them (`tl.interleave`)."""
    src = op.operands[0]
    return (src.owner is not None and src.owner.name == "join" and len(op.result.shape) == len(src.shape) - 1
            and op.result.shape[-1] == 2 * src.shape[-2] and op.result.shape[:-1] == src.shape[:-2])




class LayoutAssignment:
    """Pass 1 decides a layout (or 'flexible') per value; pass 2 rewrites the IR to match."""

    def __init__(self, fn: ir.Function, num_warps: int,
                 vectors: dict[int, tuple[tuple[int, ...], int]] | None = None, arch: str = "sm_80"):
        self.fn, self.num_warps, self.arch = fn, num_warps, arch
        self.vectors = vectors or {}  # id(pointer value) -> (order, elements per thread), from coalesce
        self.layout: dict[int, DistributedLayout] = {}  # anchored values only
        self.remat: dict[tuple, ir.Value] = {}  # (value, layout, block) -> its copy there
        self.operand_layouts: dict[int, list[DistributedLayout]] = {}  # id(reduce op) -> [its operand's]

    # -- pass 1: decide ---------------------------------------------------------------------------
    def flexible(self, v: ir.Value, budget: list | None = None) -> bool:
        """A value that is cheaper to recompute in a new layout than to convert."""
        if not v.type.is_tile or id(v) in self.layout:
            return False
        op = v.owner
        if op is None or op.name not in ir.CHEAP:
            return False
        if op.name in ("expand_dims", "broadcast"):
            return True  # convert the operand instead: it has fewer elements than the result
        budget = budget if budget is not None else [MAX_REMAT_OPS]
        budget[0] -= 1
        return budget[0] >= 0 and all(not o.type.is_tile or self.flexible(o, budget) for o in op.operands)

    def of(self, v: ir.Value) -> DistributedLayout | None:
        return self.layout.get(id(v))

    def default(self, v: ir.Value) -> DistributedLayout:
        order, vector = self.vectors.get(id(v), (None, 1))
        return blocked_for(v.shape, self.num_warps, vector, order)

    def anchor(self, v: ir.Value, layout: DistributedLayout) -> None:
        self.layout[id(v)] = layout

    def decide_block(self, block: ir.Block) -> None:
        for op in block.ops:
            self.decide(op)

    # --8<-- [start:decide]
    def decide(self, op: ir.Op) -> None:
        """Anchor the results of `op` whose layout is forced; leave flexible ones undecided."""
        name = op.name
        tiles = [v for v in op.operands if v.type.is_tile]
        anchored = [self.of(v) for v in tiles if self.of(v) is not None]
        if name in ("for", "while"):
            return self.decide_loop(op)
        if name == "if":
            for region in op.regions:
                self.decide_block(region)
            for i, r in enumerate(op.results):
                if r.type.is_tile:
                    then_value = op.regions[0].terminator.operands[i]
                    self.anchor(r, self.of(then_value) or self.default(r))
            return
        if not op.results or not op.results[0].type.is_tile and name != "reduce":
            return
        result = op.results[0]
        if name == "load":
            ptr = op.operands[0]
            self.anchor(result, self.of(ptr) or self.default(ptr))
        elif name in ("atomic", "atomic_cas"):
            self.anchor(result, self.of(op.operands[0]) or self.default(op.operands[0]))
        elif name == "reduce":  # every operand in one layout: the first anchored one's
            x = op.operands[0]
            parent = next(filter(None, map(self.of, op.operands)), None) or self.default(x)
            self.operand_layouts[id(op)] = [parent] * len(op.operands)
            for r in op.results if result.type.is_tile else ():
                self.anchor(r, SliceLayout(op.attrs["axis"], parent))
        elif name == "dot":
            a, b, acc = op.operands
            mma = mma_layouts(op, self.num_warps, self.arch, self.of(a), self.of(b))
            self.anchor(result, mma[2] if mma else fma_layout(acc.shape, self.num_warps) if len(acc.shape) == 2
                        else self.default(result))
        elif name == "scan":
            layout = next(filter(None, map(self.of, op.operands)), None) or self.default(result)
            for r in op.results:
                self.anchor(r, layout)
        elif name in ("join", "split", "gather", "histogram"):
            self.decide_shapes(op)
        elif name == "reshape" and interleaves(op):
            self.anchor(result, merged_pairs(self.of(op.operands[0])))
        elif name in ("reshape", "convert_layout"):
            self.anchor(result, self.default(result))
        elif name == "trans":
            source = self.of(op.operands[0])
            permuted = permute_layout(source, op.attrs["perm"]) if source else None
            self.anchor(result, permuted or self.default(result))
        elif self.flexible(result):
            return
        elif name == "expand_dims" and anchored:
            self.anchor(result, expand_layout(anchored[0], op.attrs["axis"]) or self.default(result))
        else:  # every result (inline_asm and map_elementwise may have several) in one layout
            for r in op.results:
                self.anchor(r, preferred(anchored) if anchored else self.default(result))
    # --8<-- [end:decide]

    # --8<-- [start:decide-shapes]
    def decide_shapes(self, op: ir.Op) -> None:
        """join keeps each pair in one thread (a new last dimension in registers); split needs that
        of its operand (converting it first where lanes divide a pair); gather's result has its
        index's layout, its source stays where it is; a histogram's bins are laid out anew."""
        x = op.operands[0]
        if op.name == "join":
            halves = next(filter(None, map(self.of, op.operands)), None)
            halves = halves if isinstance(halves, BlockedLayout) else self.default(x)
            required, results = [halves, halves], [with_pairs(halves)]
        elif op.name == "split":
            halves = without_pairs(self.of(x))
            required = [self.of(x)] if halves else None
            halves = halves or self.default(op.results[0])
            required, results = required or [with_pairs(halves)], [halves, halves]
        elif op.name == "gather":
            src, index = op.operands
            required = [self.of(src) or self.default(src), self.of(index) or self.default(index)]
            results = [required[1]]
        else:
            required, results = [self.of(x) or self.default(x)] * len(op.operands), [self.default(op.result)]
        self.operand_layouts[id(op)] = required
        for r, layout in zip(op.results, results):
            self.anchor(r, layout)
    # --8<-- [end:decide-shapes]

    # --8<-- [start:loop-layouts]
    def decide_loop(self, op: ir.Op) -> None:
        """Loop arguments take the layout of the value the body yields for them (two tries). An
        argument whose initial value could be made in any layout (`tl.zeros`, a splat) has none
        in the first try, so the body's loads and dots decide it: `_mean += x` then accumulates in
        the layout `x` is loaded in, where the zeros' default layout would have converted every
        `x` through shared memory, every iteration."""
        loop = ir.loop_parts(op)
        body, args, inits = loop.body, loop.carried, loop.inits
        for attempt in range(2):
            for arg, init, result in zip(args, inits, op.results):
                if arg.type.is_tile:
                    chosen = self.of(arg) if attempt else \
                        self.of(init) or (None if self.flexible(init) else self.default(init))
                    if chosen is None:
                        continue
                    self.anchor(arg, chosen)
                    self.anchor(result, chosen)
                    if op.name == "while":
                        self.anchor(op.regions[0].args[list(args).index(arg)], chosen)
            for region in op.regions:
                self.decide_block(region)
            changed = False
            for arg, init, yielded in zip(args, inits, body.terminator.operands):
                if not arg.type.is_tile:
                    continue
                want = self.of(yielded) or self.of(arg) or self.default(init)
                if want != self.of(arg):
                    self.anchor(arg, want)
                    changed = True
            if not changed:
                break
        if op.name == "while":
            cond = op.regions[0].ops[-1]
            for before_arg, after_arg, result, v in zip(op.regions[0].args, body.args, op.results,
                                                        cond.operands[1:]):
                if after_arg.type.is_tile:
                    self.anchor(after_arg, self.of(before_arg))
                    self.anchor(result, self.of(before_arg))
    # --8<-- [end:loop-layouts]

    # -- pass 2: rewrite --------------------------------------------------------------------------
    def required(self, op: ir.Op) -> list[DistributedLayout | None]:
        """The layout `op` needs each tile operand in (None: any, e.g. a scalar)."""
        name = op.name
        tiles = [v for v in op.operands if v.type.is_tile]
        if not tiles:
            return [None] * len(op.operands)
        if name == "dot":
            mma = mma_layouts(op, self.num_warps, self.arch, self.of(op.operands[0]), self.of(op.operands[1]))
            acc_layout = self.of(op.result)
            if mma:
                return list(mma)
            a, b, _ = op.operands
            return [self.of(a) or self.default(a), self.of(b) or self.default(b), acc_layout]
        if name in ("reduce", "join", "split", "gather", "histogram"):
            return self.operand_layouts[id(op)]
        if name == "expand_dims":
            target = self.of(op.result)
            axis = op.attrs["axis"]
            return [SliceLayout(axis, target)]
        if name in ("reshape", "convert_layout", "print", "assert"):
            return [self.of(v) or self.default(v) if v.type.is_tile else None for v in op.operands]
        if name == "trans":
            source = op.operands[0]
            return [self.of(source) or self.default(source)]
        if name in ("store", "atomic", "atomic_cas"):
            ptr = op.operands[0]
            target = self.of(ptr) or (op.results and self.of(op.result)) or self.default(ptr)
            return [target if v.type.is_tile else None for v in op.operands]
        if name == "yield":
            return [None] * len(op.operands)  # handled by the region op
        result_layout = self.of(op.results[0]) if op.results and op.results[0].type.is_tile else None
        target = result_layout or next((self.of(v) for v in tiles if self.of(v)), None) or self.default(tiles[0])
        if name == "broadcast":
            return [target]
        return [target if v.type.is_tile else None for v in op.operands]

    def rewrite_block(self, block: ir.Block) -> None:
        new_ops: list[ir.Op] = []
        for op in block.ops:
            if op.results and all(id(r) in self.layout for r in op.results if r.type.is_tile) or \
                    not any(r.type.is_tile for r in op.results) or op.name in ("yield", "condition"):
                for region in op.regions:
                    self.rewrite_block(region)
                if op.name in ("for", "while", "if"):
                    self.fix_region_yields(op)
                operands = []
                for v, want in zip(op.operands, self.required_for(op)):
                    operands.append(self.materialize(v, want, new_ops) if want is not None else v)
                op.operands = operands
                for r in op.results:
                    if r.type.is_tile:
                        r.layout = self.layout[id(r)]
                new_ops.append(op)
            # flexible ops are dropped here and recomputed where they are used
        block.ops = new_ops

    def required_for(self, op: ir.Op):
        if op.name == "for":
            return [None, None, None] + [self.of(a) if a.type.is_tile else None for a in ir.loop_parts(op).carried]
        if op.name == "while":
            return [self.of(a) if a.type.is_tile else None for a in op.regions[0].args]
        if op.name in ("if", "yield", "condition"):
            return [None] * len(op.operands)
        return self.required(op)

    def fix_region_yields(self, op: ir.Op) -> None:
        """Make each region's yielded values match the layouts of what receives them."""
        if op.name == "for":
            targets = [[self.of(a) if a.type.is_tile else None for a in ir.loop_parts(op).carried]]
            terms = [op.regions[0].ops]
        elif op.name == "while":
            before, after = op.regions
            targets = [[None] + [self.of(a) if a.type.is_tile else None for a in after.args],
                       [self.of(a) if a.type.is_tile else None for a in before.args]]
            terms = [before.ops, after.ops]
        else:
            targets = [[self.of(r) if r.type.is_tile else None for r in op.results]] * 2
            terms = [r.ops for r in op.regions]
        for ops, want in zip(terms, targets):
            term = ops.pop()
            term.operands = [self.materialize(v, w, ops) if w is not None else v
                             for v, w in zip(term.operands, want)]
            ops.append(term)
        for region in op.regions:
            for a in region.args:
                if a.type.is_tile:
                    a.layout = self.of(a)

    # --8<-- [start:materialize]
    def materialize(self, v: ir.Value, want: DistributedLayout, out: list[ir.Op]) -> ir.Value:
        """`v` laid out in `want`: itself, a recomputation of its flexible chain, or a convert."""
        if not v.type.is_tile:
            return v
        have = self.of(v)
        if have == want:
            return v
        if isinstance(want, SharedOperandLayout) and not isinstance(have, BlockedLayout):
            # wgmma's operands are written to shared memory from a blocked layout: get there first
            v, have = self.materialize(v, self.default(v), out), self.default(v)
        if have is None:  # flexible: recompute the chain in `want` (once per block)
            key = (id(v), want, id(out))
            if key not in self.remat:
                self.remat[key] = self.recompute(v, want, out)
            return self.remat[key]
        key = (id(v), want, id(out))
        if key not in self.remat:
            op = ir.Op("convert_layout", [v], [], {}, [], v.owner.loc if v.owner else None)
            op.results = [ir.Value(v.type, op, layout=want)]
            self.layout[id(op.result)] = want
            out.append(op)
            self.remat[key] = op.result
        return self.remat[key]
    # --8<-- [end:materialize]

    def recompute(self, v: ir.Value, want: DistributedLayout, out: list[ir.Op]) -> ir.Value:
        op = v.owner
        if op.name == "expand_dims":
            operand_layouts = [SliceLayout(op.attrs["axis"], want)]
        else:
            operand_layouts = [want] * len(op.operands)
        operands = [self.materialize(o, w, out) if o.type.is_tile else o for o, w in zip(op.operands, operand_layouts)]
        clone = ir.Op(op.name, operands, [], dict(op.attrs), [], op.loc)
        clone.results = [ir.Value(v.type, clone, layout=want)]
        self.layout[id(clone.result)] = want
        out.append(clone)
        return clone.result


# --8<-- [start:hoist]
def hoist_invariant_operands(block: ir.Block) -> None:
    """Move the conversions to a wgmma operand of values made before a loop (attention's Q) out
    of it: the operand is written to shared memory once, not at every iteration, and stays there
    for the loop (`passes.shared` keeps it live to the loop's end). A later loop of the block
    that wants the same value in the same layout (causal attention's second loop) reads the
    first one's: it is not written again."""
    ops, hoisted = [], {}  # (id of the value, layout) -> its operand in shared memory
    for op in block.ops:
        for region in op.regions:
            hoist_invariant_operands(region)
        if op.name == "for":
            body = op.regions[0]
            inside = {id(v) for v in body.args} | {id(r) for inner in ir.walk_block(body) for r in inner.results}
            moved = [inner for inner in body.ops if inner.name == "convert_layout"
                     and isinstance(inner.result.layout, SharedOperandLayout) and id(inner.operands[0]) not in inside]
            body.ops = [inner for inner in body.ops if inner not in moved]
            for inner in moved:
                earlier = hoisted.setdefault((id(inner.operands[0]), inner.result.layout), inner.result)
                if earlier is inner.result:
                    ops.append(inner)
                    continue
                for user in ir.walk_block(body):
                    user.operands = [earlier if v is inner.result else v for v in user.operands]
        ops.append(op)
    block.ops = ops
# --8<-- [end:hoist]


# --8<-- [start:assign]
def assign_layouts(fn: ir.Function, num_warps: int, vectors: dict | None = None,
                   arch: str = "sm_80") -> ir.Function:
    """Set a layout on every tile value of `fn`, inserting conversions where layouts disagree."""
    upcast_fp8_operands(fn.body, num_warps, arch)
    swap_tf32_operands(fn, num_warps, arch, vectors or {})
    assignment = LayoutAssignment(fn, num_warps, vectors, arch)
    assignment.decide_block(fn.body)
    assignment.rewrite_block(fn.body)
    hoist_invariant_operands(fn.body)
    ir.verify(fn)
    fn.attrs["num_warps"] = num_warps
    return fn
# --8<-- [end:assign]
