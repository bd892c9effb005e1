"""Drawing a layout: a Graphviz table of a 1-D or 2-D tile, one cell per element, for the book.

Chapter: 04-layouts.
"""
from __future__ import annotations

from typing import Sequence

from .base import DistributedLayout, _fmt
from .shared import SharedLayout


_WARP_COLORS = ("#fbb4ae", "#b3cde3", "#ccebc5", "#decbe4", "#fed9a6", "#ffffcc", "#e5d8bd", "#fddaec")


def draw(layout: DistributedLayout | SharedLayout, shape: Sequence[int], num_warps: int | None = None) -> str:
    """Graphviz DOT source of a table with one cell per element of a 1-D or 2-D tile.

    A distributed layout's cell reads `w{warp}:t{lane}:r{register}` for its first owner (with
    `xN` where N threads or registers hold copies) and is coloured by that warp. A shared
    layout's cell holds its offset, coloured by `(offset // vec) % 8`: when a chunk is 16 bytes,
    that is its bank group, and a column of 8 rows in 8 colours is a conflict-free `ldmatrix`."""
    shape = tuple(int(s) for s in shape)
    if len(shape) not in (1, 2):
        raise ValueError(f"draw shows 1-D and 2-D tiles, got shape {_fmt(shape)}")
    if isinstance(layout, SharedLayout):
        def cell(index):
            offset = layout.offset(index, shape)
            return str(offset), _WARP_COLORS[(offset // layout.vec) % len(_WARP_COLORS)]
    else:
        shape = layout.check_shape(shape)
        if num_warps is not None and num_warps != layout.num_warps:
            raise ValueError(f"{layout} spreads over {layout.num_warps} warps, not {num_warps}")

        def cell(index):
            owners = layout.owner(index, shape)
            warp, lane, register = owners[0]
            extra = f" x{len(owners)}" if len(owners) > 1 else ""
            return f"w{warp}:t{lane}:r{register}{extra}", _WARP_COLORS[warp % len(_WARP_COLORS)]

    rows, cols = (1, shape[0]) if len(shape) == 1 else shape
    lines = [
        "digraph layout {",
        '  node [shape=plaintext, fontname="Courier", fontsize=10];',
        f'  label="{layout}  shape {_fmt(shape)}"; labelloc=t; fontname="Courier";',
        '  tile [label=<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">',
        "    <TR><TD></TD>" + "".join(f"<TD><B>{c}</B></TD>" for c in range(cols)) + "</TR>",
    ]
    for r in range(rows):
        cells = []
        for c in range(cols):
            text, color = cell((c,) if len(shape) == 1 else (r, c))
            cells.append(f'<TD BGCOLOR="{color}">{text}</TD>')
        lines.append(f"    <TR><TD><B>{r}</B></TD>" + "".join(cells) + "</TR>")
    lines += ["  </TABLE>>];", "}"]
    return "\n".join(lines) + "\n"
