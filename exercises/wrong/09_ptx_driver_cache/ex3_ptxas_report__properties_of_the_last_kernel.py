"""Exercise 9.3, wrong on purpose: a "stack frame" line is given to the last kernel compiled,
without reading whose properties it gives.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/09_ptx_driver_cache/ex3_ptxas_report.py.
"""
import re

FIELDS = ("registers", "stack_frame", "spill_stores", "spill_loads", "shared_bytes")


def parse_report(text: str) -> dict[str, dict[str, int]]:
    kernels: dict[str, dict[str, int]] = {}
    entry = None
    for line in text.splitlines():
        if m := re.search(r"Compiling entry function '([^']+)'", line):
            entry = m[1]
            kernels[entry] = dict.fromkeys(FIELDS, 0)
        elif (m := re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)) \
                and entry is not None:
            kernels[entry].update(stack_frame=int(m[1]), spill_stores=int(m[2]), spill_loads=int(m[3]))
        elif (m := re.search(r"Used (\d+) registers", line)) and entry is not None:
            smem = re.search(r"(\d+) bytes smem", line)
            kernels[entry].update(registers=int(m[1]), shared_bytes=int(smem[1]) if smem else 0)
    return kernels
