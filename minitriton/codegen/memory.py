"""Global memory: predicated, vectorized loads and stores, and atomics, through inline PTX.

A load of `vector` consecutive elements (chosen by `passes/coalesce`, cut to what the layout keeps
in consecutive registers) is one predicated `ld.global` of up to 16 bytes; the destination
registers are tied to the `other` values, so a thread whose mask bit is off keeps them. A store is
the same with `st.global`, guarded also by the owner predicate, so a replicated element is stored
once. An atomic is one `atom.global` per element in the thread that owns it; where other threads
hold copies of the element, its old value reaches them through shared memory. Chapter: 08-llvm.
"""
from __future__ import annotations

from llvmlite import ir as ll

from .. import ir
from ..layouts import BlockedLayout
from .lowering import Lowering, const, f16, f32, i1, i8, i16, ll_type
from .shared import through_shared_from_owners

_CONSTRAINT = {16: "h", 32: "r", 64: "l"}


# --8<-- [start:words]
def _words(elem_bits: int, vec: int) -> tuple[int, int, str]:
    """How `vec` elements travel: (number of registers, bits per register, PTX type of the
    access)."""
    if elem_bits >= 32:
        return vec, elem_bits, f"b{elem_bits}"
    total = elem_bits * vec
    if total >= 32:
        return total // 32, 32, "b32"
    return 1, 16, "b16" if total == 16 else "u8"  # a byte travels in a 16-bit register
# --8<-- [end:words]


def _element_bits(lw: Lowering, v, dtype: ir.DType):
    """A register as the integer holding its bytes in memory (booleans are bytes)."""
    if dtype.is_bool():
        return lw.b.zext(v, i8)
    return v if isinstance(v.type, ll.IntType) else lw.b.bitcast(v, ll.IntType(dtype.bits))


def _pack(lw: Lowering, values: list, dtype: ir.DType, words: int, word_bits: int) -> list:
    """Element registers -> `words` integer registers of `word_bits` (the bytes in memory order)."""
    word = ll.IntType(word_bits)
    per_word = len(values) // words
    elem_bits = max(dtype.bits, 8)
    if dtype.is_floating() and elem_bits == 16 and word_bits == 32 and per_word == 2:
        return [lw.pack_pair(values[2 * w], values[2 * w + 1]) for w in range(words)]
    out = []
    for w in range(words):
        acc = None
        for k in range(per_word):
            bits = _element_bits(lw, values[w * per_word + k], dtype)
            bits = lw.b.zext(bits, word) if elem_bits < word_bits else bits
            acc = bits if acc is None else lw.b.or_(acc, lw.b.shl(bits, ll.Constant(word, k * elem_bits)))
        out.append(acc)
    return out


def _unpack(lw: Lowering, words: list, dtype: ir.DType, word_bits: int, vec: int) -> list:
    """The inverse of `_pack`."""
    elem_bits = max(dtype.bits, 8)
    per_word = vec // len(words)
    out = []
    for w in words:
        for k in range(per_word):
            bits = w if elem_bits == word_bits else \
                lw.b.trunc(lw.b.lshr(w, ll.Constant(w.type, k * elem_bits)), ll.IntType(elem_bits))
            if dtype.is_bool():
                out.append(lw.b.icmp_unsigned("!=", bits, ll.Constant(i8, 0)))
            elif isinstance(ll_type(dtype), ll.IntType):
                out.append(bits)
            else:
                out.append(lw.b.bitcast(bits, ll_type(dtype)))
    return out


# --8<-- [start:vector-width]
def vector_width(op, value) -> int:
    """How many elements one access of `op` moves: the width coalescing chose, cut down to what
    `value`'s layout keeps in consecutive registers along the same (contiguous) dimension."""
    width = op.attrs.get("vector", 1)
    layout = value.layout
    if (width <= 1 or not isinstance(layout, BlockedLayout)
            or layout.order[0] != op.attrs.get("contig_dim")):
        return 1
    run = layout.contig_per_thread(value.shape)
    width = 1 << (width.bit_length() - 1)
    while run % width:
        width //= 2
    return width
