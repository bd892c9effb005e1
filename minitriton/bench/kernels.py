"""What the benchmarks run: the sizes, the block configurations, and each kernel's Triton twin.

minitriton's kernels are the tutorials' (`examples/tutorials.py`) and the examples written in their
style (`examples/`: fused attention, layer norm backward, RMSNorm, grouped GEMM); Triton runs the
very same kernel sources: `twin()` compiles each minitriton kernel's own lines again with
`triton.jit`. Chapter: 10-performance.
"""
from __future__ import annotations

import ast
import functools
import re
import textwrap
from typing import Any, Callable

from ..examples import fused_attention, grouped_gemm, layer_norm, rms_norm, tutorials
from ..jit import JITFunction

ADD_BLOCK = 1024
SOFTMAX_ROWS = 4096
NORM_ROWS = 4096  # the rows of layer norm and RMSNorm, as in the layer norm tutorial
FP32_MATMUL_SIZE = 4096
LAUNCH_BATCH, LAUNCH_ROUNDS = 100, 200  # 20,000 launches, the GPU drained between batches
LAUNCH_ELEMENTS = 1024  # one program of ADD_BLOCK: the launch, not the kernel, is what costs
COMPILE_SIZE = 512  # M = N = K of the launch that compiles the matmul: divisible by 16, as every matmul size
# Attention keeps the batch's tokens (batch x N) and the model's width (heads x head dim) fixed as
# N and the head dim change, as FlashAttention's own benchmarks do: every point does the same
# work per token, and N = 16384 is one sequence of 16 or 32 heads.
ATTENTION_TOKENS, ATTENTION_WIDTH = 16384, 2048
GROUPED_PRODUCTS = 4  # grouped GEMM: this many N x N x N products in one launch, as in tutorial 08


# --8<-- [start:sizes]
def vector_add_sizes(quick: bool) -> list[int]:
    """Elements per vector: every power of two from 2^12 to 2^28 (quick: 2^20, 2^24, 2^28)."""
    return [2**20, 2**24, 2**28] if quick else [2**e for e in range(12, 29)]


def softmax_columns(quick: bool) -> list[int]:
    """Row lengths: powers of two from 256 to 16384 and the sizes halfway between them, which
    leave part of each block masked (quick: 1024, 4096, 16384)."""
    if quick:
        return [1024, 4096, 16384]
    return sorted({256 << e for e in range(7)} | {384 << e for e in range(6)})


def norm_columns(quick: bool) -> list[int]:
    """Row lengths of the norms: 1024 to 16384, powers of two and halfway between (quick: 1024,
    4096, 16384)."""
    if quick:
        return [1024, 4096, 16384]
    return sorted({1024 << e for e in range(5)} | {1536 << e for e in range(4)})


def matmul_sizes(quick: bool) -> list[int]:
    """M = N = K (quick: 1024, 4096, 8192)."""
    return [1024, 4096, 8192] if quick else [512, 1024, 2048, 3072, 4096, 6144, 8192]


def matmul_shapes(quick: bool) -> list[tuple[int, int, int]]:
    """Skinny (M, N, K): a short K; 16 and 128 rows (a decode step's tokens, a small batch's);
    a long K (quick: the first three)."""
    shapes = [(8192, 8192, 512), (16, 8192, 8192), (128, 8192, 8192), (4096, 4096, 16384)]
    return shapes[:3] if quick else shapes


def tf32_sizes(quick: bool) -> list[int]:
    """M = N = K of fp32 with input_precision "tf32" (quick: 4096)."""
    return [4096] if quick else [1024, 2048, 4096, 8192]


def fp8_sizes(quick: bool) -> list[int]:
    """M = N = K of fp8 e4m3 (quick: 4096, 8192)."""
    return [4096, 8192] if quick else [1024, 2048, 4096, 8192]


def grouped_sizes(quick: bool) -> list[int]:
    """N of the GROUPED_PRODUCTS products N x N x N of one grouped GEMM (quick: 512, 2048)."""
    return [512, 2048] if quick else [256, 512, 1024, 2048, 4096]


def attention_lengths(quick: bool) -> list[int]:
    """Sequence lengths N (quick: 1024, 4096, 16384)."""
    return [1024, 4096, 16384] if quick else [1024 << e for e in range(5)]
# --8<-- [end:sizes]


