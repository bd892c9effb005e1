"""The author's own code, element by element: inline PTX (`inline_asm`) and a mapped scalar
function (`map_elementwise`).

Both take `pack` registers of each operand at a time (a thread's registers in order; the last
group padded when the count is not a multiple of pack). `inline_asm` packs operands and results
narrower than 32 bits into 32-bit registers as vectors, as Triton does, and emits the author's
assembly with LLVM's constraint string; it has a side effect unless the author says it is pure.
`map_elementwise` lowers its region, a scalar function, once per group: each thread branches on
its own elements. Chapter: 08-llvm.
"""
from __future__ import annotations

from llvmlite import ir as ll

from .. import ir
from .lowering import Lowering, i32, ll_type


def _groups(lw: Lowering, op, operands: list[list], pad) -> tuple[int, list[list]]:
    """The register count of the results, and each operand's registers padded to whole packs."""
    pack = op.attrs["pack"]
    count = lw.n_regs(op.results[0])
    return count, [regs + [pad(regs)] * (-len(regs) % pack) for regs in operands]


def _per_register(dtype: ir.DType, pack: int) -> int:
    """How many elements of `dtype` share one 32-bit register (1 for 32 bits and more)."""
    return min(32 // dtype.bits if dtype.bits < 32 else 1, pack)


# --8<-- [start:inline-asm]
def _packed(B: ll.IRBuilder, registers: list):
    """One register, or several narrow ones as the vector that shares a 32-bit register."""
    if len(registers) == 1:
        return registers[0]
    vector = ll.Constant(ll.VectorType(registers[0].type, len(registers)), ll.Undefined)
    for k, register in enumerate(registers):
        vector = B.insert_element(vector, register, ll.Constant(i32, k))
    return vector


def _inline_asm(lw: Lowering, op, *operands):
    B, pack = lw.b, op.attrs["pack"]
    count, padded = _groups(lw, op, list(operands), lambda regs: ll.Constant(regs[0].type, ll.Undefined))
    returned = []  # the asm's results: (type, elements it holds, which result), results in turn
    for which, dtype in enumerate(op.attrs["dtypes"]):
        n = _per_register(dtype, pack)
        returned += [(ll.VectorType(ll_type(dtype), n) if n > 1 else ll_type(dtype), n,
                      which)] * (pack // n)
    ret = returned[0][0] if len(returned) == 1 else ll.LiteralStructType([t for t, _, _ in returned])
    outs = [[] for _ in op.results]
    for g in range(0, count, pack):
        args = []
        for regs, v in zip(padded, op.operands):
            n = _per_register(v.dtype, pack)
            args += [_packed(B, regs[j:j + n]) for j in range(g, g + pack, n)]
        result = lw.asm(ret, op.attrs["asm"], op.attrs["constraints"], args,
                        side_effect=not op.attrs["pure"])
        for i, (_, n, which) in enumerate(returned):
            value = result if len(returned) == 1 else B.extract_value(result, i)
            outs[which] += [B.extract_element(value, ll.Constant(i32, k))
                            for k in range(n)] if n > 1 else [value]
    results = [out[:count] for out in outs]
    return results if len(results) > 1 else results[0]
# --8<-- [end:inline-asm]


# --8<-- [start:map]
def _map_elementwise(lw: Lowering, op, *operands):
    """The region once per group of `pack` registers (padded with a repeat of the last one)."""
    pack, region = op.attrs["pack"], op.regions[0]
    count, padded = _groups(lw, op, list(operands), lambda regs: regs[-1])
    body = ir.Block(region.args, region.ops[:-1])
    outs = [[] for _ in op.results]
    for g in range(0, count, pack):
        for arg, value in zip(region.args, [regs[g + k] for regs in padded for k in range(pack)]):
            lw.set(arg, [value])
        lw.block(body)
        values = [lw.get(v)[0] for v in region.ops[-1].operands]
        for i, out in enumerate(outs):
            out += values[i * pack:(i + 1) * pack]
    results = [out[:count] for out in outs]
    return results if len(results) > 1 else results[0]
# --8<-- [end:map]


RULES = {"inline_asm": _inline_asm, "map_elementwise": _map_elementwise}