# --8<-- [end:vector-width]


# --8<-- [start:load]
def _load(lw: Lowering, op, ptrs, mask=None, other=None, *corner):
    """Each group of `vector` consecutive registers is one predicated `ld.global` of up to 16
    bytes. All of a thread's loads come first, then the words are split into elements: ptxas
    keeps that order, and every load is in flight before the first element is used (split after
    each load, the loads went out one at a time, each after the uses of the one before)."""
    dtype = op.result.dtype
    vec = vector_width(op, op.operands[0])
    n = len(ptrs)
    words, word_bits, width = _words(max(dtype.bits, 8), vec)
    loaded = []
    for start in range(0, n, vec):
        zero = [const(dtype, 0) if not dtype.is_bool() else ll.Constant(i1, 0)] * vec
        fallback = other[start:start + vec] if other is not None else zero
        fallback = _pack(lw, fallback, dtype, words, word_bits)
        pred = mask[start] if mask is not None else ll.Constant(i1, 1)
        letter = _CONSTRAINT[word_bits]
        dests = ", ".join(f"${i}" for i in range(words))
        vector = f".v{words}" if words > 1 else ""
        text = (f"@${words + 1} ld.global{vector}.{width} {{{dests}}}, [${words}];" if words > 1 else
                f"@${words + 1} ld.global.{width} ${0}, [${words}];")
        constraints = ",".join([f"={letter}"] * words + ["l", "b"] + [str(i) for i in range(words)])
        ret = ll.LiteralStructType([ll.IntType(word_bits)] * words) if words > 1 else ll.IntType(word_bits)
        loaded.append(lw.asm(ret, text, constraints, [ptrs[start], pred] + fallback))
    out = []
    for result in loaded:
        parts = [lw.b.extract_value(result, i) for i in range(words)] if words > 1 else [result]
        out.extend(_unpack(lw, parts, dtype, word_bits, vec))
    return out
# --8<-- [end:load]


def _store(lw: Lowering, op, ptrs, values, mask=None):
    """Predicated `st.global`, vectorized like loads; replicated elements are stored once."""
    value = op.operands[1]
    dtype = value.dtype
    vec = vector_width(op, op.operands[0])
    words, word_bits, width = _words(max(dtype.bits, 8), vec)
    owner, registers = lw.owners(value)
    letter = _CONSTRAINT[word_bits]
    for start in range(0, len(ptrs), vec):
        if start not in registers:
            continue
        pred = owner if mask is None else lw.b.and_(owner, mask[start])
        packed = _pack(lw, values[start:start + vec], dtype, words, word_bits)
        if words > 1:
            text = f"@${words + 1} st.global.v{words}.{width} [$0], {{{', '.join(f'${i + 1}' for i in range(words))}}};"
        else:
            text = f"@$2 st.global.{width} [$0], $1;"
        constraints = ",".join(["l"] + [letter] * words + ["b"])
        lw.asm(ll.VoidType(), text, constraints, [ptrs[start]] + packed + [pred])


# --8<-- [start:atomic]
_ATOM_OPS = {"add": "add", "max": "max", "min": "min", "xchg": "exch", "and": "and", "or": "or", "xor": "xor"}


def _atom_type(kind: str, dtype: ir.DType) -> str:
    if kind in ("xchg", "and", "or", "xor"):
        return f"b{dtype.bits}"
    if dtype.is_floating():
        return {"fp16": "noftz.f16", "bf16": "noftz.bf16", "fp32": "f32", "fp64": "f64"}[dtype.name]
    if kind == "add":
        return f"u{dtype.bits}" if dtype.bits != 32 or dtype.is_int_unsigned() else "s32"
    return f"{'s' if dtype.is_int_signed() else 'u'}{dtype.bits}"


def _atom(op, cas: bool = False) -> str:
    """`atom` with its state space, scope and memory order, spelled as Triton's PTX spells them
    (`atom.global.gpu.acquire.add`, `atom.global.acq_rel.gpu.cas`; ptxas takes either order), so
    that what matches Triton's PTX matches ours."""
    sem, scope = op.attrs.get("sem", "acq_rel"), op.attrs.get("scope", "gpu")
    return f"atom.global.{sem}.{scope}" if cas else f"atom.global.{scope}.{sem}"


