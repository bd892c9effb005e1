"""Short-row softmax (developer probe): minitriton's softmax at 4096 x 1024 and 4096 x 4096 in fp32,
and 4096 x 4096 in fp16,
beside Triton and a copy of the same bytes, with variants of its PTX that each test one guess about
what the time depends on, and persistent grids with Triton's software-pipelined row loop. Every
variant is checked against torch before it is timed; each round times all of them together on new
inputs (`do_bench_interleaved`), and the table gives the median, min and max over the rounds.

    PYTHONPATH=. python scripts/softmax_probe.py [rounds]
"""
import math
import statistics
import sys

import torch

from minitriton import driver, launcher
from minitriton.bench import triton_kernels
from minitriton.examples.tutorials import softmax_kernel
from minitriton.testing import do_bench_interleaved

ROWS = 4096
SIGNATURE = ["ptr", "ptr", "int32", "int32", "int32", "int32"]
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5


def with_reqntid(ptx: str, threads: int) -> str:
    """The kernel's PTX declaring its block size (`.reqntid`), as Triton's does."""
    header_end = ptx.index("{", ptx.index(".entry"))
    return ptx[:header_end] + f".reqntid {threads}\n" + ptx[header_end:]


def variants_of(ptx: str, threads: int) -> dict[str, str]:
    """PTX edits, one guess each."""
    first_barrier = ptx.index("bar.sync", ptx.index("$L__BB0_2:"))
    return {
        "as compiled": ptx,
        f".reqntid {threads}": with_reqntid(ptx, threads),
        "no loop-top barrier": ptx[:first_barrier] + "// " + ptx[first_barrier:],
        "st.global.cs": ptx.replace("st.global.v4", "st.global.cs.v4"),
        "ld.global.nc": ptx.replace("ld.global.v4", "ld.global.nc.v4"),
        "ld L1::no_allocate": ptx.replace("ld.global.v4", "ld.global.L1::no_allocate.v4"),
        "ld L2::256B": ptx.replace("ld.global.v4", "ld.global.L2::256B.v4"),
    }


def main() -> None:
    props = driver.device_properties()
    print(torch.cuda.get_device_name(), props.multiprocessor_count, "SMs", flush=True)
    triton = triton_kernels()["softmax"]
    results: dict[tuple, list[float]] = {}
    for dtype, cols in ((torch.float32, 1024), (torch.float32, 4096), (torch.float16, 4096)):
        warps = 4 if cols < 2048 else 8
        x = torch.randn(ROWS, cols, device="cuda", dtype=dtype)
        y = torch.full_like(x, math.nan)
        ref = torch.softmax(x.double(), -1)
        kernel = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), ROWS, cols, BLOCK_SIZE=cols,
                                       num_stages=2, num_warps=warps)
        shared = kernel.metadata["shared_bytes"]
        runs = {}
        for name, text in variants_of(kernel.asm["ptx"], 32 * warps).items():
            module = driver.load_module(text, kernel.name, shared)
            launch = launcher.make_launcher(module, SIGNATURE)
            stream = driver.current_stream()

            def run(x, y, launch=launch, grid=(ROWS, 1, 1)):
                launch(grid, 32 * warps, shared, stream, y, x, cols, cols, ROWS, cols)
                return y
            runs[f"mt {name}"] = run
        # The same kernel asking for Triton's 4 KB of shared memory (the carveout it gets).
        module = driver.load_module(kernel.asm["ptx"], kernel.name, 4112)
        launch_smem = launcher.make_launcher(module, SIGNATURE)
        runs["mt 4112 B shared"] = lambda x, y: (launch_smem((ROWS, 1, 1), 32 * warps, 4112, driver.current_stream(),
                                                              y, x, cols, cols, ROWS, cols), y)[1]
        runs["mt jit"] = lambda x, y: (softmax_kernel[(ROWS,)](y, x, cols, cols, ROWS, cols, BLOCK_SIZE=cols,
                                                               num_stages=2, num_warps=warps), y)[1]
        runs["triton"] = lambda x, y: (triton[(ROWS,)](y, x, cols, cols, ROWS, cols, BLOCK_SIZE=cols,
                                                       num_stages=2, num_warps=warps), y)[1]
        for programs_per_sm in (8, 16):
            grid = props.multiprocessor_count * programs_per_sm
            for stages in (1, 2, 3):
                runs[f"triton persistent {programs_per_sm}/SM s{stages}"] = (
                    lambda x, y, g=grid, s=stages: (triton[(g,)](y, x, cols, cols, ROWS, cols, BLOCK_SIZE=cols,
                                                                 num_stages=s, num_warps=warps), y)[1])
            runs[f"mt persistent {programs_per_sm}/SM"] = (
                lambda x, y, g=grid: (softmax_kernel[(g,)](y, x, cols, cols, ROWS, cols, BLOCK_SIZE=cols,
                                                           num_stages=2, num_warps=warps), y)[1])
        runs["torch copy (ceiling)"] = lambda x, y: y.copy_(x)
        for name, run in list(runs.items()):
            y.fill_(math.nan)
            out = run(x, y)
            error = ((out.double() - (x.double() if "copy" in name else ref)).norm() / ref.norm()).item()
            if not error < (1e-5 if dtype == torch.float32 else 5e-3):
                print(f"{cols} {name}: WRONG ({error:.1e}), dropped", flush=True)
                del runs[name]
        names = list(runs)
        for _ in range(ROUNDS):  # fresh inputs each round, as the benchmark has at each run
            x = torch.randn(ROWS, cols, device="cuda", dtype=dtype)
            y = torch.full_like(x, math.nan)
            times = do_bench_interleaved([lambda run=runs[n]: run(x, y) for n in names])
            for name, ms in zip(names, times):
                results.setdefault((dtype, cols, name), []).append(ms)
        moved = 2 * ROWS * cols * x.element_size()
        print(f"\n4096 x {cols} {dtype}, {ROUNDS} rounds: median of medians, min, max (GB/s)")
        base = statistics.median(results[(dtype, cols, "triton")])
        for name in runs:
            ms = results[(dtype, cols, name)]
            gbs = [moved / t / 1e6 for t in ms]
            print(f"  {name:34s} {moved / statistics.median(ms) / 1e6:7.0f} {min(gbs):7.0f} {max(gbs):7.0f}"
                  f"   {base / statistics.median(ms):6.1%} of triton", flush=True)


if __name__ == "__main__":
    main()
