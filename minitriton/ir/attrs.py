"""The attributes: every key an op, a function or an argument carries, who writes it, who reads it.

An op's attributes are compile-time data. The frontend writes what the op means (the axis of a
reduction, a comparison's predicate); each pass after it writes what it decided (how wide a load
is, where a buffer sits in shared memory), and the passes after it, and codegen, read that. This
table is that protocol, written down: a pass that writes a new key adds its row, and a test checks
that every key a compiled kernel carries has one. The printer shows them all. Chapter: 03-tile-ir.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Attr:
    on: str  # which ops (or "function", "argument") carry it
    writer: str
    readers: str
    meaning: str


# --8<-- [start:attrs]
ATTRS = {
    # -- what an op means: written by the frontend (language/), read by every backend --
    "value": Attr("constant", "frontend", "all", "the constant's value"),
    "dtype": Attr("constant, cast, bitcast, extern_elementwise", "frontend", "all",
                  "the result's element type"),
    "symbol": Attr("extern_elementwise", "frontend (tl.extra.libdevice, tl.extern_elementwise)",
                   "interpreter, codegen",
                   "the library function called, e.g. __nv_sinf; 16-bit floats go through its "
                   "f32 version"),
    "libpath": Attr("extern_elementwise", "frontend (tl.extern_elementwise)", "codegen backend",
                    "a bitcode file to link that defines the symbol (libdevice needs none)"),
    "register": Attr("special_register", "frontend (tl.extra.cuda)", "all",
                     "which register: smid or globaltimer"),
    "control": Attr("griddepcontrol", "frontend (tl.extra.cuda)", "codegen",
                    "wait (for the grid this one depends on) or launch_dependents"),
    "axis": Attr("program_id, num_programs, expand_dims, reduce, scan, gather", "frontend", "all",
                 "which dimension (of the grid, for program_id)"),
    "bins": Attr("histogram", "frontend", "all", "how many bins (of width 1, from 0)"),
    "dtypes": Attr("inline_asm, map_elementwise", "frontend", "all", "each result's element type"),
    "pack": Attr("inline_asm, map_elementwise", "frontend", "all",
                 "elements of each operand one call takes"),
    "asm": Attr("inline_asm", "frontend", "codegen", "the PTX, with $0, $1... for registers"),
    "constraints": Attr("inline_asm", "frontend", "codegen", "LLVM's constraint string (=r,r,...)"),
    "pure": Attr("inline_asm", "frontend", "codegen", "the assembly has no side effect"),
    "start": Attr("arange", "frontend", "all", "the first value"),
    "end": Attr("arange", "frontend", "all", "one past the last value"),
    "shape": Attr("splat, broadcast, reshape", "frontend", "all", "the result's shape"),
    "perm": Attr("trans, async_load", "frontend", "all",
                 "result dimension d is operand dimension perm[d]"),
    "predicate": Attr("cmp", "frontend", "all", "lt, le, gt, ge, eq or ne"),
    "kind": Attr("reduce, scan, atomic", "frontend", "all",
                 "the combining operation (sum, max, combine...)"),
    "reverse": Attr("scan", "frontend", "all", "scan from the last element to the first"),
    "propagate_nan": Attr("minimum, maximum", "frontend", "all",
                          "a NaN operand gives NaN (else the other operand, IEEE's minNum/maxNum)"),
    "rounding": Attr("div, cast", "frontend (tl.div_rn, tl.cast)", "all",
                     "div: 'rn', the IEEE division, not the 2-ulp one; cast: 'rtz', a narrowing "
                     "float cast rounding toward zero (fp_downcast_rounding)"),
    "input_precision": Attr("dot", "frontend", "interpreter, codegen",
                            "tf32 (fp32 operands rounded to tf32 for the tensor cores) or ieee"),
    "sem": Attr("atomic, atomic_cas", "frontend", "codegen",
                "memory ordering: relaxed, acquire, release, acq_rel"),
    "scope": Attr("atomic, atomic_cas", "frontend", "codegen",
                  "who sees the effect: cta, gpu or sys"),
    "prefix": Attr("print", "frontend", "all", "text printed before each value"),
    "hex": Attr("print", "frontend", "all", "print the bit patterns"),
    "message": Attr("assert", "frontend", "all", "what a failed device assertion says"),
    "contiguity": Attr("hint", "frontend (tl.max_contiguous)", "coalesce",
                       "the author's promise, per dimension"),
    "divisibility": Attr("hint; argument", "frontend (tl.multiple_of; the specialization)",
                         "coalesce",
                         "every element (run start) is a multiple of this"),
    "constancy": Attr("hint", "frontend (tl.max_constancy)", "coalesce",
                      "runs of equal elements"),
    "descriptor": Attr("load", "frontend (desc.load)", "passes/pipeline",
                       "the host TensorDescriptor parameter read through; the operands after "
                       "`other` are the block's offsets, which a TMA copy takes"),
    "num_stages": Attr("for", "frontend (tl.range)", "passes/pipeline",
                       "this loop's pipeline depth"),
    # -- what the passes decide, in pipeline order --
    "vector": Attr("load, store, atomic", "passes/coalesce", "codegen/memory",
                   "elements per thread per access"),
    "contig_dim": Attr("load, store, atomic", "passes/coalesce", "codegen/memory",
                       "the dimension along which addresses are consecutive"),
    "num_warps": Attr("function", "passes/layout", "readers of the listing",
                      "the warps the layouts spread over"),
    "shared_buffers": Attr("function", "passes/pipeline", "passes/shared",
                           "each ring's name and its bytes"),
    "buffer": Attr("async_load, local_read, tma_load, mbarrier ops", "passes/pipeline",
                   "passes/shared, codegen/operands",
                   "the ring this op copies into or reads from"),
    "stage_bytes": Attr("async_load, local_read", "passes/pipeline", "codegen/operands",
                        "bytes of one stage of the ring"),
    "shared": Attr("async_load, local_read", "passes/pipeline", "codegen/operands",
                   "the layout of a stage's tile (swizzled, or wgmma's)"),
    "run": Attr("async_load, local_read", "passes/pipeline", "codegen/operands",
                "elements each cp.async copies"),
    "type": Attr("local_read", "passes/pipeline", "ir/ops", "the tile the read gives"),
    "pending": Attr("async_wait; dot", "passes/pipeline", "codegen/operands, codegen/dot",
                    "groups of copies (or of wgmma) left in flight when the wait returns"),
    "deferred": Attr("dot", "passes/pipeline", "codegen/dot",
                     "the wgmma's wait is a wgmma_wait at the next iteration's top (A in registers)"),
    "fence": Attr("async_wait", "passes/pipeline", "codegen/operands",
                  "tensor cores read the copies next"),
    "buffers": Attr("async_wait, wgmma_wait, mbarrier_inval", "passes/pipeline", "passes/shared",
                    "the rings whose last reads end here"),
    "tma": Attr("tma_load", "passes/pipeline", "codegen/tma",
                "the boxes a TMA copy is made of (`geometry.TmaCopies`)"),
    "tensormap": Attr("tma_load", "passes/pipeline", "codegen/tma",
                      "the descriptor parameter whose tensor map the copy reads"),
    "barriers": Attr("tma_load", "passes/pipeline", "codegen/tma",
                     "the mbarriers that count the bytes landing in each stage"),
    "count": Attr("mbarrier_init", "passes/pipeline", "codegen/tma", "how many mbarriers (stages)"),
    "bytes": Attr("mbarrier_expect", "passes/pipeline", "codegen/tma",
                  "the bytes one stage's TMA copies bring"),
    "mbarriers": Attr("function", "passes/pipeline", "passes/shared, codegen/tma",
                      "each loop's mbarriers: their buffer's name and how many"),
    "tensormaps": Attr("function", "passes/pipeline", "codegen, codegen backend",
                       "each descriptor parameter TMA copies read: what its tensor map holds"),
    "smem_offset": Attr("ops with a buffer", "passes/shared", "passes/barriers, codegen",
                        "where the op's buffer starts in shared memory (bytes)"),
    "smem_bytes": Attr("ops with a buffer", "passes/shared", "passes/barriers",
                       "the buffer's size"),
    "smem_reads": Attr("readers of a long-lived buffer", "passes/shared", "passes/barriers",
                       "bytes it reads besides its own buffer (a wgmma operand, a ring)"),
    "buffer_offsets": Attr("function", "passes/shared", "codegen/operands",
                           "where each ring starts"),
    "shared_bytes": Attr("function", "passes/shared", "codegen backend, driver",
                         "the kernel's dynamic shared memory"),
}
# --8<-- [end:attrs]
