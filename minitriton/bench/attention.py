"""The attention benchmark: the fused attention forward (`examples/fused_attention.py`) against
`torch.nn.functional.scaled_dot_product_attention` under each of its backends that runs here
(FlashAttention, cuDNN, memory-efficient), in fp16 and bf16, head dims 64 and 128, causal or not.

A point's inputs are made once and its float64 truth computed once (a block of queries at a time),
so that the check of seven implementations does not cost seven references; every implementation
writes into a NaN-poisoned output or its own. Rates are TFLOP/s of 4 B H N^2 D flops (the two
products), half that when causal. Chapter: 10-performance.
"""
from __future__ import annotations

import math
import warnings
from typing import Callable

from .. import cdiv

from .harness import SDPA, Candidate, Point, Session, element_strides, progress
from .kernels import (ATTENTION_CONFIGS, ATTENTION_TOKENS, ATTENTION_WIDTH, attention_lengths, config_label,
                      launch_options)

SDPA_BACKENDS = dict(zip(SDPA, ("FLASH_ATTENTION", "CUDNN_ATTENTION", "EFFICIENT_ATTENTION")))
TRUTH_SCORES = 1 << 25  # float64 scores the reference holds at once (256 MB)


def run_attention(s: Session) -> None:
    torch = s.torch
    for dtype_name in ("fp16", "bf16"):
        dtype = torch.float16 if dtype_name == "fp16" else torch.bfloat16
        for head_dim in (64, 128):
            for causal in (False, True):
                case = f"{dtype_name} D={head_dim}{' causal' if causal else ''}"
                backends = sdpa_backends(torch, dtype, head_dim, causal, case)
                for n in attention_lengths(s.quick):
                    batch, heads = ATTENTION_TOKENS // n, ATTENTION_WIDTH // head_dim
                    q, k, v = (torch.randn(batch, heads, n, head_dim, device="cuda", dtype=dtype) for _ in range(3))
                    truth = attention_truth(torch, q, k, v, causal)
                    flops = 4 * batch * heads * n * n * head_dim // (2 if causal else 1)
                    same = lambda *args: truth
                    s.measure(Point("attention", case, n, dtype_name, "TFLOP/s"),
                              [*(Candidate(name, attention_launch(torch, kernels["attention"], config, causal), same,
                                           flops, note=config_label(config))
                                 for name, kernels in s.kernels().items() for config in ATTENTION_CONFIGS[head_dim]),
                               *(Candidate(name, sdpa(torch, backend, causal), same, flops)
                                 for name, backend in backends.items())],
                              lambda: (q, k, v, torch.full_like(q, math.nan)))


def attention_launch(torch, kernel, config: dict, causal: bool) -> Callable:
    """`run(q, k, v, o)` for one compiler and one block configuration; returns o."""
    meta, options = launch_options(config)

    def run(q, k, v, o):
        batch, heads, n, head_dim = q.shape
        lse = torch.empty((batch, heads, n), device="cuda", dtype=torch.float32)
        kernel[(cdiv(n, meta["BLOCK_M"]), batch * heads)](q, k, v, o, lse, 1 / math.sqrt(head_dim), *element_strides(q),
                                                          heads, n, HEAD_DIM=head_dim, CAUSAL=causal, **options,
                                                          **meta)
        return o
    return run


def sdpa(torch, backend, causal: bool) -> Callable:
    """`run(q, k, v, o)`: torch's attention under one backend (its own output; o is not used)."""
    from torch.nn.attention import sdpa_kernel

    def run(q, k, v, o):
        with sdpa_kernel(backend):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return run


def sdpa_backends(torch, dtype, head_dim: int, causal: bool, case: str) -> dict:
    """The SDPA backends that take these inputs on this GPU, by column name; a note for each one
    that does not (its column stays empty: that is torch's choice, not a failure)."""
    from torch.nn.attention import SDPBackend
    q = torch.randn(1, 1, 256, head_dim, device="cuda", dtype=dtype)
    found = {}
    for name, backend_name in SDPA_BACKENDS.items():
        backend = getattr(SDPBackend, backend_name, None)
        if backend is None:
            progress(f"attention {case}: this torch has no {backend_name} backend")
            continue
        try:
            with warnings.catch_warnings():  # torch warns of each reason a backend declines, then raises
                warnings.simplefilter("ignore")
                sdpa(torch, backend, causal)(q, q, q, None)
            torch.cuda.synchronize()
            found[name] = backend
        except RuntimeError as e:
            progress(f"attention {case}: {name} does not run here ({(str(e).strip().splitlines() or [''])[0][:120]})")
    return found


def attention_truth(torch, q, k, v, causal: bool):
    """softmax(Q K^T / sqrt(D)) V in float64, TRUTH_SCORES scores at a time: at N = 16384 the whole
    matrix of scores of one head alone takes 2 GB."""
    batch, heads, n, head_dim = q.shape
    k64, v64 = k.double().transpose(-1, -2), v.double()
    out = torch.empty(q.shape, device="cuda", dtype=torch.float64)
    step = max(1, TRUTH_SCORES // (batch * heads * n))
    keys = torch.arange(n, device="cuda")
    for start in range(0, n, step):
        scores = q[:, :, start:start + step].double() @ k64 / math.sqrt(head_dim)
        if causal:
            queries = torch.arange(start, min(start + step, n), device="cuda")
            scores.masked_fill_(keys[None, :] > queries[:, None], -math.inf)
        out[:, :, start:start + step] = torch.softmax(scores, dim=-1) @ v64
    return out
