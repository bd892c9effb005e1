"""Exercise 4.1 (a compiler piece): `owner` of a blocked layout, from its four fields.

A `BlockedLayout(size_per_thread, threads_per_warp, warps_per_cta, order)` spreads a tile over the
threads of a CTA (chapter 4). Write `owner(layout, index, shape)`: every (warp, lane, register)
that holds element `index` of a tile of `shape`, as a sorted list. Work from the four fields; the
tests compare your answer with what `layout.owner` computes from the layout's bases.

Per dimension d, with spt, tpw, wpc the three size fields:

- a thread's block is spt[d] elements, a warp's spt[d] * tpw[d], the CTA tile's
  tile[d] = spt[d] * tpw[d] * wpc[d];
- a position p inside the CTA tile (0 <= p < tile[d]) belongs to warp coordinate
  p // (spt[d] * tpw[d]), lane coordinate (p // spt[d]) % tpw[d], and place p % spt[d] in the block;
- lane ids, warp ids and places in a block are linearized in `order`, order[0] fastest: the lane
  is lane_c[order[0]] + tpw[order[0]] * (lane_c[order[1]] + tpw[order[1]] * ...);
- when shape[d] > tile[d] the CTA tile repeats: index i is at position i % tile[d] of repeat
  i // tile[d]. The register number is repeat * prod(spt) + place, with the repeats (there are
  shape[d] // tile[d] along d) and the place both linearized in `order`;
- when shape[d] < tile[d] positions wrap around: index i is held at every position i, i + shape[d],
  i + 2 * shape[d], ... below tile[d] (replicas). Return all of them (`itertools.product` over the
  dimensions helps).

Then the tests draw the chapter's figures with your `owner` in place of the layout's (exercise
mode, `minitriton.exercise_hooks`): every cell's label is your answer.
"""
from minitriton.layouts import BlockedLayout


def owner(layout: BlockedLayout, index: tuple[int, ...], shape: tuple[int, ...]) -> list[tuple[int, int, int]]:
    raise NotImplementedError("exercise 4.1: owner")
