"""Software pipelining: load the operands of a loop's `dot` several iterations ahead, asynchronously.

Reads tile IR with layouts and `num_stages`. In a loop like matmul's

    for k: a = load(a_ptrs, mask); acc = dot(convert(a), ...); a_ptrs += step

each iteration waits for its global loads before the tensor cores can start. This pass keeps
`num_stages` copies of each operand tile in shared memory (a ring of stages) and rewrites the loop:

    prologue:  async_load stages 0 .. S-2 (iterations 0 .. S-2), one commit group each
    each iteration i:
        async_wait (at most S-2 groups in flight: iteration i's has landed), barrier
        a = local_read(stage i % S)                       # ldmatrix straight into mma fragments
        ... the rest of the body ...
        async_load iteration i+S-1 into stage (i-1) % S   # the stage read last iteration
        async_commit

so global memory is read `S - 1` iterations before it is needed, by `cp.async`, while the tensor
cores work. What may be pipelined: a load used only by a conversion to an mma operand (whose buffer
takes each thread's runs as they are, along its lines, not across them; a tf32 operand too: the
tensor cores cut its fp32 bits themselves), or the
two 32-bit operands of a dot on CUDA cores (which then reads them from their rings at each step of
k, instead of staging them itself), whose pointers and mask come from the loop's index and carried
values by side-effect-free arithmetic, or from loads of indices (gathered rows, a block table's
entries) in a loop that writes no memory, with `other` absent or zero (cp.async fills masked
elements with zeros). A loop takes as many stages as fit in the target's shared memory.

On sm_90, a block of a host descriptor bound for a wgmma operand is copied by the tensor memory
accelerator instead (`tma_copies`, `codegen/tma.py`): one thread issues a `tma_load` of the
block's offsets, an mbarrier per stage counts its bytes (`mbarrier_expect`), and each thread
waits for the stage's phase (`mbarrier_wait`) where cp.async's threads wait for their groups.
Chapter: 10-performance.
"""
from __future__ import annotations

from .. import ir
from ..layouts import BlockedLayout, DotOperandLayout, SharedOperandLayout, fma_operand_swizzle
from .geometry import TmaCopies, WgmmaOperand, ldmatrix_operand, scratch_bytes

# The shared memory a block may ask for on each GPU (the CUDA programming guide's table, "maximum
# amount of shared memory per thread block", opted in): the rings of a loop must fit in it.
SHARED_MEMORY = {"sm_75": 64 << 10, "sm_80": 163 << 10, "sm_86": 99 << 10, "sm_87": 163 << 10,
                 "sm_89": 99 << 10, "sm_90": 227 << 10, "sm_90a": 227 << 10, "sm_100": 227 << 10,
                 "sm_100a": 227 << 10, "sm_120": 99 << 10, "sm_120a": 99 << 10}


def _candidates(body: ir.Block, tma=lambda load, shared, transposed: None) -> list[tuple[ir.Op, ir.Op, object]]:
    """(load, user, shared layout) for each load whose tile feeds nothing but a dot operand:
    through a conversion to an mma operand (the user, which the ring replaces), or straight into
    a dot on CUDA cores (the user), whose two operands are then both read from rings or neither.
    A conversion's operand is copied by cp.async (4 bytes at least at once), or by `tma`."""
    users: dict[int, list[ir.Op]] = {}
    for op in ir.walk_block(body):
        for v in op.operands:
            users.setdefault(id(v), []).append(op)
    found, fma = [], {}
    for op in body.ops:
        if op.name != "load" or not op.result.type.is_tile:
            continue
        used_by = users.get(id(op.result), [])
        if len(used_by) != 1 or used_by[0] not in body.ops:
            continue
        if not ir.is_zero(op.operands[2] if len(op.operands) > 2 else None):
            continue
        user = used_by[0]
        if user.name == "trans" and tuple(user.attrs["perm"]) == (1, 0) and user in body.ops:
            read_by = users.get(id(user.result), [])
            converted = len(read_by) == 1 and read_by[0].name == "convert_layout"
            shared = ldmatrix_operand(read_by[0]) if converted else None
            copied = _run(op.operands[0], shared, True) * op.result.dtype.itemsize if shared is not None else 0
            if copied >= 4 or tma(op, shared, True):
                found.append((op, read_by[0], shared))  # a load of B^T (`k.T`): copied in as B
        elif user.name == "convert_layout":
            shared = ldmatrix_operand(user)
            copied = _run(op.operands[0], shared) * op.result.dtype.itemsize if shared is not None else 0
            if copied >= 4 or tma(op, shared, False):  # cp.async copies 4 bytes or more
                found.append((op, user, shared))
        elif user.name == "dot" and isinstance(user.result.layout, BlockedLayout):
            shared = _fma_ring(user, user.operands.index(op.result))
            if shared is not None:
                fma.setdefault(id(user), []).append((op, user, shared))
    return found + [pair for pairs in fma.values() if len(pairs) == 2 for pair in pairs]


