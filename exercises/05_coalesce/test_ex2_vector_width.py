"""Tests for exercise 5.2: run with `make exercise CH=5 EX=2`."""
import re
from collections import Counter

import numpy as np
import pytest
from _impl import load

import minitriton as triton
import minitriton.language as tl
from minitriton import exercise_hooks

from minitriton.examples.tutorials import add_kernel, matmul_kernel
from minitriton.frontend import generate
from minitriton.specialize import arg_spec, specialize
from minitriton.passes.coalesce import AxisAnalysis, coalesce
from minitriton.passes.simplify import simplify

impl = load("05_coalesce/ex2_vector_width")


@pytest.mark.parametrize("facts, expected", [
    ((1024, 16, 16, 4, 1024, 4), 4),     # aligned fp32 vector add: 16 bytes
    ((1024, 16, 16, 2, 1024, 4), 8),     # fp16: eight in 16 bytes
    ((1024, 16, None, 8, 1024, 4), 2),   # fp64, no mask
    ((1024, 4, 16, 4, 1024, 4), 1),      # a pointer 4 bytes past a 16-byte boundary
    ((1024, 16, 1, 4, 1024, 4), 1),      # n not a multiple of 16: the mask may change anywhere
    ((1024, 16, 16, 4, 256, 4), 2),      # 256 elements over 128 threads: two each
    ((1024, 16, 16, 4, 64, 4), 1),       # fewer elements than threads
    ((2, 16, None, 4, 4096, 1), 2),      # runs of 2 consecutive addresses
    ((4096, 64, None, 1, 4096, 4), 16),  # int8: sixteen in 16 bytes
    ((4096, 8, None, 1, 4096, 4), 8),    # ...but only 8-byte alignment
], ids=str)
def test_the_limits(facts, expected):
    assert impl.vector_width(*facts) == expected


def test_a_limit_that_is_not_a_power_of_two():
    assert impl.vector_width(12, 48, None, 4, 4096, 4) == 4  # 12 consecutive, 48-byte aligned: 4


def aligned(n: int, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    raw = np.zeros(n * dtype.itemsize + 64, np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start:start + n * dtype.itemsize].view(dtype)


def tile_ir(kernel, *args, **constexprs):
    bound = kernel.bind(args, constexprs)
    specs = {n: arg_spec(specialize(n, v)) for n, v in bound.items() if n not in kernel.constexpr_names}
    return simplify(generate(kernel, specs, {n: v for n, v in bound.items() if n in kernel.constexpr_names}))


@pytest.mark.parametrize("kernel, args, constexprs", [
    (add_kernel, (aligned(1, np.float32),) * 3 + (98_304,), dict(BLOCK_SIZE=1024)),
    (add_kernel, (aligned(1, np.float32),) * 3 + (98_437,), dict(BLOCK_SIZE=1024)),
    (add_kernel, (aligned(1, np.float16),) * 3 + (4096,), dict(BLOCK_SIZE=256)),
    (matmul_kernel, (aligned(1, np.float16),) * 3 + (512, 512, 512, 512, 1, 512, 1, 512, 1),
     dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="")),
], ids=["add-aligned", "add-odd-n", "add-fp16", "matmul"])
def test_what_the_compiler_decides(kernel, args, constexprs):
    """Your width, from the facts the analysis found, is the one coalescing wrote on each access."""
    fn = tile_ir(kernel, *args, **constexprs)
    facts = AxisAnalysis(fn)
    coalesce(fn, 4)
    for op in fn.walk():
        if op.name not in ("load", "store") or not op.operands[0].type.is_tile:
            continue
        ptr, dim = op.operands[0], op.attrs["contig_dim"]
        masked = len(op.operands) > (1 if op.name == "load" else 2)
        mask = op.operands[1 if op.name == "load" else 2] if masked else None
        width = impl.vector_width(facts[ptr].contiguity[dim], facts[ptr].divisibility[dim],
                                  facts[mask].constancy[dim] if mask is not None else None,
                                  ptr.dtype.pointee.itemsize, ptr.type.numel, 4)
        assert width == op.attrs["vector"], f"{op.name} of {ptr.type}"


# Exercise mode: your `vector_width` decides every access of real kernels, down to the PTX.

@triton.jit
def every_nth(x_ptr, out_ptr, STRIDE: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets * STRIDE))


def accesses(ptx: str) -> dict[str, int]:
    """How many global loads and stores of each width the PTX has: {"ld.global.v4.b32": 1, ...}."""
    return dict(Counter(re.findall(r"\b(?:ld|st)\.global(?:\.v[248])?\.b\d+", ptx)))


def ptx_with(vector_width, kernel, *args, **constexprs) -> str:
    """The kernel's PTX for sm_90, compiled with `vector_width` deciding every access."""
    with exercise_hooks.use({"coalesce.vector_width": vector_width}):
        return kernel.warmup(*args, target="sm_90", **constexprs).asm["ptx"]


f32 = aligned(1, np.float32)
LAUNCHES = {
    "add, n a multiple of 16": (add_kernel, (f32, f32, f32, 98_304), dict(BLOCK_SIZE=1024)),
    "add, n odd": (add_kernel, (f32, f32, f32, 98_437), dict(BLOCK_SIZE=1024)),
    "add, y 4 bytes past 16": (add_kernel, (f32, aligned(2, np.float32)[1:], f32, 98_304), dict(BLOCK_SIZE=1024)),
    "add, fp16": (add_kernel, (aligned(1, np.float16),) * 3 + (4096,), dict(BLOCK_SIZE=256)),
    "every element": (every_nth, (f32, f32), dict(STRIDE=1, BLOCK=512)),
    "every other element": (every_nth, (f32, f32), dict(STRIDE=2, BLOCK=512)),
}


@pytest.mark.parametrize("name", list(LAUNCHES))
def test_your_width_compiles_the_kernel_the_compiler_does(name):
    kernel, args, constexprs = LAUNCHES[name]
    yours = ptx_with(impl.vector_width, kernel, *args, **constexprs)
    compilers = kernel.warmup(*args, target="sm_90", **constexprs).asm["ptx"]
    assert accesses(yours) == accesses(compilers), "your widths give other loads and stores than the compiler's"
    assert yours == compilers


def test_a_contiguous_load_is_one_16_byte_access_a_strided_one_is_not():
    contiguous = accesses(ptx_with(impl.vector_width, every_nth, f32, f32, STRIDE=1, BLOCK=512))
    strided = accesses(ptx_with(impl.vector_width, every_nth, f32, f32, STRIDE=2, BLOCK=512))
    assert contiguous == {"ld.global.v4.b32": 1, "st.global.v4.b32": 1}, contiguous
    assert "ld.global.v4.b32" not in strided and strided.get("ld.global.b32") == 4, strided
