"""Exercise 4.3 (a compiler piece): which elements a thread's registers hold after a reduction.

`tl.sum(x, axis=dim)` on a tile in a blocked layout `parent` gives a tile whose layout is
`SliceLayout(dim, parent)`: the parent with dimension `dim` removed. Write
`slice_register_offsets(parent, dim, shape)`: for each register of lane 0 of warp 0, the index (in
the reduced `shape`, which has lost `dim`) that it holds. (Other threads hold the same list shifted
by their lane's and warp's offsets, which is why codegen can compute these at compile time.)

The registers are numbered by bits (chapter 4, "linear layouts"). Register bit k has a *basis*, an
index vector; register r holds the sum of the bases of its set bits. The bases, in this order:

1. the thread's block: for each dimension d of `parent.order` except `dim`, the bases 1, 2, 4, ...
   up to (but not including) size_per_thread[d], along d;
2. the repeats of the CTA tile: for each dimension d of `parent.order` except `dim`, the bases
   tile[d], 2 * tile[d], ... below shape[d] (tile[d] = spt[d] * tpw[d] * wpc[d]), along d.

The registers of the parent's block along `dim` are gone: the reduction folded them into one. A
basis that reaches past the shape (a block larger than a small shape) becomes the zero vector: that
register bit then only chooses between copies. Indices are tuples with one entry per dimension of
the reduced shape.
"""
from minitriton.layouts import BlockedLayout


def slice_register_offsets(parent: BlockedLayout, dim: int, shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    raise NotImplementedError("exercise 4.3: slice_register_offsets")