def _fma_ring(dot: ir.Op, op_idx: int):
    """The ring layout of operand `op_idx` of a dot on CUDA cores, or None where it cannot be read
    from one (not 32-bit, A's rows not whole 16-byte chunks, or rounded to tf32 on the way)."""
    a, b, acc = dot.operands
    operand = dot.operands[op_idx]
    if a.dtype.bits != 32 or acc.dtype.bits != 32 or a.shape[1] % 4 or dot.attrs["input_precision"] == "tf32":
        return None
    return fma_operand_swizzle(op_idx, operand.shape, 32, acc.layout, acc.shape)


def _run(ptrs: ir.Value, shared=None, transposed: bool = False) -> int:
    """Elements each thread copies at once: its run along the buffer's lines (the rows; a K-major
    B's columns; for a `transposed` load, the loaded tile's other dimension), up to 16 bytes."""
    layout = ptrs.layout
    along = shared.line_dim if isinstance(shared, WgmmaOperand) else shared.order[0]
    along = 1 - along if transposed else along
    if layout is None or layout.order[0] != along:
        return 1
    return min(layout.contig_per_thread(ptrs.shape), 128 // ptrs.dtype.pointee.bits)


def slice_of(values: list[ir.Value], body: ir.Block, loads: bool = False) -> list[ir.Op] | None:
    """The body's ops that compute `values` (in program order), or None if one has an effect.
    With `loads`, plain loads may be among them (an index read from memory: a gathered row's
    number, a block table's entry), and are cloned like the arithmetic."""
    defined_here = {id(r): op for op in body.ops for r in op.results}
    needed, stack = set(), list(values)
    while stack:
        v = stack.pop()
        op = defined_here.get(id(v))
        if op is None or id(op) in needed:
            continue
        if op.name not in ir.CHEAP and not (loads and op.name == "load"):
            return None  # an effect, or work worth more than cloning it
        needed.add(id(op))
        stack.extend(op.operands)
    return [op for op in body.ops if id(op) in needed]


def writes_memory(op: ir.Op) -> bool:
    writes = ("store", "atomic", "atomic_cas")
    return op.name in writes or (op.name == "inline_asm" and not op.attrs.get("pure"))


# --8<-- [start:clone]
def clone(ops: list[ir.Op], mapping: dict[int, ir.Value], out: list[ir.Op], in_range: ir.Value) -> None:
    """Append copies of `ops` to `out`, reading `mapping[old value]` where given. A load among
    them reads only while `in_range` (the iteration it is for exists): past the loop's end its
    addresses may point anywhere."""
    for op in ops:
        operands = [mapping.get(id(v), v) for v in op.operands]
        if op.name == "load":
            ptrs = operands[0]
            ok = emit(out, "splat", [in_range], layout=ptrs.layout, shape=ptrs.shape) \
                if ptrs.type.is_tile else in_range
            if len(operands) > 1:
                ok = emit(out, "and", [operands[1], ok], layout=ptrs.layout)
            operands = [ptrs, ok] + operands[2:]
        new = ir.Op(op.name, operands, [], dict(op.attrs), [], op.loc)
        new.results = [ir.Value(r.type, new, layout=r.layout) for r in op.results]
        for old, r in zip(op.results, new.results):
            mapping[id(old)] = r
        out.append(new)
# --8<-- [end:clone]


def drop_unread(ops: list[ir.Op], candidates: set[int]) -> None:
    """Remove from `ops` those of `candidates` (the ops that computed the pipelined loads'
    addresses, now computed ahead) whose results nothing reads any more: a load among them would
    otherwise stay, as loads are never dead code."""
    while True:
        read = {id(v) for op in ops for inner in [op, *(i for r in op.regions for i in ir.walk_block(r))]
                for v in inner.operands}
        dead = [op for op in ops if id(op) in candidates and not any(id(r) in read for r in op.results)]
        if not dead:
            return
        for op in dead:
            ops.remove(op)


def emit(out: list[ir.Op], name: str, operands: list[ir.Value], layout=None, loc=None, **attrs) -> ir.Value:
    op = ir.Op(name, operands, [], attrs, [], loc)
    op.results = [ir.Value(t, op, layout=layout) for t in ir.OPS[name](name, operands, attrs)]
    out.append(op)
    return op.results[0] if op.results else None


def constant(out, value: int, dtype=ir.int32) -> ir.Value:
    return emit(out, "constant", [], value=value, dtype=dtype)


class Pipeliner:
    def __init__(self, fn: ir.Function, num_stages: int, shared_limit: int | None = None, tma: bool = False):
        self.fn, self.stages, self.shared_limit, self.tma = fn, num_stages, shared_limit, tma
        self.buffers = fn.attrs.setdefault("shared_buffers", {})

    # --8<-- [start:tma-choice]
    def tma_copies(self, load: ir.Op, shared, transposed: bool) -> TmaCopies | None:
        """The TMA copies that bring `load`'s block into its ring, or None (then cp.async does):
        on a GPU with the tensor memory accelerator, for a block of a host descriptor (whose
        tensor map the launch passes), 2-D, whose rows (the descriptor's contiguous dimension)
        are the lines of a wgmma operand's layout. A descriptor has one tensor map, so every
        block copied through it must want the same box and swizzle."""
        name = load.attrs.get("descriptor")
        if not (self.tma and name and isinstance(shared, WgmmaOperand) and len(load.result.shape) == 2):
            return None
        if shared.line_dim != (0 if transposed else 1):
            return None
        copies = shared.tma_copies()
        known = self.fn.attrs.get("tensormaps", {}).get(name)
        if copies is None or known not in (None, tensormap(load, copies)):
            return None
        return copies
    # --8<-- [end:tma-choice]

    def block(self, block: ir.Block) -> None:
        new_ops = []
        for op in block.ops:
            for region in op.regions:
                self.block(region)
            if op.name == "for" and op.attrs.get("num_stages", self.stages) >= 2:
                replaced = self.loop(op, new_ops)
                if replaced:
                    continue
            new_ops.append(op)
        block.ops = new_ops

    def fitting_stages(self, stages: int, extra_slot: bool, per_slot: int, pairs, body: ir.Block) -> int:
        """`stages`, or fewer where the rings would not fit in the block's shared memory beside the
        scratch the rest of the body needs: as many as fit (the kernel then runs, not fails)."""
        if self.shared_limit is None:
            return stages
        others = self.other_scratch(pairs, body)
        while stages >= 2 and (stages + extra_slot) * per_slot + others > self.shared_limit:
            stages -= 1
        return stages

    def other_scratch(self, pairs, body: ir.Block) -> int:
        """The shared memory the loop's body needs besides the rings."""
        replaced = {id(user) for _, user, _ in pairs}
        return sum(scratch_bytes(op) for op in ir.walk_block(body) if id(op) not in replaced)

    # --8<-- [start:slot]
    def slot_costs_blocks(self, stages: int, per_slot: int, pairs, body: ir.Block) -> bool:
        """Whether a ring slot more (`stages` + 1 slots) leaves room for fewer blocks on one SM than
        `stages` slots do. A block's shared memory comes out of the SM's (the block limit and the
        1 KB each block reserves): 4 slots of 32 KB let one 128 x 128 x 64 fp16 matmul block run on
        an H100's SM, 3 slots let two."""
        if self.shared_limit is None:
            return False
        others, sm = self.other_scratch(pairs, body), self.shared_limit + 1024
        blocks = lambda slots: sm // (slots * per_slot + others + 1024)  # noqa: E731
        return blocks(stages + 1) < blocks(stages)
    # --8<-- [end:slot]

    # --8<-- [start:loop]
    def loop(self, loop: ir.Op, out: list[ir.Op]) -> bool:
        """Rewrite one loop; False (and no change) when it has nothing to pipeline."""
        stages = loop.attrs.get("num_stages", self.stages)
        parts = ir.loop_parts(loop)
        body, (lb, ub, step), inits = parts.body, parts.bounds, parts.inits
        iv, carried, yields = parts.induction, parts.carried, parts.yielded
        step_op = step.owner
        if step_op is None or step_op.name != "constant" or step_op.attrs["value"] <= 0:
            return False
        pairs = _candidates(body, self.tma_copies)
        if not pairs:
            return False
        transposes = {id(load): op for load, _, _ in pairs for op in body.ops  # B^T's loads (`k.T`)
                      if op.name == "trans" and op.operands[0] is load.result}
        copies = [self.tma_copies(load, shared, id(load) in transposes) for load, _, shared in pairs]
        maps: dict[str, dict] = {}  # two blocks of one descriptor in the loop share its tensor map
        for i, ((load, _, _), tma) in enumerate(zip(pairs, copies)):
            if tma and maps.setdefault(load.attrs["descriptor"], tensormap(load, tma)) != tensormap(load, tma):
                copies[i] = None
        for (load, user, shared), tma in zip(pairs, copies):  # a TMA candidate refused after all:
            if not tma and user.name != "dot" and \
                    _run(load.operands[0], shared, id(load) in transposes) * load.result.dtype.itemsize < 4:
                return False  # cp.async cannot copy its runs either
        # The carried values the addresses (a TMA copy's: the block's offsets) depend on, closed
        # under their own updates.
        address_values = [v for (load, _, _), tma in zip(pairs, copies)
                          for v in (load.operands[3:] if tma else load.operands[:2])]
        # an index may be read from memory, if nothing in the loop writes memory
        reads_only = not any(writes_memory(op) for op in ir.walk_block(body))
        involved: list[int] = []
        while True:
            slice_ops = slice_of(address_values + [yields[i] for i in involved], body, loads=reads_only)
            if slice_ops is None:
                return False
            used = {id(v) for op in slice_ops for v in op.operands} | {id(v) for v in address_values}
            more = [i for i, a in enumerate(carried) if id(a) in used and i not in involved]
            if not more:
                break
            involved += more
        involved.sort()
        loc = loop.loc
        # wgmma runs asynchronously: each iteration waits only for the one before it, so a stage may
        # still be read while the next is being computed. With cp.async copies, whose threads meet
        # at a barrier at the top of each iteration, the ring needs one slot more (below); or, where
        # that slot would cost the SM a block (`slot_costs_blocks`), the threads meet a second time,
        # after the wait, as Triton's do. With TMA copies alone, the threads meet just before the one
        # that issues the copies: by then every warpgroup has waited for the previous iteration's
        # wgmma, and its stage is free.
        tma_only = all(copies)
        # (a wgmma's: B read from its ring where it lies, A too or out of its ring into registers)
        wgmma = _async_dot(parts, pairs) if all(isinstance(sh, WgmmaOperand) or isinstance(user.result.layout,
                                                DotOperandLayout) for _, user, sh in pairs) else None
        if wgmma is not None and not isinstance(wgmma[0].operands[1].layout, SharedOperandLayout):
            wgmma = None  # mma.sync: synchronous
        rs = wgmma is not None and isinstance(wgmma[0].operands[0].layout, DotOperandLayout)
        extra_slot = wgmma is not None and not tma_only
        stage_bytes = [load.result.type.numel * load.result.dtype.itemsize for load, _, _ in pairs]
        stages = self.fitting_stages(stages, extra_slot, sum(stage_bytes), pairs, body)
        if stages < 2:
            return False
        # (an RS wgmma is waited for only at the next iteration's top: it keeps its slot)
        meet_after_wait = extra_slot and not rs and self.slot_costs_blocks(stages, sum(stage_bytes), pairs, body)
        extra_slot = extra_slot and not meet_after_wait
        slots = stages + extra_slot
        # Buffers: one ring of `slots` tiles per pipelined operand; with TMA copies, an mbarrier
        # per slot too, which counts the bytes landing in it.
        rings = []
        for (load, convert, shared), tile_bytes in zip(pairs, stage_bytes):
            name = f"ring{len(self.buffers)}"
            self.buffers[name] = tile_bytes * slots
            transposed = {"perm": (1, 0)} if id(load) in transposes else {}
            rings.append(dict(buffer=name, stage_bytes=tile_bytes, shared=shared,
                              run=_run(load.operands[0], shared, bool(transposed)), **transposed))
        barriers = None
        if any(copies):
            barriers = f"mbarriers{len(self.buffers)}"
            self.fn.attrs.setdefault("mbarriers", {})[barriers] = slots
            for (load, _, _), tma in zip(pairs, copies):
                if tma:
                    self.fn.attrs.setdefault("tensormaps", {})[load.attrs["descriptor"]] = tensormap(load, tma)
            emit(out, "mbarrier_init", [], buffer=barriers, count=slots)
        copied_bytes = sum(b for b, tma in zip(stage_bytes, copies) if tma)

        def issue(mapping, index_value, stage_value, dest):
            """Copy the tiles of the iteration `index_value` (addresses from `mapping`) into a stage."""
            in_range = emit(dest, "cmp", [index_value, ub], predicate="lt")
            clone(slice_ops, mapping, dest, in_range)
            if barriers:  # one thread says how many bytes will land, then copies them
                emit(dest, "mbarrier_expect", [stage_value, in_range], buffer=barriers, bytes=copied_bytes)
            for (load, _, _), ring, tma in zip(pairs, rings, copies):
                if tma:
                    corner = [mapping.get(id(v), v) for v in load.operands[3:]]
                    emit(dest, "tma_load", [stage_value, in_range, *corner], loc=load.loc, tma=tma,
                          tensormap=load.attrs["descriptor"], barriers=barriers, **ring)
                    continue
                ptrs = mapping.get(id(load.operands[0]), load.operands[0])
                layout = ptrs.layout
                ok = emit(dest, "splat", [in_range], layout=layout, shape=ptrs.shape)
                if len(load.operands) > 1:
                    ok = emit(dest, "and", [mapping.get(id(load.operands[1]), load.operands[1]), ok],
                               layout=layout)
                emit(dest, "async_load", [ptrs, ok, stage_value], loc=load.loc, **ring)
            if not all(copies):
                emit(dest, "async_commit", [])
            return [mapping.get(id(yields[i]), yields[i]) for i in involved]

        # Prologue: iterations 0 .. S-2 into stages 0 .. S-2.
        ahead = [inits[i] for i in involved]
        for s in range(stages - 1):
            index = emit(out, "add", [lb, emit(out, "mul", [step, constant(out, s, step.dtype)])])
            mapping = {id(iv): index, **{id(carried[i]): v for i, v in zip(involved, ahead)}}
            ahead = issue(mapping, index, constant(out, s), out)
        # The new loop carries the addresses S-1 iterations ahead and the two stage numbers (and
        # the parity of the mbarriers' phase it waits for: it flips each time the reads wrap).
        new_args = [ir.Value(carried[i].type, layout=carried[i].layout) for i in involved]
        counters = [ir.Value(ir.scalar(ir.int32)) for _ in range(3 if barriers else 2)]
        read_stage, write_stage = counters[:2]
        new_body = ir.Block(list(body.args) + new_args + counters)
        ops = new_body.ops
        if not all(copies):
            emit(ops, "async_wait", [], pending=stages - 2,
                  fence=any(isinstance(ring["shared"], WgmmaOperand) for ring in rings))
        if barriers:  # each thread waits for the bytes itself: no barrier needed to see them
            emit(ops, "mbarrier_wait", [read_stage, counters[2]], buffer=barriers)
        if not tma_only:  # every thread's cp.async copies landed: now all threads see them
            emit(ops, "barrier", [])
        replace = {}
        # A wgmma with A in registers (read out of a ring) may read them until it ends, and the
        # next iteration's A lands in the same registers: it runs on through the copies issued
        # after it, the loop's end and the meeting above, and is waited for here, before they
        # are written again (`deferred`). A wgmma reading only shared memory runs on until the
        # next one is issued (`pending` 1).
        if rs:
            acc = carried[wgmma[1]]
            replace[id(acc)] = emit(ops, "wgmma_wait", [acc], layout=acc.layout, loc=loc, buffers=[])
        for (load, user, _), ring in zip(pairs, rings):
            if user.name == "dot":  # on CUDA cores: the dot reads the ring itself, at each step of k
                layout = SharedOperandLayout(user.operands.index(load.result), user.result.layout)
                replace[id(load.result)] = emit(ops, "local_read", [read_stage], layout=layout, loc=load.loc,
                                                 type=load.result.type, **ring)
            else:
                replace[id(user.result)] = emit(ops, "local_read", [read_stage], layout=user.result.layout,
                                                 loc=user.loc, type=user.result.type, **ring)
        skip = {id(op) for load, user, _ in pairs for op in (load, user) if op.name != "dot"} | \
            {id(op) for op in transposes.values()}
        for op in body.ops[:-1]:
            if id(op) not in skip:
                op.operands = [replace.get(id(v), v) for v in op.operands]
                _replace_in_regions(op, replace)
                ops.append(op)
        if tma_only or meet_after_wait:  # every warp is done with the stage the copies refill (and with
            emit(ops, "barrier", [])  # its mbarrier's phase)
        index = emit(ops, "add", [iv, constant(ops, (stages - 1) * step.owner.attrs["value"], step.dtype)])
        mapping = {id(iv): index, **{id(carried[i]): a for i, a in zip(involved, new_args)}}
        next_ahead = issue(mapping, index, write_stage, ops)
        count = constant(ops, slots)
        one = constant(ops, 1)
        next_read = emit(ops, "rem", [emit(ops, "add", [read_stage, one]), count])
        next_write = emit(ops, "rem", [emit(ops, "add", [write_stage, one]), count])
        next_counters = [next_read, next_write]
        if barriers:
            wrapped = emit(ops, "cmp", [next_read, constant(ops, 0)], predicate="eq")
            next_counters.append(emit(ops, "xor", [counters[2], emit(ops, "cast", [wrapped], dtype=ir.int32)]))
        term = body.terminator
        emit(ops, "yield", [replace.get(id(v), v) for v in term.operands] + next_ahead + next_counters)
        # what computed the addresses (and, for TMA copies, the pointers no copy reads any more)
        computed = slice_ops + (slice_of([v for (load, _, _), tma in zip(pairs, copies) if tma
                                        for v in load.operands[:2]], body) or [])
        drop_unread(ops, {id(op) for op in computed})
        starts = [constant(out, v) for v in (0, stages - 1, 0)[:len(counters)]]
        new_loop = ir.Op("for", [lb, ub, step] + inits + ahead + starts, [], dict(loop.attrs),
                         [new_body], loc)
        new_loop.results = list(loop.results) + [ir.Value(v.type, layout=v.layout) for v in ahead] + \
            [ir.Value(ir.scalar(ir.int32)) for _ in counters]
        for r in new_loop.results:
            r.owner = new_loop
        out.append(new_loop)
        names = [ring["buffer"] for ring in rings]
        if wgmma is not None:
            dot, carried_index = wgmma
            dot.attrs["pending"] = 1  # each iteration waits for the group before its own
            dot.attrs["deferred"] = rs  # ... at its top, before A's registers are written
            _wait_for_accumulator(self.fn, new_loop, carried_index, out, names)
        # the last prefetches (all masked off) land before anything else; the rings end here
        emit(out, "async_wait", [], pending=0, buffers=names)
        if barriers:  # every copy issued was waited for: the mbarriers may go
            emit(out, "mbarrier_inval", [], buffers=[barriers])
        return True
    # --8<-- [end:loop]


def _async_dot(parts: ir.LoopParts, pairs) -> tuple[ir.Op, int] | None:
    """The loop's one dot that reads the pipelined operands, with the index of the carried value
    it accumulates into (`acc = dot(a, b, acc)`, yielded as is), or None: then it stays synchronous."""
    converted = {id(user.result) for _, user, _ in pairs}
    dots = [op for op in parts.body.ops if op.name == "dot" and {id(v) for v in op.operands[:2]} <= converted]
    if len(dots) != 1:
        return None
    dot = dots[0]
    for i, (arg, value) in enumerate(zip(parts.carried, parts.yielded)):
        if value is dot.result and dot.operands[2] is arg:
            return dot, i
        # a dot computed transposed (`tensor_cores.swap_tf32_operands`): the loop carries acc^T's
        # transpose, and the transposes only renumber registers
        if _transposed(value) is dot.result and _transposed(dot.operands[2]) is arg:
            return dot, i
    return None


def _transposed(v: ir.Value) -> ir.Value | None:
    """x where v = trans(x) (of a 2-D tile), else None."""
    return v.owner.operands[0] if v.owner is not None and v.owner.name == "trans" else None


def _wait_for_accumulator(fn: ir.Function, loop: ir.Op, index: int, out: list[ir.Op], rings: list[str]) -> None:
    """After the loop, wait for the last wgmma group before anything reads the accumulator: every
    later use of the loop's result reads the wait's result instead."""
    result = loop.results[index]
    waited = emit(out, "wgmma_wait", [result], layout=result.layout, loc=loop.loc, buffers=rings)
    for op in fn.walk():  # the ops after the loop (the block being rewritten still lists them)
        op.operands = [waited if v is result else v for v in op.operands]


def _replace_in_regions(op: ir.Op, replace: dict) -> None:
    for region in op.regions:
        for inner in ir.walk_block(region):
            inner.operands = [replace.get(id(v), v) for v in inner.operands]


def tensormap(load: ir.Op, copies: TmaCopies) -> dict:
    """What the launch encodes in the tensor map of `load`'s descriptor (`driver.encode_tensormap`):
    its element type, the box (inner dimension first), the swizzle, what reads outside the array."""
    return {"dtype": load.result.dtype.name, "box": [copies.inner, copies.outer], "swizzle": copies.swizzle}


def pipeline(fn: ir.Function, num_stages: int, arch: str | None = None) -> ir.Function:
    """Pipeline every loop whose dot operands can be loaded ahead (no change with num_stages < 2),
    in as many stages as fit in the shared memory of `arch` (any number where it is not given),
    with TMA copies where `arch` has them (sm_90 on)."""
    if num_stages >= 2:
        tma = arch is not None and int(arch[3:].rstrip("a")) >= 90
        Pipeliner(fn, num_stages, SHARED_MEMORY.get(arch), tma).block(fn.body)
    ir.verify(fn)
    return fn
