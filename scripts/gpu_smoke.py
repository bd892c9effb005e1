"""Run the tutorial kernels compiled on the GPU against torch, with a short table (developer smoke test)."""
import sys
import time
import traceback

import torch

import minitriton as triton
from minitriton.examples.tutorials import (_layer_norm_fwd_fused, _seeded_dropout, add_kernel, matmul_kernel,
                                           softmax_kernel)

torch.manual_seed(0)
dev = "cuda"
rows = []


def check(name, fn):
    try:
        t = time.time()
        err = fn()
        rows.append((name, f"{err:.2e}", "ok" if err < 1e-2 else "WRONG", f"{time.time() - t:.2f}s"))
    except Exception as e:
        traceback.print_exc()
        rows.append((name, "-", f"ERROR {type(e).__name__}: {str(e).splitlines()[0][:80]}", ""))


def vadd():
    n = 98_765
    x, y = torch.rand(n, device=dev), torch.rand(n, device=dev)
    out = torch.full_like(x, float("nan"))
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    return (out - (x + y)).abs().max().item()


def softmax(cols, dtype=torch.float32):
    def run():
        x = torch.randn(123, cols, device=dev, dtype=dtype)
        y = torch.full_like(x, float("nan"))
        block = triton.next_power_of_2(cols)
        softmax_kernel[(64,)](y, x, x.stride(0), y.stride(0), 123, cols, BLOCK_SIZE=block, num_stages=2,
                              num_warps=4 if block < 2048 else 8)
        return (y.float() - torch.softmax(x.float(), 1)).abs().max().item()
    return run


def matmul(dtype, m=200, n=136, k=96, act=""):
    def run():
        a = torch.randn(m, k, device=dev, dtype=dtype)
        b = torch.randn(k, n, device=dev, dtype=dtype)
        c = torch.full((m, n), float("nan"), device=dev, dtype=torch.float16)
        grid = (triton.cdiv(m, 64) * triton.cdiv(n, 64),)
        matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                            c.stride(1), BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8,
                            ACTIVATION=act)
        ref = a.float() @ b.float()
        if act:
            ref = torch.where(ref >= 0, ref, 0.01 * ref)
        return ((c.float() - ref).abs().max() / ref.abs().max()).item()
    return run


def dropout():
    n = 10_000
    x = torch.randn(n, device=dev)
    out = torch.full_like(x, float("nan"))
    _seeded_dropout[(triton.cdiv(n, 1024),)](x, out, n, 0.5, 123, BLOCK_SIZE=1024)
    kept = out != 0
    return (out[kept] - 2 * x[kept]).abs().max().item() + abs(kept.float().mean().item() - 0.5) * (
        kept.float().mean().item() < 0.4)


def layernorm():
    m, n = 37, 1000
    x = torch.randn(m, n, device=dev)
    w, b = torch.randn(n, device=dev), torch.randn(n, device=dev)
    y = torch.full_like(x, float("nan"))
    mean = torch.empty(m, device=dev)
    rstd = torch.empty(m, device=dev)
    _layer_norm_fwd_fused[(m,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5, BLOCK_SIZE=256)
    return (y - torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)).abs().max().item()


check("vector add", vadd)
check("softmax 1000 fp32", softmax(1000))
check("softmax 4096 fp16", softmax(4096, torch.float16))
check("matmul fp16", matmul(torch.float16))
check("matmul bf16 leaky", matmul(torch.bfloat16, act="leaky_relu"))
check("matmul fp32", matmul(torch.float32))
check("dropout", dropout)
check("layernorm", layernorm)
print(f"\n{torch.cuda.get_device_name()}")
print(f"{'kernel':24} {'error':>10} {'status':8} time")
for r in rows:
    print(f"{r[0]:24} {r[1]:>10} {r[2]:8} {r[3]}")
sys.exit(any(r[2] != "ok" for r in rows))
