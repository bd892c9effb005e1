"""The access picture: which elements of each array every program loads and stores, and which lanes
were masked off, recorded while the interpreter runs a kernel and drawn as text or SVG.

    with record_accesses() as accesses:
        add_kernel[grid](x, y, out, n, BLOCK_SIZE=64)
    launch = accesses.last                 # one kernel launch
    launch.masks("x_ptr", "load")          # {program id: which elements of x it loaded}
    print(launch.text())                   # every array, a character per element
    Path("add.svg").write_text(launch.svg())

The launcher tells the recorder when a launch starts (the arrays' names and shapes); the
interpreter hands it every load, store and atomic with its program id, addresses and mask, before
memory is touched, so a lane that faults is in the picture too. Each lane is placed in the array its
address falls in; a lane outside every array (masked off past the end, or faulting) is placed
relative to the array the op's other lanes use, where its index lies outside that array.
Chapters: 01-introduction, 05-coalesce.
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field

import numpy as np

KINDS = {"load": "load", "store": "store", "atomic": "atomic", "atomic_cas": "atomic"}  # op -> kind
PROGRAM_COLORS = ("#8dd3c7", "#bebada", "#80b1d3", "#fdb462", "#b3de69", "#fccde5", "#bc80bd",
                  "#ccebc5", "#ffed6f", "#d9d9d9")
MASKED, FAULT, SHARED = "#ffffff", "#e41a1c", "#969696"  # masked off; an active lane outside; several programs
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


@dataclass
class Access:
    """One load, store or atomic of one program, on one array: flat element indices."""

    kind: str
    pid: tuple[int, int, int]
    array: str
    active: np.ndarray  # the elements its active lanes touch (outside [0, size): a fault)
    masked: np.ndarray  # where its masked-off lanes point (may lie outside the array)
    line: int | None


@dataclass
class Launch:
    """What one launch of a kernel touched: its arrays' shapes and every access, in order."""

    kernel: str
    grid: tuple[int, int, int]
    shapes: dict[str, tuple[int, ...]]
    accesses: list[Access] = field(default_factory=list)

    def linear(self, pid) -> int:
        """A program's number, x fastest (the order the interpreter runs them in)."""
        return pid[0] + self.grid[0] * (pid[1] + self.grid[1] * pid[2])

    def kinds(self, array: str) -> list[str]:
        """The kinds of access `array` had: load, store, atomic, in that order."""
        done = {a.kind for a in self.accesses if a.array == array}
        return [kind for kind in ("load", "store", "atomic") if kind in done]

    def masks(self, array: str, kind: str = "load", masked: bool = False) -> dict[tuple[int, int, int], np.ndarray]:
        """For each program that did a `kind` on `array`: a boolean array of the array's shape, true
        where it touched an element (with `masked`: where one of its masked-off lanes pointed)."""
        shape = self.shapes[array]
        size = math.prod(shape)
        out = {}
        for a in self.accesses:
            if a.array == array and a.kind == kind:
                flat = out.setdefault(a.pid, np.zeros(size, bool))
                indices = a.masked if masked else a.active
                flat[indices[(indices >= 0) & (indices < size)]] = True
        return {pid: flat.reshape(shape) for pid, flat in out.items()}

    def outside(self, array: str, kind: str = "load", masked: bool = True) -> dict[tuple[int, int, int], np.ndarray]:
        """For each program: the flat indices outside `array` its masked-off lanes point at (or,
        with `masked=False`, its active lanes touched: faults)."""
        size = math.prod(self.shapes[array])
        out = {}
        for a in self.accesses:
            if a.array == array and a.kind == kind:
                indices = a.masked if masked else a.active
                beyond = indices[(indices < 0) | (indices >= size)]
                if beyond.size:
                    out[a.pid] = np.union1d(out.get(a.pid, beyond[:0]), beyond)
        return out

    def cells(self, array: str, kind: str) -> tuple[np.ndarray, int]:
        """The picture of one array and kind, flat, from index `start` (negative where lanes point
        before the array) to past its end: -1 untouched, -2 masked off, -3 several programs, -4 an
        active lane outside the array, else the program's number. Returns (cells, start)."""
        size = math.prod(self.shapes[array])
        mine = [a for a in self.accesses if a.array == array and a.kind == kind]
        touched = np.concatenate([np.array([0, size - 1])] + [a.active for a in mine] + [a.masked for a in mine])
        start, end = min(0, int(touched.min())), max(size, int(touched.max()) + 1)
        cells = np.full(end - start, -1, np.int64)
        for a in mine:
            masked = a.masked - start
            cells[masked[cells[masked] == -1]] = -2
        for a in mine:
            active = a.active - start
            here = cells[active]
            program = self.linear(a.pid)
            cells[active] = np.where((here == -1) | (here == -2) | (here == program), program, -3)
        for a in mine:
            wrong = a.active[(a.active < 0) | (a.active >= size)]
            cells[wrong - start] = -4
        return cells, start

    def text(self, arrays=None, kinds=None, max_rows: int = 24) -> str:
        """A character per element, a row per row of a 2-D array (else 64 elements a row): the
        program's number in base 36, `.` untouched, `-` masked off, `*` several programs, `!` an
        active lane outside the array; `|` where the array ends, and rows past its end marked `>`
        (before its start, `<`). `arrays` and `kinds` choose the panels (by default, all)."""
        blocks = []
        for array in arrays or self.shapes:
            for kind in [k for k in self.kinds(array) if kinds is None or k in kinds]:
                cells, start = self.cells(array, kind)
                blocks.append(self._text_block(array, kind, cells, start, max_rows))
        legend = "0-9a-z: program (x fastest)  .: untouched  -: masked off  *: several programs  !: fault"
        return "\n\n".join([f"{self.kernel}, grid {self.grid}\n{legend}"] + blocks)

    def _text_block(self, array, kind, cells, start, max_rows) -> str:
        shape, width = self.shapes[array], self._width(array)
        size = math.prod(shape)
        symbols = {-1: ".", -2: "-", -3: "*", -4: "!"}
        first_row = (start // width) * width
        rows = []
        for row in range(first_row, start + cells.size, width):
            chars = []
            for i in range(row, row + width):
                if i == size and row < size:
                    chars.append("|")  # the array ends here
                inside = 0 <= i - start < cells.size
                chars.append(symbols.get(int(cells[i - start]), DIGITS[cells[i - start] % 36]) if inside else " ")
            mark = ">" if row >= size else "<" if row < 0 else " "
            rows.append(f"{mark}{row // width if len(shape) == 2 else row:>7} {''.join(chars).rstrip()}")
        if len(rows) > max_rows:
            rows = rows[:max_rows // 2] + [f"  ... {len(rows) - max_rows} rows ..."] + rows[-(max_rows // 2):]
        head = f"{array} {'x'.join(map(str, shape))}: {kind}"
        return "\n".join([head] + rows)

    def _width(self, array: str) -> int:
        shape = self.shapes[array]
        return shape[-1] if len(shape) == 2 and shape[-1] <= 96 else 64

    def svg(self, arrays=None, kinds=None, cell: float = 11.0, width: float = 760.0) -> str:
        """The picture as SVG: a panel per array and kind, one square per element coloured by its
        program; masked-off lanes hatched; squares outside the array dashed, with a bar where it
        ends; a fault (an active lane outside the array) in red."""
        body, y = [], 8.0
        for array in arrays or self.shapes:
            for kind in [k for k in self.kinds(array) if kinds is None or k in kinds]:
                cells, start = self.cells(array, kind)
                row_width = self._width(array)
                size = min(cell, (width - 60) / row_width)
                body.append(f'<text x="4" y="{y + 12:.1f}" font-size="12">{array}: {kind} '
                            f'({"x".join(map(str, self.shapes[array]))})</text>')
                y += 18
                first_row = (start // row_width) * row_width
                total = math.prod(self.shapes[array])
                for row in range(first_row, start + cells.size, row_width):
                    label = row // row_width if len(self.shapes[array]) == 2 else row
                    body.append(f'<text x="52" y="{y + size * 0.8:.1f}" font-size="10" '
                                f'text-anchor="end">{label if 0 <= row < total else "outside"}</text>')
                    for k in range(row_width):
                        i = row + k - start
                        if 0 <= i < cells.size:
                            body.append(self._square(56 + k * size, y, size, int(cells[i]), not 0 <= row + k < total))
                        if row + k == total and k:  # the array ends inside this row: a bar there
                            body.append(f'<line x1="{56 + k * size:.1f}" y1="{y - 2:.1f}" x2="{56 + k * size:.1f}" '
                                        f'y2="{y + size + 2:.1f}" stroke="black" stroke-width="2"/>')
                    y += size
                y += 10
        legend, x = [], 4.0
        programs = sorted({self.linear(a.pid) for a in self.accesses})
        for p in programs[:len(PROGRAM_COLORS)]:
            legend.append(self._square(x, y, 10, p, False) + f'<text x="{x + 13}" y="{y + 9}" font-size="11">{p}</text>')
            x += 14 + 7 * len(str(p))
        words = ["masked off", "several programs", "fault", "outside the array"]
        for code, word in zip((-2, -3, -4, -5), words):
            legend.append(self._square(x + 8, y, 10, code, False) +
                          f'<text x="{x + 21}" y="{y + 9}" font-size="11">{word}</text>')
            x += 30 + 6.2 * len(word)
        height = y + 20
        title = f"{self.kernel}, grid {self.grid}: colour = program (x fastest)"
        return "\n".join([
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height + 18:.0f}" '
            f'viewBox="0 -18 {width:.0f} {height + 18:.0f}" font-family="Helvetica, Arial, sans-serif">',
            '<defs><pattern id="hatch" width="4" height="4" patternUnits="userSpaceOnUse" '
            'patternTransform="rotate(45)"><rect width="4" height="4" fill="white"/>'
            '<line x1="0" y1="0" x2="0" y2="4" stroke="#e41a1c" stroke-width="1.2"/></pattern></defs>',
            f'<text x="4" y="-4" font-size="12" font-weight="bold">{title}</text>',
            *body, *legend, "</svg>"]) + "\n"

    @staticmethod
    def _square(x, y, size, code, past_end) -> str:
        """An element's square; -1 untouched, -2 masked off, -3 several, -4 fault, -5 the legend's
        dashed square for outside the array."""
        fill = {-1: "white", -2: "url(#hatch)", -3: SHARED, -4: FAULT, -5: "white"}.get(code) or \
            PROGRAM_COLORS[code % len(PROGRAM_COLORS)]
        dash = ' stroke-dasharray="2,1"' if past_end or code == -5 else ""
        return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{size:.1f}" height="{size:.1f}" fill="{fill}" '
                f'stroke="#737373" stroke-width="0.5"{dash}/>')


class Recorder:
    """The launches seen while recording, in order."""

    def __init__(self):
        self.launches: list[Launch] = []

    @property
    def last(self) -> Launch:
        assert self.launches, "no kernel ran in the interpreter while recording"
        return self.launches[-1]


_RECORDERS: list[Recorder] = []  # the recorders open now, innermost last


@contextlib.contextmanager
def record_accesses():
    """Record every kernel launched in the interpreter inside the `with`: see the module's doc."""
    recorder = Recorder()
    _RECORDERS.append(recorder)
    try:
        yield recorder
    finally:
        _RECORDERS.remove(recorder)


def note_launch(kernel: str, grid, arrays: dict) -> None:
    """A launch begins: its kernel, grid and pointer arguments by name (an array's shape is kept;
    an argument without one, an address, is sized when a lane first points into it)."""
    grid = tuple(grid) + (1,) * (3 - len(grid))
    shapes = {name: tuple(value.shape) for name, value in arrays.items() if getattr(value, "shape", ())}
    for recorder in _RECORDERS:
        recorder.launches.append(Launch(kernel, grid, dict(shapes)))


def note_access(memory, pid, op_name: str, addresses, mask, itemsize: int, line: int | None) -> None:
    """One load, store or atomic of program `pid`: place each lane in an array of `memory`."""
    if not _RECORDERS or not memory.allocations:
        return
    flat = np.asarray(addresses, np.int64).reshape(-1)
    active = np.ones(flat.size, bool) if mask is None else np.broadcast_to(mask, np.shape(addresses)).reshape(-1)
    bases = np.array([a.base for a in memory.allocations], np.int64)
    ends = np.array([a.end for a in memory.allocations], np.int64)
    which = np.searchsorted(bases, flat, side="right") - 1
    inside = (which >= 0) & (flat < ends[np.maximum(which, 0)])
    counted = which[inside & active] if (inside & active).any() else which[inside] if inside.any() else which
    home = int(np.bincount(np.maximum(counted, 0)).argmax())
    which = np.where(inside, which, home)
    for w in np.unique(which):
        allocation = memory.allocations[w]
        index = (flat - allocation.base) // itemsize
        here = which == w
        for recorder in _RECORDERS:
            if recorder.launches:
                launch = recorder.launches[-1]
                name = next((n for n in allocation.name.split("/") if n in launch.shapes), allocation.name)
                launch.shapes.setdefault(name, (allocation.data.size // itemsize,))
                launch.accesses.append(Access(KINDS[op_name], pid, name, index[here & active],
                                              index[here & ~active], line))
