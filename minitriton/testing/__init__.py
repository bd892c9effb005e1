"""`triton.testing`: timing kernels, checking their results, and reporting sweeps.

Not a stage of the compiler: the tools that time and check what the pipeline produced, under
Triton's names. `timing.py`: `do_bench` (CUDA events, the L2 flushed before every run),
`do_bench_interleaved` and `do_bench_cudagraph`; `checks.py`: `assert_close` and the relative
error; `report.py`: `Benchmark` and `perf_report`; `plots.py`: the tables, CSV files and plots
that `perf_report` and `minitriton.bench` write; `device.py`: the memory bandwidth a roofline
divides by. Chapter: 10-performance.
"""
from .checks import assert_close, relative_error, to_numpy  # noqa: F401
from .device import get_dram_gbps  # noqa: F401
from .plots import MATPLOTLIB_MISSING, Line, format_cell, format_table, plot_bars, plot_lines, write_csv  # noqa: F401
from .report import Benchmark, Mark, perf_report, sweep  # noqa: F401
from .timing import (L2_FLUSH_BYTES, RETURN_MODES, CudaClock, HostClock, do_bench,  # noqa: F401
                     do_bench_cudagraph, do_bench_interleaved, pair_median, run_counts, summarize,
                     time_runs)
