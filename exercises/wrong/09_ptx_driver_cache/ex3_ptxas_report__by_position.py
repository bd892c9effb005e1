"""Exercise 9.3, wrong on purpose: the k-th "stack frame" line is given to the k-th kernel, so a
device function's block between two kernels shifts the rest.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/09_ptx_driver_cache/ex3_ptxas_report.py.
"""
import re

FIELDS = ("registers", "stack_frame", "spill_stores", "spill_loads", "shared_bytes")


def parse_report(text: str) -> dict[str, dict[str, int]]:
    entries = re.findall(r"Compiling entry function '([^']+)'", text)
    frames = re.findall(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", text)
    used = [line for line in text.splitlines() if re.search(r"Used \d+ registers", line)]
    kernels = {}
    for name, frame, line in zip(entries, frames, used):
        smem = re.search(r"(\d+) bytes smem", line)
        kernels[name] = dict(registers=int(re.search(r"Used (\d+) registers", line)[1]), stack_frame=int(frame[0]),
                             spill_stores=int(frame[1]), spill_loads=int(frame[2]),
                             shared_bytes=int(smem[1]) if smem else 0)
    return kernels
