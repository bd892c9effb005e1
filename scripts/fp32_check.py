"""fp32 (ieee) matmul on CUDA cores: correctness at odd sizes and speed at 4096^3 for a few configs,
beside cuBLAS SGEMM with TF32 off (developer probe)."""
import sys

import torch

import minitriton as triton
from minitriton.bench import matmul_kernel, set_fp32_matmul_precision, triton_kernels
from minitriton.testing import do_bench

CONFIGS = [(128, 64, 32, 4, 4), (128, 64, 32, 4, 3), (128, 128, 32, 4, 4), (128, 128, 32, 8, 3), (64, 64, 32, 4, 3),
           (128, 128, 64, 8, 3), (64, 128, 32, 4, 4), (128, 128, 16, 4, 4), (128, 64, 32, 4, 1)]


def run(kernel, a, b, c, cfg):
    bm, bn, bk, w, st = cfg
    m, k = a.shape
    n = b.shape[1]
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                 BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, INPUT_PRECISION="ieee",
                 num_warps=w, num_stages=st)


def bench(fn):
    return do_bench(fn, return_mode="median")


set_fp32_matmul_precision(torch, "ieee")
torch.manual_seed(0)
configs = CONFIGS[:int(sys.argv[1])] if len(sys.argv) > 1 else CONFIGS
for cfg in configs:
    worst = 0.0
    for m, n, k in ((301, 203, 130), (257, 129, 97), (128, 256, 64)):
        a, b = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")
        c = torch.full((m, n), float("nan"), device="cuda")
        run(matmul_kernel, a, b, c, cfg)
        ref = (a.double() @ b.double())
        worst = max(worst, ((c.double() - ref).norm() / ref.norm()).item())
    print(f"{cfg}: max relative error {worst:.1e}", flush=True)
size = 4096
a, b = torch.randn(size, size, device="cuda"), torch.randn(size, size, device="cuda")
c = torch.empty(size, size, device="cuda")
flops = 2 * size ** 3
print(f"{torch.cuda.get_device_name()}: cuBLAS {flops / bench(lambda: torch.matmul(a, b, out=c)) / 1e9:.1f} TFLOP/s")
twins = triton_kernels()
for cfg in configs:
    kernel = matmul_kernel
    run(kernel, a, b, c, cfg)
    ms = bench(lambda: run(kernel, a, b, c, cfg))
    line = f"{cfg}: minitriton {flops / ms / 1e9:.1f}"
    if twins:
        ms = bench(lambda: run(twins["matmul"], a, b, c, cfg))
        line += f"  triton {flops / ms / 1e9:.1f}"
    print(line, flush=True)
