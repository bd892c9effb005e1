"""Exercise 4.6 (a compiler piece): the layout of `tl.trans(x, perm)` that moves no element.

Dimension d of `tl.trans(x, perm)` is dimension perm[d] of x. If every element stays in the thread
and the register that held it, the transpose costs nothing: the result's layout is x's, its
dimensions renamed. Write `transposed_layout(layout, perm)` for x laid out in the blocked layout
`layout`: the blocked layout of the result.

- `size_per_thread`, `threads_per_warp` and `warps_per_cta` along the result's dimension d are
  x's along dimension perm[d].
- `order` lists dimensions fastest first, so it must name the same dimensions x's order names,
  in the result's numbering: x's dimension e is the result's dimension d where perm[d] == e.

(For layouts of other kinds the compiler wraps them in a `PermutedLayout`, which renames the
dimensions of every basis; `passes/layout.permute_layout` does both.)
"""
from minitriton.layouts import BlockedLayout


def transposed_layout(layout: BlockedLayout, perm: tuple[int, ...]) -> BlockedLayout:
    raise NotImplementedError("exercise 4.6: transposed_layout")
