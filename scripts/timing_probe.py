"""Vector add at 2^20 elements (developer probe): where Triton's 4% lead over minitriton comes from
when the two are timed together, though their SASS is the same. Each row changes one thing: the
launch path (minitriton's binder, its prepared launch with the PTX loaded by hand, Triton's own
PTX through minitriton's launch), `.reqntid`, and the order within a round.

    PYTHONPATH=. python scripts/add_probe.py [rounds]
"""
import math
import statistics
import sys

import torch

from minitriton import driver, launcher
from minitriton.bench import triton_kernels
from minitriton.examples.tutorials import add_kernel
from minitriton.testing import CudaClock, do_bench_interleaved, pair_median, time_runs
from softmax_probe import with_reqntid  # scripts/ is on the path when a script runs

N = 1 << 20
BLOCK = 1024
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
GRID = (N // BLOCK, 1, 1)


def hand_loaded(ptx: str, name: str, signature: list[str], args: tuple):
    """A launch of `ptx` through minitriton's prepared launch, with no binder in front."""
    launch = launcher.make_launcher(driver.load_module(ptx, name, 0), signature)
    stream = driver.current_stream()
    return lambda: launch(GRID, 128, 0, stream, *args)


def main() -> None:
    print(torch.cuda.get_device_name(), flush=True)
    triton = triton_kernels()["add"]
    x, y = torch.rand(N, device="cuda"), torch.rand(N, device="cuda")
    out = torch.full_like(x, math.nan)
    mine = add_kernel.warmup(x, y, out, N, BLOCK_SIZE=BLOCK)
    theirs = triton[GRID](x, y, out, N, BLOCK_SIZE=BLOCK)
    plain, args = ["ptr", "ptr", "ptr", "int32"], (x, y, out, N)
    runs = {
        "mt jit": lambda: add_kernel[GRID](x, y, out, N, BLOCK_SIZE=BLOCK),
        "mt ptx, hand-loaded": hand_loaded(mine.asm["ptx"], mine.name, plain, args),
        "mt ptx + .reqntid 128": hand_loaded(with_reqntid(mine.asm["ptx"], 128), mine.name, plain, args),
        # Triton's kernels take two scratch pointers more, null when they need no scratch
        "triton ptx, minitriton launch": hand_loaded(theirs.asm["ptx"], theirs.name, plain + ["ptr", "ptr"],
                                                     args + (0, 0)),
        "triton jit": lambda: triton[GRID](x, y, out, N, BLOCK_SIZE=BLOCK),
        "torch add": lambda: torch.add(x, y, out=out),
    }
    for name, run in runs.items():
        out.fill_(math.nan)
        run()
        assert torch.equal(out, x + y), name
    for order in ("forward", "reversed"):
        names = list(runs) if order == "forward" else list(reversed(runs))
        results = {name: [] for name in names}
        for _ in range(ROUNDS):
            for name, ms in zip(names, do_bench_interleaved([runs[n] for n in names])):
                results[name].append(ms)
        print(f"\n2^20 fp32 add, {order} order, {ROUNDS} rounds: median us, min, max, vs triton jit")
        base = statistics.median(results["triton jit"])
        for name in runs:
            us = [t * 1e3 for t in results[name]]
            print(f"  {name:32s} {statistics.median(us):6.2f} {min(us):6.2f} {max(us):6.2f}"
                  f"   {base / statistics.median(results[name]):6.1%}", flush=True)

    positions(runs["mt jit"])


class Flush(CudaClock):
    """The clock with another way of emptying L2 between runs."""

    def __init__(self, how: str):
        super().__init__()
        self.how = how
        self.other = torch.empty(self.flush_buffer.nbytes // 2, device="cuda")  # twice its bytes

    def flush_l2(self) -> None:
        if self.how in ("memset", "memset twice"):
            super().flush_l2()
        if self.how == "memset twice":
            super().flush_l2()
        if self.how == "memset 512 MB":
            driver.check(self.cuda.cuMemsetD32Async(self.other.data_ptr(), 0, self.other.numel(), self.stream),
                         "cuMemsetD32Async")
        if self.how == "copy":  # reads the flush buffer and writes another one
            driver.check(self.cuda.cuMemcpyDtoDAsync(self.other.data_ptr(), self.flush_buffer.address,
                                                     self.flush_buffer.nbytes, self.stream), "cuMemcpyDtoDAsync")


def positions(run) -> None:
    """The same kernel as four functions timed together (`time_runs` turns their order each round):
    each one's plain median, then its median of pairs."""
    print(f"\nthe same kernel as four functions timed together, {ROUNDS} rounds: us, median | pair median")
    for how in ("memset", "memset twice", "memset 512 MB", "copy"):
        clock = Flush(how)
        plain, paired = [[] for _ in range(4)], [[] for _ in range(4)]
        for _ in range(ROUNDS):
            for i, times in enumerate(time_runs(clock, [run] * 4, 25, 100)):
                plain[i].append(statistics.median(times))
                paired[i].append(pair_median(times))
        clock.close()
        print(f"  {how:16s}" + "".join(f" {statistics.median(t) * 1e3:6.2f}" for t in plain) + "  |"
              + "".join(f" {statistics.median(t) * 1e3:6.2f}" for t in paired), flush=True)


if __name__ == "__main__":
    main()
