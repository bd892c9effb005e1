"""Exercise 4.1, wrong on purpose: the repeats of the CTA tile are numbered in dimension order
(dimension 0 fastest), not in `order`.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/04_layouts/ex1_owner.py.
"""
import itertools
import math

from minitriton.layouts import BlockedLayout


def _linear(coords, sizes, order) -> int:
    """Coordinates -> one id, order[0] varying fastest."""
    linear, stride = 0, 1
    for d in order:
        linear += coords[d] * stride
        stride *= sizes[d]
    return linear


def owner(layout: BlockedLayout, index: tuple[int, ...], shape: tuple[int, ...]) -> list[tuple[int, int, int]]:
    spt, tpw, wpc, order = layout.size_per_thread, layout.threads_per_warp, layout.warps_per_cta, layout.order
    rank = len(shape)
    tile = [spt[d] * tpw[d] * wpc[d] for d in range(rank)]
    repeats = [max(1, shape[d] // tile[d]) for d in range(rank)]
    # Per dimension, every (repeat, position in the CTA tile) that holds index[d].
    choices = []
    for d in range(rank):
        if shape[d] >= tile[d]:
            choices.append([(index[d] // tile[d], index[d] % tile[d])])
        else:
            choices.append([(0, p) for p in range(index[d], tile[d], shape[d])])
    owners = []
    for choice in itertools.product(*choices):
        repeat = [r for r, _ in choice]
        position = [p for _, p in choice]
        warp = _linear([position[d] // (spt[d] * tpw[d]) for d in range(rank)], wpc, order)
        lane = _linear([(position[d] // spt[d]) % tpw[d] for d in range(rank)], tpw, order)
        place = _linear([position[d] % spt[d] for d in range(rank)], spt, order)
        owners.append((warp, lane, _linear(repeat, repeats, range(rank)) * math.prod(spt) + place))
    return sorted(owners)