def _atomic(lw: Lowering, op, ptrs, values, mask=None):
    """One `atom.global` per element, in the thread that owns it; float max/min go through integer
    atomics; the old values then reach every thread that holds the element."""
    value = op.operands[1]
    dtype, kind = value.dtype, op.attrs["kind"]
    owner, registers = lw.owners(value)
    bits = max(dtype.bits, 16)
    letter = _CONSTRAINT[bits] if not dtype.is_floating() or dtype.bits == 16 else {32: "f", 64: "d"}[bits]
    # coalescing gave a width to float adds only (`coalesce.vector_atomic`); Hopper has `atom.add.v8`
    vec = vector_width(op, op.operands[0]) if lw.capability >= 90 else 1
    if vec > 1:
        return _share_results(lw, op, _vector_add(lw, op, ptrs, values, mask, owner, registers, vec))
    out = []
    for r, (p, v) in enumerate(zip(ptrs, values)):
        pred = owner if mask is None else lw.b.and_(owner, mask[r])
        if r not in registers:
            pred = ll.Constant(i1, 0)
        if dtype.is_floating() and kind in ("max", "min"):
            out.append(_float_minmax_atomic(lw, op, kind, dtype, p, v, pred))
            continue
        if dtype.is_bf16() and lw.capability < 90:  # no atom.add.bf16 before Hopper
            out.append(_add_by_compare_and_swap(lw, op, p, v, pred))
            continue
        operand = lw.b.bitcast(v, i16) if dtype == ir.float16 else v
        text = f"@$3 {_atom(op)}.{_ATOM_OPS[kind]}.{_atom_type(kind, dtype)} $0, [$1], $2;"
        zero = ll.Constant(operand.type, 0.0 if isinstance(operand.type, (ll.FloatType, ll.DoubleType)) else 0)
        old = lw.asm(operand.type, text, f"={letter},l,{letter},b,0", [p, operand, pred, zero])
        out.append(lw.b.bitcast(old, f16) if dtype == ir.float16 else old)
    return _share_results(lw, op, out)
# --8<-- [end:atomic]


# --8<-- [start:vector-add]
def _vector_add(lw: Lowering, op, ptrs, values, mask, owner, registers, vec: int) -> list:
    """Hopper's vector atomic add: `vec` consecutive elements (16 bytes at most) by one
    `atom.global.add.noftz.v8.bf16` (`.v4.f32`...), each element added atomically on its own; one
    predicate guards the run, as coalescing chose the width so that the mask is equal over it."""
    dtype = op.operands[1].dtype
    half = "bf16" if dtype.is_bf16() else "f16"
    kind = f"noftz.v{vec}.{half}" if dtype.bits == 16 else f"v{vec}.f32"
    letter, word = ("h", i16) if dtype.bits == 16 else ("f", f32)
    out = []
    for start in range(0, len(ptrs), vec):
        pred = owner if mask is None else lw.b.and_(owner, mask[start])
        if start not in registers:
            pred = ll.Constant(i1, 0)
        operands = [lw.b.bitcast(v, i16) if dtype == ir.float16 else v for v in values[start:start + vec]]
        olds = ", ".join(f"${i}" for i in range(vec))
        news = ", ".join(f"${vec + 1 + i}" for i in range(vec))
        text = f"@${2 * vec + 1} {_atom(op)}.add.{kind} {{{olds}}}, [${vec}], {{{news}}};"
        # a run the predicate leaves out reads as zeros, as the one-element atom's does
        constraints = ",".join([f"={letter}"] * vec + ["l"] + [letter] * vec + ["b"]
                               + [str(i) for i in range(vec)])
        zeros = [ll.Constant(word, 0)] * vec
        result = lw.asm(ll.LiteralStructType([word] * vec), text, constraints,
                        [ptrs[start]] + operands + [pred] + zeros)
        for i in range(vec):
            old = lw.b.extract_value(result, i)
            out.append(lw.b.bitcast(old, ll_type(dtype)) if dtype == ir.float16 else old)
    return out
