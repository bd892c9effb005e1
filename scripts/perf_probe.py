"""Rough numbers for a developer: median times of the three kernels and of one launch (the benchmark is `python -m minitriton bench`)."""
import os
import sys
import time

import torch

import minitriton as triton
from minitriton.examples.tutorials import add_kernel, matmul_kernel, softmax_kernel


def bench(fn, n=50):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(n):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    return sorted(times)[len(times) // 2]


print(torch.cuda.get_device_name())
n = 1 << 26
x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
out = torch.empty_like(x)
ms = bench(lambda: add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024))
ms_copy = bench(lambda: out.copy_(x))
print(f"vector add 2^26: {3 * 4 * n / ms / 1e6:.0f} GB/s   copy: {2 * 4 * n / ms_copy / 1e6:.0f} GB/s")
for cols in (1024, 4096, 16384):
    a = torch.randn(4096, cols, device="cuda")
    o = torch.empty_like(a)
    block = triton.next_power_of_2(cols)
    w = 4 if block <= 1024 else (8 if block <= 4096 else 16)
    ms = bench(lambda: softmax_kernel[(132 * 4,)](o, a, a.stride(0), o.stride(0), 4096, cols, BLOCK_SIZE=block,
                                                num_stages=2, num_warps=w))
    ms_t = bench(lambda: torch.softmax(a, 1))
    print(f"softmax 4096x{cols}: {2 * a.numel() * 4 / ms / 1e6:.0f} GB/s  torch {2 * a.numel() * 4 / ms_t / 1e6:.0f}")
for size in (4096,):
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16)
    c = torch.empty(size, size, device="cuda", dtype=torch.float16)
    for bm, bn, bk, w, st in ((128, 128, 32, 8, 3), (128, 128, 64, 8, 3), (128, 128, 64, 8, 4), (128, 256, 64, 8, 3),
                              (128, 128, 32, 4, 4), (64, 128, 64, 4, 4)):
        grid = (triton.cdiv(size, bm) * triton.cdiv(size, bn),)
        t = time.time()
        f = lambda: matmul_kernel[grid](a, b, c, size, size, size, size, 1, size, 1, size, 1, BLOCK_SIZE_M=bm,
                                        BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, ACTIVATION="", num_warps=w,
                                        num_stages=st)
        f(); torch.cuda.synchronize()
        compile_s = time.time() - t
        ms = bench(f, 10)
        print(f"matmul fp16 {size} {bm}x{bn}x{bk} w{w} s{st}: {2 * size**3 / ms / 1e9:.1f} TFLOP/s (compile {compile_s:.1f}s)")
    ms = bench(lambda: torch.matmul(a, b), 10)
    print(f"cublas fp16 {size}: {2 * size**3 / ms / 1e9:.1f} TFLOP/s")
small = torch.rand(1024, device="cuda")
add_kernel[(1,)](small, small, small, 1024, BLOCK_SIZE=1024)
torch.cuda.synchronize()
t = time.perf_counter()
for _ in range(10000):
    add_kernel[(1,)](small, small, small, 1024, BLOCK_SIZE=1024)
print(f"launch: {(time.perf_counter() - t) / 10000 * 1e6:.1f} us")
