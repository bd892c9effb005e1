"""Exercise 4.3, wrong on purpose: a basis past the shape is dropped instead of becoming the zero
vector, so the registers that only choose between copies are missing.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/04_layouts/ex3_slice_registers.py.
"""
from minitriton.layouts import BlockedLayout


def slice_register_offsets(parent: BlockedLayout, dim: int, shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    kept = [d for d in parent.order if d != dim]
    reduced = {d: i for i, d in enumerate(d for d in range(len(parent.order)) if d != dim)}
    spt, tpw, wpc = parent.size_per_thread, parent.threads_per_warp, parent.warps_per_cta
    bases = []  # (dimension of the reduced shape, value)
    for d in kept:
        step = 1
        while step < spt[d]:
            if step < shape[reduced[d]]:
                bases.append((reduced[d], step))
            step *= 2
    for d in kept:
        step = spt[d] * tpw[d] * wpc[d]
        while step < shape[reduced[d]]:
            bases.append((reduced[d], step))
            step *= 2
    offsets = []
    for register in range(1 << len(bases)):
        index = [0] * len(shape)
        for bit, (d, value) in enumerate(bases):
            if register >> bit & 1:
                index[d] += value
        offsets.append(tuple(index))
    return offsets
