"""The benchmarks bound by arithmetic: the tutorial matmul over sizes, shapes and dtypes (fp16,
bf16, IEEE fp32, TF32 and fp8 e4m3), and the grouped GEMM of tutorial 08, against cuBLAS.

Chapter: 10-performance.
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from typing import Callable

from .. import cdiv

from .harness import CUBLAS, TORCH, Candidate, Point, Session, element_strides
from .kernels import (FP8_MATMUL_CONFIGS, FP32_MATMUL_SIZE, GROUPED_CONFIGS, GROUPED_PRODUCTS, TF32_MATMUL_CONFIGS,
                      config_label, fp8_sizes, grouped_sizes, launch_options, matmul_configs, matmul_shapes,
                      matmul_sizes, tf32_sizes)


def matmul_launch(kernel, config: dict, precision: str | None) -> Callable:
    """`run(a, b, c)` for one compiler and one block configuration: C = A @ B, returns C."""
    meta, options = launch_options(config)

    def run(a, b, c):
        (M, K), N = a.shape, b.shape[1]
        grid = (cdiv(M, meta["BLOCK_SIZE_M"]) * cdiv(N, meta["BLOCK_SIZE_N"]),)
        kernel[grid](a, b, c, M, N, K, *element_strides(a), *element_strides(b), *element_strides(c),
                     INPUT_PRECISION=precision, **options, **meta)
        return c
    return run


@dataclass(frozen=True)
class MatmulCase:
    """One line of the matmul sweep: its name, its dtype (torch's name) and the dot's input
    precision, the block configurations both compilers try, and the (M, N, K) of each point."""

    name: str
    dtype: str
    precision: str | None
    configs: tuple[dict, ...]
    shapes: tuple[tuple[int, int, int], ...]
    tolerance: str  # the key of TOLERANCE its results are held to


# --8<-- [start:matmul-cases]
def matmul_cases(quick: bool) -> list[MatmulCase]:
    """fp16 and bf16 squares and skinny shapes (bf16's skinny ones not in a quick run), IEEE fp32
    at one size, TF32 and fp8 squares."""
    square, skinny = squares(matmul_sizes(quick)), tuple(matmul_shapes(quick))
    ieee, configs = squares([FP32_MATMUL_SIZE]), tuple(matmul_configs())
    cases = [MatmulCase("fp16", "float16", None, configs, square, "fp16"),
             MatmulCase("bf16", "bfloat16", None, configs, square, "bf16"),
             MatmulCase("fp16 skinny", "float16", None, configs, skinny, "fp16"),
             MatmulCase("bf16 skinny", "bfloat16", None, configs, skinny, "bf16"),
             MatmulCase("fp32 ieee", "float32", "ieee", configs, ieee, "fp32"),
             MatmulCase("fp32 tf32", "float32", "tf32", TF32_MATMUL_CONFIGS,
                        squares(tf32_sizes(quick)), "tf32"),
             MatmulCase("fp8e4m3", "float8_e4m3fn", None, FP8_MATMUL_CONFIGS,
                        squares(fp8_sizes(quick)), "fp8")]
    return [c for c in cases if not (quick and c.name == "bf16 skinny")]


def squares(sizes) -> tuple[tuple[int, int, int], ...]:
    return tuple((n, n, n) for n in sizes)
# --8<-- [end:matmul-cases]


def run_matmul(s: Session) -> None:
    torch = s.torch
    for case in matmul_cases(s.quick):
        dtype = getattr(torch, case.dtype)
        fp8 = dtype.itemsize == 1
        for M, N, K in case.shapes:
            point = Point("matmul", case.name, M if M == N == K else f"{M}x{N}x{K}", case.tolerance, "TFLOP/s")

            def fresh():
                a = torch.randn(M, K, device="cuda").to(dtype)
                # fp8: B column-major (K fastest), as cuBLAS's fp8 GEMM needs and Triton's tutorial makes it
                b = (torch.randn(N, K, device="cuda").to(dtype).t() if fp8 else
                     torch.randn(K, N, device="cuda").to(dtype))
                c = torch.full((M, N), math.nan, device="cuda", dtype=torch.float16 if fp8 else dtype)
                return a, b, c

            def reference(a, b, c):
                return a.double() @ b.double()

            flops = 2 * M * N * K
            with fp32_matmul_precision(torch, "tf32" if case.precision == "tf32" else "ieee"):
                s.measure(point, [*(Candidate(name, matmul_launch(kernels["matmul"], config, case.precision),
                                              reference, flops, note=config_label(config))
                                    for name, kernels in s.kernels().items() for config in case.configs),
                                  Candidate(CUBLAS, cublas(torch, fp8), reference, flops)],
                          fresh)


def cublas(torch, fp8: bool) -> Callable:
    """torch.matmul; for fp8, torch._scaled_mm with unit scales and fp16 output, accumulating in
    the tensor cores as Triton's fp8 dot does (its fast accumulation)."""
    if not fp8:
        return lambda a, b, c: torch.matmul(a, b)
    one = torch.ones((), device="cuda", dtype=torch.float32)

    def scaled_mm(a, b, c):
        result = torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.float16, use_fast_accum=True)
        return result[0] if isinstance(result, tuple) else result  # torch before 2.5 also returned amax
    return scaled_mm


def set_fp32_matmul_precision(torch, precision: str) -> None:
    """cuBLAS multiplies fp32 matrices in full precision ("ieee") or on TF32 tensor cores ("tf32")
    from now on. torch 2.9 and later have a new switch, and refuse a mix of the new and the old."""
    matmul = torch.backends.cuda.matmul
    if hasattr(matmul, "fp32_precision"):
        matmul.fp32_precision = precision
    else:
        matmul.allow_tf32 = precision == "tf32"


@contextlib.contextmanager
def fp32_matmul_precision(torch, precision: str):
    """`precision` for cuBLAS's fp32 matmuls inside, "ieee" (the benchmarks' setting) after."""
    set_fp32_matmul_precision(torch, precision)
    try:
        yield
    finally:
        set_fp32_matmul_precision(torch, "ieee")


# ----------------------------------------------------------------------------- grouped GEMM

def run_grouped_gemm(s: Session) -> None:
    """GROUPED_PRODUCTS fp16 products N x N x N in one launch of a persistent grid (one program an
    SM, as tutorial 08 launches it), against torch.matmul called once per product."""
    torch = s.torch
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for n in grouped_sizes(s.quick):
        point = Point("grouped_gemm", f"fp16, {GROUPED_PRODUCTS} products", n, "fp16", "TFLOP/s")

        def fresh():
            a, b = ([torch.randn(n, n, device="cuda", dtype=torch.float16) for _ in range(GROUPED_PRODUCTS)]
                    for _ in range(2))
            c = [torch.full((n, n), math.nan, device="cuda", dtype=torch.float16) for _ in range(GROUPED_PRODUCTS)]
            return a, b, c, *pointer_tables(torch, a, b, c)

        def reference(a, b, c, *tables):
            return tuple(x.double() @ y.double() for x, y in zip(a, b))

        def one_by_one(a, b, c, *tables):
            return tuple(torch.matmul(x, y, out=z) for x, y, z in zip(a, b, c))

        flops = 2 * GROUPED_PRODUCTS * n**3
        s.measure(point, [*(Candidate(name, grouped_launch(kernels["grouped_matmul"], config, sms), reference, flops,
                                      note=config_label(config))
                            for name, kernels in s.kernels().items() for config in GROUPED_CONFIGS),
                          Candidate(TORCH, one_by_one, reference, flops)],
                  fresh)


def grouped_launch(kernel, config: dict, programs: int) -> Callable:
    """`run(a, b, c, *tables)` for one compiler and one block configuration, on `programs`
    programs; returns the Cs."""
    meta, options = launch_options(config)

    def run(a, b, c, a_table, b_table, c_table, sizes, leading):
        kernel[(programs,)](a_table, b_table, c_table, sizes, leading, len(a), NUM_PROGRAMS=programs, **options,
                            **meta)
        return tuple(c)
    return run


def pointer_tables(torch, a: list, b: list, c: list) -> tuple:
    """The tables the grouped kernel reads: the addresses of each product's A, B and C (int64),
    its (M, N, K) and the row strides of its A, B and C (int32)."""
    addresses = [torch.tensor([x.data_ptr() for x in group], device="cuda", dtype=torch.int64) for group in (a, b, c)]
    sizes = [[x.shape[0], y.shape[1], x.shape[1]] for x, y in zip(a, b)]
    leading = [[x.stride(0), y.stride(0), z.stride(0)] for x, y, z in zip(a, b, c)]
    return (*addresses, *(torch.tensor(t, device="cuda", dtype=torch.int32).reshape(-1) for t in (sizes, leading)))
