"""Drawing a layout: a Graphviz table of a 1-D or 2-D tile, one cell per element, for the book.

The table is drawn for a book's column (about 700 points): small cells in a 9-point font, the
layout's name broken over short lines, and a legend under the table that says what the colours and
the cell texts mean. Chapter: 04-layouts.
"""
from __future__ import annotations

import itertools
import re
from typing import Sequence

from .base import DistributedLayout, _fmt
from .shared import SharedLayout


PALETTE = ("#fbb4ae", "#b3cde3", "#ccebc5", "#decbe4", "#fed9a6", "#ffffcc", "#e5d8bd", "#fddaec")
OWNER_PARTS = {"warp": ("w", 0), "lane": ("t", 1), "register": ("r", 2)}  # name -> (its letter, its place)
TITLE_WIDTH = 56  # characters of the layout's name on one line of the title


def draw(layout: DistributedLayout | SharedLayout, shape: Sequence[int], num_warps: int | None = None,
         color_by: str = "warp") -> str:
    """Graphviz DOT source of a table with one cell per element of a 1-D or 2-D tile.

    A distributed layout's cell is coloured by the `color_by` part of the element's first owner
    (warp, lane or register) and reads the other two (`t10:r1` where the colour is the warp); where
    an element has copies, the cell adds `xN`, or the legend says so once if every element has N.
    Colour by what the figure is meant to show: the warps' tiles of a blocked layout, the registers
    of a tensor-core fragment. A shared layout's cell holds its offset, coloured by
    `(offset // vec) % 8`: when a chunk is 16 bytes, that is its bank group, and a column of 8
    rows in 8 colours is a conflict-free `ldmatrix`."""
    shape = tuple(int(s) for s in shape)
    if len(shape) not in (1, 2):
        raise ValueError(f"draw shows 1-D and 2-D tiles, got shape {_fmt(shape)}")
    if isinstance(layout, SharedLayout):
        def cell(index):
            offset = layout.offset(index, shape)
            return str(offset), (offset // layout.vec) % len(PALETTE)
        key, legend = "bank group", "cell: the element's offset in the buffer"
    else:
        cell, key, legend = _owner_cells(layout, shape, num_warps, color_by)
    rows, cols = (1, shape[0]) if len(shape) == 1 else shape
    table = [[cell((c,) if len(shape) == 1 else (r, c)) for c in range(cols)] for r in range(rows)]
    header = "<TR><TD></TD>" + "".join(f"<TD><B>{c}</B></TD>" for c in range(cols)) + "</TR>"
    body = [f"<TR><TD><B>{r}</B></TD>" + "".join(f'<TD BGCOLOR="{PALETTE[color]}">{text}</TD>' for text, color in row)
            + "</TR>" for r, row in enumerate(table)]
    used = sorted({color for row in table for _, color in row})
    swatches = "".join(f'<TD BGCOLOR="{PALETTE[c]}">{c}</TD>' for c in used)
    return "\n".join([
        "digraph layout {",
        '  graph [ranksep=0.1];',
        '  node [shape=plaintext, fontname="Courier", fontsize=9];',
        f'  label="{_title(layout, shape)}"; labelloc=t; fontname="Courier"; fontsize=10;',
        '  tile [label=<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="1">',
        f"    {header}",
        *(f"    {line}" for line in body),
        "  </TABLE>>];",
        '  legend [label=<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="4" CELLPADDING="2">',
        f'    <TR><TD BORDER="0">colour: {key}</TD>{swatches}<TD BORDER="0">{legend}</TD></TR>',
        "  </TABLE>>];",
        "  tile -> legend [style=invis];  // the legend under the table, as wide as it needs",
        "}",
    ]) + "\n"


def _owner_cells(layout: DistributedLayout, shape, num_warps, color_by):
    """The cell function of a distributed layout, and its legend: (cell, key, legend)."""
    if color_by not in OWNER_PARTS:
        raise ValueError(f"color_by is one of {', '.join(OWNER_PARTS)}, got {color_by!r}")
    shape = layout.check_shape(shape)
    if num_warps is not None and num_warps != layout.num_warps:
        raise ValueError(f"{layout} spreads over {layout.num_warps} warps, not {num_warps}")
    # through `owner`, the function exercise 4.1 writes: in exercise mode the learner's draws the figure
    holders = {index: layout.owner(index, shape) for index in itertools.product(*map(range, shape))}
    first = {index: owners[0] for index, owners in holders.items()}
    copies = {index: len(owners) for index, owners in holders.items()}
    shown = [(letter, place) for name, (letter, place) in OWNER_PARTS.items() if name != color_by]
    colored = OWNER_PARTS[color_by][1]
    uniform = len(set(copies.values())) == 1
    n = next(iter(copies.values()))

    def cell(index):
        owner = first[index]
        text = ":".join(f"{letter}{owner[place]}" for letter, place in shown)
        extra = f" x{copies[index]}" if copies[index] > 1 and not uniform else ""
        return text + extra, owner[colored] % len(PALETTE)

    names = {"w": "warp", "t": "lane", "r": "register"}
    legend = "cell: " + ":".join(f"{letter}&lt;{names[letter]}&gt;" for letter, _ in shown)
    if uniform and n > 1:
        legend += f"; every element is held {n} times, the first holder shown"
    elif not uniform:
        legend += "; xN: N copies, the first holder shown"
    return cell, color_by, legend


def _title(layout, shape) -> str:
    """The layout's name broken after its fields' commas into lines of at most TITLE_WIDTH, then the shape."""
    lines = [""]
    for piece in re.split(r"(?<=, )", str(layout)):
        if lines[-1] and len(lines[-1]) + len(piece.rstrip()) > TITLE_WIDTH:
            lines.append("  ")
        lines[-1] += piece
    return "\\l".join(line.rstrip() for line in lines) + f"\\lshape {_fmt(shape)}\\l"