def row_warps(row_bytes: int) -> int:
    """Warps for a kernel that holds a row in one block (softmax, the norms): a warp for each KB
    of the row (32 bytes a thread), at least 4 and at most 16. Both compilers get the same: fp16
    softmax rows of 4096 ran at 2980 GB/s with 8 warps and 2430 with 16 on the H200, where each
    thread had a single 16-byte load and the reductions crossed twice as many warps."""
    return min(16, max(4, row_bytes // 1024))


def norm_groups(columns: int) -> int:
    """The partial rows (and locks) of layer norm's backward: more for short rows, whose programs
    are many and quick, so fewer of them wait for one lock (the layer norm tutorial's rule)."""
    return 256 if columns <= 1024 else 128 if columns <= 4096 else 96 if columns <= 8192 else 64


def matmul_config(m: int, n: int, k: int, warps: int, stages: int) -> dict:
    return {"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "GROUP_SIZE_M": 8, "num_warps": warps,
            "num_stages": stages}


DEFAULT_MATMUL_CONFIGS = (matmul_config(128, 128, 32, 8, 3), matmul_config(64, 64, 32, 4, 3))
# fp32 (tf32) and fp8 tiles of 128 bytes of K, sized so that both compilers' rings fit in 227 KB
TF32_MATMUL_CONFIGS = (matmul_config(128, 256, 32, 8, 3), matmul_config(256, 128, 32, 8, 3),
                       matmul_config(128, 128, 32, 8, 4), matmul_config(64, 128, 32, 4, 4))
FP8_MATMUL_CONFIGS = (matmul_config(128, 256, 128, 8, 3), matmul_config(128, 128, 128, 8, 3),
                      matmul_config(128, 128, 64, 4, 4))
GROUPED_CONFIGS = ({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "num_warps": 4, "num_stages": 3},
                   {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "num_warps": 8, "num_stages": 3})
# By head dim: tutorial 06's usual tiles on Hopper, which fit sm_90's shared memory in both compilers
# (a test compiles each); BLOCK_M is a multiple of BLOCK_N, as the kernel's causal walks need.
ATTENTION_CONFIGS = {
    64: ({"BLOCK_M": 128, "BLOCK_N": 128, "num_warps": 8, "num_stages": 3},
         {"BLOCK_M": 128, "BLOCK_N": 64, "num_warps": 4, "num_stages": 3}),
    128: ({"BLOCK_M": 128, "BLOCK_N": 64, "num_warps": 8, "num_stages": 3},
          {"BLOCK_M": 128, "BLOCK_N": 128, "num_warps": 8, "num_stages": 2}),
}


def matmul_configs() -> list[dict]:
    """The block configurations both compilers run for fp16, bf16 and IEEE fp32: `MATMUL_CONFIGS`
    from the tutorials when they define it (dicts, or Config objects), else two of the usual ones."""
    return [config_dict(c) for c in getattr(tutorials, "MATMUL_CONFIGS", None) or DEFAULT_MATMUL_CONFIGS]


def config_dict(config) -> dict:
    """A config as one dict of meta-parameters plus num_warps and num_stages."""
    if isinstance(config, dict):
        return {"num_warps": 4, "num_stages": 3, **config}
    return {**config.kwargs, "num_warps": config.num_warps or 4, "num_stages": config.num_stages or 3}


def config_label(config: dict) -> str:
    """`128x128x32 w8 s3`: the block shape (the BLOCK_* meta-parameters in order), warps and stages."""
    blocks = "x".join(str(v) for k, v in config.items() if k.startswith("BLOCK"))
    return f"{blocks} w{config['num_warps']} s{config['num_stages']}"


def launch_options(config: dict) -> tuple[dict, dict]:
    """A config split into its meta-parameters and its launch options (num_warps, num_stages)."""
    options = {k: config[k] for k in ("num_warps", "num_stages")}
    return {k: v for k, v in config.items() if k not in options}, options


# ----------------------------------------------------------------------------- the same kernels for Triton

# --8<-- [start:twin]
def twin(kernel: JITFunction, jit: Callable, namespace: dict) -> Any:
    """`kernel`'s own source lines, compiled again by another `jit` (Triton's), with `namespace` as
    their globals (`tl`, and the twins of the @jit functions the kernel calls).

    The decorators are dropped and the code keeps the file name and line numbers of the original,
    so the other compiler reads the very lines minitriton read, and its errors point at them."""
    source = textwrap.dedent(kernel.src)
    start = re.search(r"^def\s", source, re.MULTILINE).start()
    first_line = kernel.fn.__code__.co_firstlineno + source[:start].count("\n")
    code = compile("\n" * (first_line - 1) + source[start:], kernel.fn.__code__.co_filename, "exec")
    scope = {"__name__": f"{__name__}.twins", **namespace}
    exec(code, scope)
    return jit(scope[kernel.fn.__name__])
# --8<-- [end:twin]


matmul_kernel = tutorials.matmul_kernel  # the tutorial's, with its INPUT_PRECISION and ACTIVATION=""


def minitriton_kernels() -> dict[str, JITFunction]:
    """The kernels by role."""
    return {"add": tutorials.add_kernel, "softmax": tutorials.softmax_kernel, "matmul": matmul_kernel,
            "attention": fused_attention.fused_attention_fwd_kernel,
            "layer_norm_fwd": tutorials._layer_norm_fwd_fused,
            "layer_norm_bwd_dx": layer_norm.layer_norm_bwd_dx_kernel,
            "layer_norm_bwd_dwdb": layer_norm.layer_norm_bwd_dwdb_kernel,
            "rms_norm_fwd": rms_norm.rms_norm_fwd_kernel, "rms_norm_bwd": rms_norm.rms_norm_bwd_kernel,
            "column_sum": rms_norm.column_sum_kernel, "grouped_matmul": grouped_gemm.grouped_matmul_kernel}


@functools.cache
def triton_kernels() -> dict[str, Any] | None:
    """The twins of `minitriton_kernels()` under triton 3.x, or None (after a note) without triton."""
    try:
        import triton
        import triton.language as triton_language
    except Exception as e:  # missing, or installed without what it needs: either way, no column
        print(f"note: triton cannot be imported here ({type(e).__name__}: {e}); its columns are left out",
              flush=True)
        return None
    return {name: twin(kernel, triton.jit, twin_namespace(kernel, triton.jit, triton_language))
            for name, kernel in minitriton_kernels().items()}


def twin_namespace(kernel: JITFunction, jit: Callable, language) -> dict:
    """The globals of `kernel`'s twin: `tl` (the other compiler's language) and the twins of the
    @jit functions the kernel names (the tutorial matmul's `leaky_relu`)."""
    namespace = {"tl": language}
    for node in ast.walk(kernel.parsed.tree):
        value = kernel.parsed.globals.get(node.id) if isinstance(node, ast.Name) else None
        if isinstance(value, JITFunction) and value is not kernel:
            namespace[node.id] = twin(value, jit, twin_namespace(value, jit, language))
    return namespace