# --8<-- [end:vector-add]


def _share_results(lw: Lowering, op, registers: list) -> list:
    """Old values of an atomic are known in the owning thread; replicas read them from shared memory."""
    if "smem_offset" not in op.attrs:
        return registers
    return through_shared_from_owners(lw, op, registers)


def _float_minmax_atomic(lw: Lowering, op, kind: str, dtype: ir.DType, p, v, pred):
    """max on floats: signed-int max of the bits for values >= 0, unsigned-int min for negatives."""
    if dtype.bits not in (32, 64):
        raise NotImplementedError(f"atomic_{kind} on {dtype}")
    it = ll.IntType(dtype.bits)
    bits = lw.b.bitcast(v, it)
    nonneg = lw.b.icmp_signed(">=", bits, ll.Constant(it, 0))
    letter = _CONSTRAINT[dtype.bits]
    first, second = ("max.s", "min.u") if kind == "max" else ("min.s", "max.u")
    results = []
    for ops, cond in ((first, nonneg), (second, lw.b.not_(nonneg))):
        text = f"@$3 {_atom(op)}.{ops}{dtype.bits} $0, [$1], $2;"
        results.append(lw.asm(it, text, f"={letter},l,{letter},b,0",
                              [p, bits, lw.b.and_(pred, cond), ll.Constant(it, 0)]))
    return lw.b.bitcast(lw.b.select(nonneg, results[0], results[1]), ll_type(dtype))


def _add_by_compare_and_swap(lw: Lowering, op, p, v, pred):
    """A bf16 atomic add where PTX has none: read, add in f32, round, and `atom.cas.b16` the sum in
    if the element still holds what was read; else try again with what it holds now."""
    B = lw.b
    before = B.block
    start, loop, done = (B.append_basic_block(n) for n in ("cas.start", "cas.loop", "cas.done"))
    B.cbranch(pred, start, done)
    B.position_at_end(start)
    first = lw.asm(i16, "ld.volatile.global.b16 $0, [$1];", "=h,l", [p])
    B.branch(loop)
    B.position_at_end(loop)
    seen = B.phi(i16)
    seen.add_incoming(first, start)
    total = lw.from_f32(B.fadd(lw.to_f32(seen, ir.bfloat16), lw.to_f32(v, ir.bfloat16)), ir.bfloat16)
    held = lw.asm(i16, f"{_atom(op, cas=True)}.cas.b16 $0, [$1], $2, $3;", "=h,l,h,h", [p, seen, total])
    seen.add_incoming(held, loop)
    B.cbranch(B.icmp_unsigned("!=", held, seen), loop, done)
    B.position_at_end(done)
    old = B.phi(i16)
    old.add_incoming(ll.Constant(i16, 0), before)
    old.add_incoming(held, loop)
    return old


def _atomic_cas(lw: Lowering, op, ptrs, cmps, values):
    value = op.operands[2]
    dtype = value.dtype
    owner, registers = lw.owners(value)
    it = ll.IntType(max(dtype.bits, 16))
    letter = _CONSTRAINT[it.width]
    out = []
    for r, (p, c, v) in enumerate(zip(ptrs, cmps, values)):
        pred = owner if r in registers else ll.Constant(i1, 0)
        cb, vb = (lw.b.bitcast(x, it) if not isinstance(x.type, ll.IntType) else x for x in (c, v))
        text = f"@$4 {_atom(op, cas=True)}.cas.b{it.width} $0, [$1], $2, $3;"
        old = lw.asm(it, text, f"={letter},l,{letter},{letter},b,0", [p, cb, vb, pred, ll.Constant(it, 0)])
        out.append(old if isinstance(ll_type(dtype), ll.IntType) else lw.b.bitcast(old, ll_type(dtype)))
    return _share_results(lw, op, out)


RULES = {"load": _load, "store": _store, "atomic": _atomic, "atomic_cas": _atomic_cas}
