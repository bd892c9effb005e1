"""What the benchmarks run: the sizes, the block configurations, and each kernel's Triton twin.

minitriton's kernels are the tutorials' (`examples/tutorials.py`); Triton runs the very same kernel
sources: `twin()` compiles each minitriton kernel's own lines again with `triton.jit`.
Chapter: 10-performance.
"""
from __future__ import annotations

import ast
import functools
import re
import textwrap
from typing import Any, Callable

from ..examples import tutorials
from ..jit import JITFunction

ADD_BLOCK = 1024
SOFTMAX_ROWS = 4096
FP32_MATMUL_SIZE = 4096
LAUNCH_BATCH, LAUNCH_ROUNDS = 100, 200  # 20,000 launches, the GPU drained between batches
LAUNCH_ELEMENTS = 1024  # one program of ADD_BLOCK: the launch, not the kernel, is what costs


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


def matmul_sizes(quick: bool) -> list[int]:
    """M = N = K (quick: 1024, 4096, 8192)."""
    return [1024, 4096, 8192] if quick else [512, 1024, 2048, 3072, 4096, 6144, 8192]
# --8<-- [end:sizes]


def softmax_warps(row_bytes: int) -> int:
    """A warp for each KB of the row (32 bytes a thread), at least 4 and at most 16. Both compilers
    get the same: fp16 rows of 4096 ran at 2980 GB/s with 8 warps and 2430 with 16 on the H200, where
    each thread had a single 16-byte load and the reductions crossed twice as many warps."""
    return min(16, max(4, row_bytes // 1024))


DEFAULT_MATMUL_CONFIGS = (
    {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "num_warps": 8,
     "num_stages": 3},
    {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "num_warps": 4,
     "num_stages": 3},
)


def matmul_configs() -> list[dict]:
    """The block configurations both compilers run: `MATMUL_CONFIGS` from the tutorials when they
    define it (dicts, or Config objects), else two of the usual ones."""
    return [config_dict(c) for c in getattr(tutorials, "MATMUL_CONFIGS", None) or DEFAULT_MATMUL_CONFIGS]


def config_dict(config) -> dict:
    """A config as one dict of meta-parameters plus num_warps and num_stages."""
    if isinstance(config, dict):
        return {"num_warps": 4, "num_stages": 3, **config}
    return {**config.kwargs, "num_warps": config.num_warps or 4, "num_stages": config.num_stages or 3}


def config_label(config: dict) -> str:
    """`128x128x32 w8 s3`: the block shape, warps and stages."""
    return (f"{config['BLOCK_SIZE_M']}x{config['BLOCK_SIZE_N']}x{config['BLOCK_SIZE_K']} "
            f"w{config['num_warps']} s{config['num_stages']}")


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
    return {"add": tutorials.add_kernel, "softmax": tutorials.softmax_kernel, "matmul": matmul_kernel}


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


