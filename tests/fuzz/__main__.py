"""Check a batch of random tile programs and print a table of what went wrong.

    python -m tests.fuzz [--gpu] [--count N] [--seed S] [--out DIR] [--archs sm_80,sm_90a]

Generates programs S .. S+N-1, checks each (interpreter against the reference, the compile for
each architecture, with --gpu the GPU against the reference and the interpreter), prints a table
of programs, mismatches and failures per stage, and writes a reproducer folder (source, report,
data) for every program that went wrong. Exit status 1 if any did.
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time
from pathlib import Path

from minitriton import driver

from .generate import generate
from .run import check, write_reproducer


# CUDA errors after which the context is lost: every later launch of the process would fail too.
STICKY = ("ILLEGAL_ADDRESS", "ILLEGAL_INSTRUCTION", "MISALIGNED_ADDRESS", "LAUNCH_FAILED", "HARDWARE_STACK_ERROR",
          "INVALID_PC", "TRAP")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="how many programs (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="the first program's seed (default 0)")
    parser.add_argument("--gpu", action="store_true", help="also run each program on the GPU")
    parser.add_argument("--archs", default="sm_80,sm_90a", help="compile for these (default sm_80,sm_90a; '' for none)")
    parser.add_argument("--out", default="fuzz-failures", help="where reproducers go (default ./fuzz-failures)")
    args = parser.parse_args(argv)
    if args.gpu and not driver.is_available():
        print("--gpu: no NVIDIA GPU or CUDA driver here", file=sys.stderr)
        return 2
    os.environ.setdefault("MINITRITON_CACHE", "0")  # thousands of one-off kernels: keep them off the disk cache
    archs = [a for a in args.archs.split(",") if a]
    work = Path(tempfile.mkdtemp(prefix="minitriton-fuzz-"))
    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    bad, start = [], time.time()
    for seed in range(args.seed, args.seed + args.count):
        program = generate(seed)
        outcomes = check(program, work, archs, gpu=args.gpu)
        for o in outcomes:
            table[o.stage][o.status] += 1
        if any(o.status != "ok" for o in outcomes):
            bad.append((seed, write_reproducer(program, outcomes, Path(args.out)),
                        [o for o in outcomes if o.status != "ok"]))
        print("." if all(o.status == "ok" for o in outcomes) else "x", end="", flush=True)
        if any(o.stage == "gpu" and o.status == "failure" and any(e in o.detail for e in STICKY) for o in outcomes):
            print(f"\nseed {seed} left the CUDA context unusable (a sticky error): stopping; "
                  f"go on with --seed {seed + 1}")
            break
    last = seed
    print(f"\n\n{last - args.seed + 1} programs (seeds {args.seed}..{last}) in {time.time() - start:.0f} s")
    print(f"{'stage':<14}{'programs':>10}{'ok':>8}{'mismatches':>12}{'failures':>10}")
    for stage, counts in table.items():
        print(f"{stage:<14}{sum(counts.values()):>10}{counts['ok']:>8}{counts['mismatch']:>12}{counts['failure']:>10}")
    for seed, where, outcomes in bad:
        first = outcomes[0]
        print(f"\nseed {seed} [{first.stage}] {first.status}: {first.detail.splitlines()[0] if first.detail else ''}"
              f"\n    reproducer: {where}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
