"""matmul correctness at odd sizes and speed at 4096/8192 for a few configs (developer probe)."""
import torch

import minitriton as triton
from minitriton.examples.tutorials import matmul_kernel

CONFIGS = [(128, 128, 64, 8, 3), (128, 128, 32, 8, 4), (128, 256, 64, 8, 3), (64, 128, 64, 4, 4), (128, 128, 64, 4, 3),
           (128, 256, 32, 8, 4)]


def run(a, b, c, cfg):
    bm, bn, bk, w, st = cfg
    m, k = a.shape
    n = b.shape[1]
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    return matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                               c.stride(1), BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8,
                               ACTIVATION="", num_warps=w, num_stages=st)


def bench(fn, n=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(n):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
    return sorted(ts)[n // 2]


torch.manual_seed(0)
print(torch.cuda.get_device_name())
for cfg in CONFIGS:
    errs = []
    for (m, n, k), dtype in (((300, 320, 208), torch.float16), ((1000, 512, 512), torch.bfloat16), ((129, 256, 64), torch.float16)):
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
        kern = run(a, b, c, cfg)
        ref = a.float() @ b.float()
        errs.append(((c.float() - ref).norm() / ref.norm()).item())
    ptx = kern.asm["ptx"]
    path = "wgmma" if "wgmma.mma_async" in ptx else "mma.sync"
    line = f"{cfg}: {path} regs {kern.metadata.get('registers')} smem {kern.metadata['shared_bytes']} err {max(errs):.1e}"
    for size in (4096, 8192):
        a = torch.randn(size, size, device="cuda", dtype=torch.float16)
        b = torch.randn(size, size, device="cuda", dtype=torch.float16)
        c = torch.empty(size, size, device="cuda", dtype=torch.float16)
        ms = bench(lambda: run(a, b, c, cfg))
        line += f"  {size}: {2 * size ** 3 / ms / 1e9:.0f} TFLOP/s"
    print(line, flush=True)
for size in (4096, 8192):
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16)
    print(f"cuBLAS {size}: {2 * size ** 3 / bench(lambda: a @ b) / 1e9:.0f} TFLOP/s")
