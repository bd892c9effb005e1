"""`perf_report(Benchmark(...))`: a function of a few parameters swept into a table, a CSV and a plot,
as `triton.testing` does. Chapter: 10-performance.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .plots import Line, format_table, plot_lines, write_csv


# --8<-- [start:perf_report]
@dataclass
class Benchmark:
    """One sweep for `perf_report`, as in `triton.testing.Benchmark`: the function is called with
    each of `x_vals` for the `x_names` (a value for all of them, or a tuple with one value each) and
    each of `line_vals` for `line_arg`, plus the fixed `args`. Each `line_vals` entry is one line,
    labelled by `line_names`; `styles` are (color, linestyle) pairs."""

    x_names: list[str]
    x_vals: list
    line_arg: str
    line_vals: list
    line_names: list[str]
    plot_name: str
    args: dict
    xlabel: str = ""
    ylabel: str = ""
    x_log: bool = False
    y_log: bool = False
    styles: list[tuple[str, str]] | None = None


class Mark:
    """A function under `perf_report`: `.run()` sweeps it over its benchmarks."""

    def __init__(self, fn: Callable, benchmarks: Benchmark | list[Benchmark]):
        self.fn, self.benchmarks = fn, benchmarks

    def run(self, show_plots: bool = False, print_data: bool = False, save_path: str | Path = "",
            return_df: bool = False, diff_col: bool = False, save_precision: int | None = None, **kwargs):
        """Sweep every benchmark; print its table (`print_data`), save `<plot_name>.csv` (floats
        with `save_precision` decimals, or all of them) and `.png` under `save_path` (if given),
        show the plot (`show_plots`). `diff_col`: a table of two columns gets a third, "Diff", the
        second minus the first (as Triton's). Other keywords go to the function. With
        `return_df`, returns each benchmark's (header, rows)."""
        benchmarks = [self.benchmarks] if isinstance(self.benchmarks, Benchmark) else self.benchmarks
        tables = [self._run(bench, show_plots, print_data, save_path, diff_col, save_precision, kwargs)
                  for bench in benchmarks]
        if return_df:
            return tables[0] if isinstance(self.benchmarks, Benchmark) else tables
        return None

    def _run(self, bench: Benchmark, show_plots, print_data, save_path, diff_col, save_precision, kwargs):
        x_values, means, lows, highs = sweep(self.fn, bench, kwargs)
        header = [*bench.x_names, *bench.line_names]
        rows = [[*x, *(m[i] for m in means)] for i, x in enumerate(x_values)]
        if diff_col and len(header) == 2:
            header.append("Diff")
            for row in rows:
                row.append(row[1] - row[0])
        if any(v is not None for band in lows for v in band):
            header += [f"{n}-min" for n in bench.line_names] + [f"{n}-max" for n in bench.line_names]
            for i, row in enumerate(rows):
                row += [lo[i] for lo in lows] + [hi[i] for hi in highs]
        if print_data:
            print(f"{bench.plot_name}:")
            print(format_table(header, rows), flush=True)
        if save_path or show_plots:
            styles = bench.styles or [(None, None)] * len(bench.line_names)
            lines = [Line(name, [x[0] for x in x_values], means[i], lows[i], highs[i], *styles[i])
                     for i, name in enumerate(bench.line_names)]
            plot_lines(Path(save_path) / f"{bench.plot_name}.png" if save_path else None,
                       {bench.plot_name: lines}, bench.xlabel or " = ".join(bench.x_names),
                       bench.ylabel, bench.x_log, bench.y_log, show=show_plots)
        if save_path:
            write_csv(Path(save_path) / f"{bench.plot_name}.csv", header, rows, save_precision)
        return header, rows


def sweep(fn: Callable, bench: Benchmark, kwargs: dict):
    """Call `fn` at every (x, line) point: the x values (a tuple per x), and per line its values
    and its lower and upper band (None where `fn` returned a single number)."""
    x_values, means, lows, highs = [], [[] for _ in bench.line_vals], [[] for _ in bench.line_vals], \
        [[] for _ in bench.line_vals]
    for x in bench.x_vals:
        x = tuple(x) if isinstance(x, (list, tuple)) else (x,) * len(bench.x_names)
        if len(x) != len(bench.x_names):
            raise ValueError(f"{bench.plot_name}: x value {x} does not give one value for each of "
                             f"{bench.x_names}")
        x_values.append(x)
        for i, line in enumerate(bench.line_vals):
            result = fn(**dict(zip(bench.x_names, x)), **{bench.line_arg: line}, **bench.args, **kwargs)
            mean, low, high = result if isinstance(result, (tuple, list)) else (result, None, None)
            means[i].append(mean)
            lows[i].append(low)
            highs[i].append(high)
    return x_values, means, lows, highs


def perf_report(benchmarks: Benchmark | list[Benchmark]) -> Callable[[Callable], Mark]:
    """Mark a function for benchmarking: `perf_report(Benchmark(...))(fn).run(print_data=True)`."""
    return lambda fn: Mark(fn, benchmarks)
# --8<-- [end:perf_report]
