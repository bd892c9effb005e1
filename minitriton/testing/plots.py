"""Tables, CSV files and plots: written here once, for `perf_report` and for `minitriton.bench`.

matplotlib is optional (the `bench` extra): without it the plots are skipped with a note and the
CSV files are still written. Chapter: 10-performance.
"""
from __future__ import annotations

import csv
import math
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

MATPLOTLIB_MISSING = "matplotlib is not installed (pip install 'minitriton[bench]'): no plot, only the CSV"


def format_cell(value) -> str:
    """A table cell: "-" for nothing, four significant digits for small floats, whole numbers past 1000."""
    if value is None:
        return "-"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.4g}"
    return str(value)


def format_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Columns padded to their widest cell, the first to the left (it names the row), the others
    to the right, a rule under the header."""
    cells = [[format_cell(c) for c in row] for row in rows]
    widths = [max([len(str(header[i]))] + [len(r[i]) for r in cells]) for i in range(len(header))]

    def line(row):
        padded = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(padded).rstrip()

    return "\n".join([line([str(h) for h in header]), "  ".join("-" * w for w in widths),
                      *(line(r) for r in cells)])


def write_csv(path: Path | str, header: Sequence[str], rows: Sequence[Sequence[Any]],
              precision: int | None = None) -> Path:
    """Rows as CSV, floats at full precision or with `precision` decimals (a missing value is an
    empty cell)."""
    def cell(value):
        if value is None:
            return ""
        return f"{value:.{precision}f}" if precision is not None and isinstance(value, float) else value

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(header)
        writer.writerows([[cell(c) for c in row] for row in rows])
    return path


@dataclass
class Line:
    """One line of a plot: an implementation's values along the swept size. A None is a point
    that has no value (a run that failed) and is left out."""

    name: str
    x: list
    y: list
    y_min: list | None = None  # a band around the line, when the function reports one
    y_max: list | None = None
    color: str | None = None
    linestyle: str | None = None


PANELS_PER_ROW = 2  # wider, a figure shown in a book's column or a laptop's window is too small to read


def _figure(panels: int, show: bool, width: float = 5.5):
    """A figure with `panels` axes, PANELS_PER_ROW to a row, each `width` inches wide, or None
    (after a note) without matplotlib. Saved figures are drawn off screen, without touching
    pyplot's backend."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(MATPLOTLIB_MISSING, flush=True)
        return None
    columns = min(panels, PANELS_PER_ROW)
    rows = -(-panels // columns)
    size = (width * columns, 4.2 * rows)
    if show:
        import matplotlib.pyplot as plt
        figure = plt.figure(figsize=size)
    else:
        from matplotlib.figure import Figure
        figure = Figure(figsize=size)
    axes = list(figure.subplots(rows, columns, squeeze=False).flat)
    for unused in axes[panels:]:
        unused.set_visible(False)
    return figure, axes[:panels]


def plot_lines(path: Path | str | None, panels: dict[str, list[Line]], xlabel: str, ylabel: str,
               x_log: bool = False, y_log: bool = False, x_base: int = 10, show: bool = False) -> bool:
    """One axes per panel (its title the key), a line with markers per `Line`. Saves a PNG to `path`
    (if given). False when matplotlib is missing. `x_log` scales the panels whose x are numbers; a
    panel of named points (matmul shapes such as "8192x8192x512") keeps them in their order."""
    made = _figure(len(panels), show)
    if made is None:
        return False
    figure, axes = made
    for ax, (title, lines) in zip(axes, panels.items()):
        for line in lines:
            points = [(x, y, lo, hi) for x, y, lo, hi in zip(line.x, line.y, line.y_min or [None] * len(line.x),
                                                             line.y_max or [None] * len(line.x)) if y is not None]
            if not points:
                continue
            xs, ys, lows, highs = zip(*points)
            ax.plot(xs, ys, marker="o", markersize=3, label=line.name, color=line.color, ls=line.linestyle)
            if None not in lows and None not in highs:
                ax.fill_between(xs, lows, highs, alpha=0.15, color=line.color)
        if x_log and all(isinstance(x, (int, float)) for line in lines for x in line.x):
            ax.set_xscale("log", base=x_base)
        if y_log:
            ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        ax.legend()
    return _finish(figure, path, show)


def plot_bars(path: Path | str | None, groups: dict[str, dict[str, float | None]], ylabel: str,
              title: str = "", y_log: bool = False, show: bool = False) -> bool:
    """Grouped bars: one group per key of `groups`, one bar per implementation in it."""
    made = _figure(1, show, width=max(5.5, 2.2 * len(groups)))
    if made is None:
        return False
    figure, (ax,) = made
    names = list(dict.fromkeys(name for bars in groups.values() for name in bars))
    width = 0.8 / max(len(names), 1)
    for i, name in enumerate(names):
        heights = [bars.get(name) for bars in groups.values()]
        positions = [g + (i - (len(names) - 1) / 2) * width for g in range(len(groups))]
        ax.bar([p for p, h in zip(positions, heights) if h is not None],
               [h for h in heights if h is not None], width, label=name)
    ax.set_xticks(range(len(groups)), [textwrap.fill(group, 20) for group in groups])
    if y_log:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend()
    return _finish(figure, path, show)


def _finish(figure, path, show: bool) -> bool:
    figure.tight_layout()
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(path, dpi=120)
    if show:
        import matplotlib.pyplot as plt
        plt.show()
    return True
