"""Autotuning: `@autotune` picks, for each problem, the launch configuration that runs fastest.

Place in the pipeline: in front of the JIT. `@autotune(configs=[Config({...}, num_warps=, num_stages=)],
key=[...])` wraps a `@jit` kernel (or a `@heuristics` one) and is launched the same way,
`kernel[grid](*args)`. A launch reads the tuning key: the values of the arguments named in `key` and
the dtypes of the array arguments. The first launch for a key prunes the configs, runs each one that
is left once through a benchmark, keeps the fastest, and remembers the choice in memory and on disk
beside the compiled kernels, so a later process does not time them again. A config that does not
compile, does not fit the device or fails while it runs is scored as unusable, with the reason kept.
`@heuristics` computes constexprs (or launch options) from the other arguments at every launch.
Chapter: 10-performance.
"""
from __future__ import annotations

import functools
import inspect
import math
import os
import sys
import time
from typing import Any, Callable

from . import cache, driver
from .dtypes import dtype_of_array
from .errors import LaunchError, TritonError, user_facing
from .jit import JITFunction, KernelInterface, interpreting, wrong_call
from .kernel import launch_options
from .specialize import NoStableKey
from .testing import do_bench


PRINT_AUTOTUNING = "MINITRITON_PRINT_AUTOTUNING"  # `triton.knobs.autotuning.print`


def printing() -> bool:
    """MINITRITON_PRINT_AUTOTUNING=1 shows each config's time or failure, and the choice."""
    return os.environ.get(PRINT_AUTOTUNING, "0") not in ("", "0")


class AutotuneError(TritonError, RuntimeError):
    """No config of an autotuned kernel could run; the message lists each one and why."""


# --8<-- [start:config]
class Config:
    """One point of the search: constexpr values for the kernel, and the launch options
    (`maxnreg`: at most this many registers per thread; `num_ctas` must be 1 to run).

    `pre_hook(named_args)` runs before every launch with this config (while timing it, too)."""

    @user_facing
    def __init__(self, kwargs: dict, num_warps: int | None = 4, num_stages: int | None = 3, num_ctas: int = 1,
                 maxnreg: int | None = None, pre_hook=None, ir_override=None):
        launch_options(num_warps=num_warps, num_stages=num_stages, maxnreg=maxnreg)  # a wrong one: here, not at launch
        if ir_override is not None:
            raise ValueError(f"Config(ir_override={ir_override!r}): minitriton compiles every config "
                             f"from the kernel's source and cannot take IR from a file; leave it out")
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = None

    def all_kwargs(self) -> dict[str, Any]:
        """What a launch with this config passes to the kernel: the constexprs and the options
        (num_ctas and maxnreg only where they are not the default, so that a config's name, its
        `str`, stays what it was for configs that do not set them; an option given as None is
        left out, so the launch's default applies, as in Triton)."""
        options = {name: value for name, value in (("num_warps", self.num_warps), ("num_stages", self.num_stages))
                   if value is not None}
        if self.num_ctas != 1:
            options["num_ctas"] = self.num_ctas
        if self.maxnreg is not None:
            options["maxnreg"] = self.maxnreg
        return {**self.kwargs, **options}

    def __str__(self) -> str:
        return ", ".join(f"{name}: {value}" for name, value in self.all_kwargs().items())

    def __repr__(self) -> str:
        options = "".join(f", {name}={value}" for name, value in self.all_kwargs().items() if name not in self.kwargs)
        return f"Config({self.kwargs!r}{options})"
# --8<-- [end:config]


def _base_function(fn) -> JITFunction:
    """The @jit function under any number of autotune/heuristics wrappers."""
    inner = fn
    while not isinstance(inner, JITFunction):
        if not hasattr(inner, "fn"):
            raise TypeError(f"autotune and heuristics wrap a @jit function, got {fn!r}; "
                            f"put @jit closest to the function")
        inner = inner.fn
    return inner


_SCALARS = frozenset((int, float, bool, str, type(None)))  # never arrays: no dtype to look up


@functools.lru_cache(maxsize=None)
def _defaults(base: JITFunction) -> dict[str, Any]:
    """A kernel's parameters that have defaults, and those defaults (read once per kernel)."""
    return {name: p.default for name, p in base.signature.parameters.items() if p.default is not inspect.Parameter.empty}


def _named_args(base: JITFunction, args: tuple, kwargs: dict) -> dict[str, Any]:
    """The launch's arguments by parameter name (defaults filled in), then its other keywords
    (num_warps, ...). Constexprs a config or a heuristic will supply may still be missing. A
    call Python binds plainly (no name given twice, not too many positions) is bound here at
    once, as `inspect` would bind it: every launch of an autotuned kernel does this."""
    names = base.arg_names
    if len(args) <= len(names) and not any(k in names[:len(args)] for k in kwargs):
        named = dict(zip(names, args))
        defaults = _defaults(base)
        for name in names[len(args):]:
            if name in kwargs:
                named[name] = kwargs[name]
            elif name in defaults:
                named[name] = defaults[name]
        return {**named, **{k: v for k, v in kwargs.items() if k not in names}}
    try:
        bound = base.signature.bind_partial(*args, **{k: v for k, v in kwargs.items()
                                                      if k in base.arg_names})
    except TypeError as error:
        raise LaunchError(wrong_call(base, error, kwargs)) from None
    bound.apply_defaults()
    return {**bound.arguments, **{k: v for k, v in kwargs.items() if k not in base.arg_names}}


class Autotuner(KernelInterface):
    """A kernel launched with the best of several configs, chosen once per tuning key."""

    def __init__(self, fn, configs: list[Config], key: list[str], prune_configs_by: dict | None = None,
                 reset_to_zero: list[str] | None = None, restore_value: list[str] | None = None,
                 warmup: float | None = None, rep: float | None = None,
                 do_bench: Callable | None = None):
        self.fn = fn
        self.base_fn = _base_function(fn)
        self.__name__, self.__doc__ = self.base_fn.__name__, self.base_fn.__doc__
        self.arg_names = self.base_fn.arg_names
        self.configs = list(configs) or [Config({})]
        self.keys = list(key)
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        for option, names in (("key", self.keys), ("reset_to_zero", self.reset_to_zero),
                              ("restore_value", self.restore_value)):
            if unknown := [n for n in names if n not in self.arg_names]:
                raise ValueError(f"autotune({option}={names}) names {', '.join(map(repr, unknown))}, "
                                 f"not a parameter of {self.__name__}({', '.join(self.arg_names)})")
        prune = dict(prune_configs_by or {})
        if unknown := set(prune) - {"perf_model", "top_k", "early_config_prune"}:
            raise ValueError(f"prune_configs_by takes perf_model, top_k and early_config_prune; "
                             f"got {', '.join(sorted(unknown))}")
        self.perf_model = prune.get("perf_model")
        self.top_k = prune.get("top_k", 1.0)
        self.early_config_prune = prune.get("early_config_prune")
        self.bench_options = {k: v for k, v in (("warmup", warmup), ("rep", rep)) if v is not None}
        self.do_bench = do_bench
        self.cache: dict[tuple, Config] = {}
        self.configs_timings: dict[tuple, dict[Config, float]] = {}
        self.failures: dict[tuple, dict[str, str]] = {}
        self.best_config: Config | None = None

    def __call__(self, *args, **kwargs):
        raise LaunchError(f"{self.__name__} is an autotuned kernel: launch it as "
                          f"{self.__name__}[grid](...)")

    # --8<-- [start:run]
    @user_facing
    def run(self, *args, grid, **kwargs):
        """Find (or recall) the best config for this launch's key, then launch with it."""
        named = _named_args(self.base_fn, args, kwargs)
        if len(self.configs) == 1:
            config = self.configs[0]
        else:
            key = self.tuning_key(named)
            if key not in self.cache:
                self.cache[key] = self.tune(key, args, kwargs, named, grid)
            config = self.cache[key]
        self.best_config = config
        launch = self._launch_kwargs(kwargs, config)
        if config.pre_hook is not None:
            config.pre_hook({**named, **config.all_kwargs()})
        return self.fn.run(*args, grid=grid, **launch)
    # --8<-- [end:run]

    @user_facing
    def warmup(self, *args, grid=None, target: str | None = None, **kwargs) -> list:
        """Compile every config without running any (`target="sm_90"` needs no GPU)."""
        return [self.fn.warmup(*args, grid=grid, target=target, **self._launch_kwargs(kwargs, config))
                for config in self.configs]

    def _launch_kwargs(self, kwargs: dict, config: Config) -> dict:
        if clash := sorted(kwargs.keys() & config.kwargs.keys()):
            raise LaunchError(f"{self.__name__}[grid](...) was given {', '.join(clash)}, which the "
                              f"autotuner's configs choose; leave them out of the launch")
        return {**kwargs, **config.all_kwargs()}

    # --8<-- [start:tuning_key]
    def tuning_key(self, named: dict) -> tuple:
        """The values of the `key` arguments, then the dtype of every array argument: a new value
        of either is a new problem, tuned anew."""
        values = [named[name] for name in self.keys if name in named]
        dtypes = [dtype.name for value in named.values()
                  if type(value) not in _SCALARS and (dtype := dtype_of_array(value)) is not None]
        return tuple(values + dtypes)
    # --8<-- [end:tuning_key]

    # --8<-- [start:prune]
    def prune(self, named: dict, kwargs: dict) -> list[Config]:
        """The configs worth timing: early_config_prune's, then perf_model's top_k estimates."""
        configs = self.configs
        if self.early_config_prune is not None:
            configs = list(self.early_config_prune(configs, named, **kwargs))
            if not configs:
                raise AutotuneError(f"early_config_prune left no config of {self.__name__} to run")
        if self.perf_model is not None:
            top_k = self.top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(self.configs) * top_k))  # a fraction of all the configs
            elif not isinstance(top_k, int):
                raise TypeError(f"top_k must be an int, or a float <= 1.0 (a fraction); got {top_k!r}")
            if len(configs) > top_k:
                estimate = {config: self.perf_model(**{**named, **kwargs, **config.all_kwargs()})
                            for config in configs}
                configs = sorted(configs, key=estimate.__getitem__)[:top_k]
        return configs
    # --8<-- [end:prune]

    # --8<-- [start:tune]
    def tune(self, key: tuple, args: tuple, kwargs: dict, named: dict, grid) -> Config:
        """Choose the config for a new key: from the disk cache when a process chose before,
        else by running each pruned config once through the benchmark."""
        started = time.perf_counter()
        configs = self.prune(named, kwargs)
        if len(configs) == 1:
            self._announce(key, configs[0], "the only config left after pruning")
            return configs[0]
        timer_name, measure = self._timer()
        record_key = self._record_key(key, configs, timer_name) if cache.cache_enabled() else None
        if record_key and (chosen := self._recall(key, configs, record_key)):
            self._announce(key, chosen, "from the disk cache")
            return chosen

        if printing():
            print(f"minitriton: autotuning {self.__name__} for key {key}: {len(configs)} of "
                  f"{len(self.configs)} configs", file=sys.stderr)
        timings, failures = self._time_each(configs, measure, args, kwargs, named, grid)
        self.configs_timings[key], self.failures[key] = timings, failures
        if all(math.isinf(t) for t in timings.values()):
            raise AutotuneError(_all_failed(self.__name__, key, failures))
        best = min(timings, key=timings.get)
        for name in self.reset_to_zero:  # the real launch starts from zero, as the timed ones did
            _zero(named[name])
        if record_key:
            self._remember(record_key, key, best, timings, failures)
        measured = "the first that runs; the interpreter does not time" if measure is _run_once \
            else f"{timings[best]:.4f} ms"
        self._announce(key, best, f"{measured}; tuned in {time.perf_counter() - started:.2f} s")
        return best
    # --8<-- [end:tune]

    # --8<-- [start:time_each]
    def _time_each(self, configs, measure, args, kwargs, named, grid):
        """Run every config through `measure`; a failure scores inf and keeps its reason. Arguments
        in reset_to_zero are zeroed before each run; those in restore_value are put back after."""
        saved = {name: _snapshot(named[name]) for name in self.restore_value}
        timings: dict[Config, float] = {}
        failures: dict[str, str] = {}
        for config in configs:
            launch = self._launch_kwargs(kwargs, config)
            hook_args = {**named, **config.all_kwargs()}

            def kernel_call(config=config, launch=launch, hook_args=hook_args):
                if config.pre_hook is not None:
                    config.pre_hook(hook_args)
                for name in self.reset_to_zero:
                    _zero(named[name])
                try:
                    self.fn.run(*args, grid=grid, **launch)
                finally:
                    for name, copy in saved.items():
                        _restore(named[name], copy)

            try:
                timings[config] = measure(kernel_call)
            except Exception as error:  # a compile error, a config that does not fit, a failed run
                timings[config] = math.inf
                failures[str(config)] = f"{type(error).__name__}: {error}"
            if printing():
                outcome = failures.get(str(config), "").split("\n")[0] or \
                    ("runs" if measure is _run_once else f"{timings[config]:.4f} ms")
                print(f"  {config}: {outcome}", file=sys.stderr)
            if measure is _run_once and not math.isinf(timings[config]):
                break  # the interpreter does not time: the first config that runs is the choice
        return timings, failures
    # --8<-- [end:time_each]

    def _timer(self) -> tuple[str, Callable[[Callable], float]]:
        """How a config is measured, and a name for that (part of the disk cache's key)."""
        if self.do_bench is not None:
            return _qualified_name(self.do_bench), self._measure_with(self.do_bench)
        if interpreting():
            return "interpreter: first config that runs", _run_once
        # A median, as Triton's autotuner takes, so one slow run (a clock hiccup) does not decide;
        # of pairs of runs, so a GPU whose runs alternate between two speeds does not either.
        median = functools.partial(do_bench, return_mode="pair_median")
        return f"{_qualified_name(do_bench)}(pair_median)", self._measure_with(median)

    def _measure_with(self, do_bench: Callable) -> Callable[[Callable], float]:
        def measure(kernel_call) -> float:
            result = do_bench(kernel_call, **self.bench_options)
            # Triton's do_bench returns a list when asked for quantiles; the first is the median.
            return float(result[0] if isinstance(result, (list, tuple)) else result)
        return measure

    # --8<-- [start:disk]
    def _record_key(self, key: tuple, configs: list[Config], timer_name: str) -> str | None:
        """What decides the choice: the kernel's code, the problem, the candidates, the machine
        (None for a kernel that reads a value no other process could compare: nothing is kept)."""
        try:
            kernel = self.base_fn.cache_key
        except NoStableKey:
            return None
        return cache.make_key(kind="autotune", kernel=kernel, name=self.__name__,
                              key=[repr(value) for value in key], configs=[str(c) for c in configs],
                              target=_target(), timer=timer_name)

    def _recall(self, key: tuple, configs: list[Config], record_key: str) -> Config | None:
        record = cache.FileCache().get_json(record_key)
        by_name = {str(config): config for config in configs}
        if not _well_formed(record, by_name):
            return None  # not a record this version wrote for these configs: tune again
        timings = record["timings"]
        self.configs_timings[key] = {config: math.inf if timings.get(name) is None else timings[name]
                                     for name, config in by_name.items() if name in timings}
        self.failures[key] = dict(record.get("failures", {}))
        return by_name[record["config"]]

    def _remember(self, record_key: str, key: tuple, best: Config, timings: dict, failures: dict):
        # JSON has no infinity: an unusable config's time is stored as null.
        record = {"kernel": self.__name__, "key": [repr(value) for value in key], "config": str(best),
                  "timings": {str(c): None if math.isinf(t) else t for c, t in timings.items()},
                  "failures": failures}
        try:
            cache.FileCache().put_json(record_key, record)
        except OSError as error:
            cache.cannot_write(cache.cache_dir(), error)
    # --8<-- [end:disk]

    def _announce(self, key: tuple, config: Config, how: str) -> None:
        if printing():
            print(f"minitriton: {self.__name__} for key {key}: best config {config} ({how})",
                  file=sys.stderr)


def _well_formed(record, by_name: dict[str, Config]) -> bool:
    """Whether a record read back from disk is one `_remember` wrote for these configs: the chosen
    config's name, a time (ms, or null for one that failed) by config name, and a reason by config
    name for each failure. Anything else (a hand-edited file, JSON of another shape) is a miss."""
    if not isinstance(record, dict) or not isinstance(record.get("config"), str) \
            or record["config"] not in by_name:
        return False
    timings, failures = record.get("timings"), record.get("failures", {})
    return isinstance(timings, dict) and isinstance(failures, dict) \
        and all(t is None or type(t) in (int, float) and math.isfinite(t) and t >= 0 for t in timings.values()) \
        and all(isinstance(reason, str) for reason in failures.values())


def _run_once(kernel_call) -> float:
    """The interpreter's measure: run once (so a failing config shows) and time nothing."""
    kernel_call()
    return 0.0


def _target() -> str:
    """Where the timings were taken: the interpreter, or the GPU's arch and name."""
    if interpreting():
        return "interpreter"
    if not driver.is_available():
        return "cuda"
    properties = driver.device_properties()
    return f"{properties.arch} {properties.name}"


def _qualified_name(fn) -> str:
    return f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', type(fn).__name__)}"


def _all_failed(name: str, key: tuple, failures: dict[str, str]) -> str:
    reasons = set(failures.values())
    if len(reasons) == 1:
        return (f"autotuning {name} for key {key}: all {len(failures)} configs failed the same way:\n"
                f"  {_indent(reasons.pop())}")
    lines = [f"autotuning {name} for key {key}: no config could run:"]
    lines += [f"  {config}: {_indent(reason)}" for config, reason in failures.items()]
    return "\n".join(lines)


def _indent(text: str) -> str:
    return text.replace("\n", "\n    ")


# --8<-- [start:reset]
# reset_to_zero and restore_value: what an array must be between timed runs, by its kind.
def _zero(array) -> None:
    if hasattr(array, "zero_"):  # torch
        array.zero_()
    elif hasattr(array, "fill"):  # numpy, CuPy
        array.fill(0)
    else:
        _device_array(array)
        from cuda.bindings import driver as cuda
        driver.check(cuda.cuMemsetD8(array.data_ptr(), 0, array.nbytes), "cuMemsetD8")


def _snapshot(array):
    if hasattr(array, "clone"):  # torch
        return array.clone()
    if hasattr(array, "copy"):  # numpy, CuPy
        return array.copy()
    copy = _device_array(array).alloc(array.shape, array.dtype)
    _restore(copy, array)
    return copy


def _restore(array, saved) -> None:
    if hasattr(array, "copy_"):  # torch
        array.copy_(saved)
    elif hasattr(array, "__setitem__"):  # numpy, CuPy
        array[...] = saved
    else:
        _device_array(array)
        from cuda.bindings import driver as cuda
        driver.check(cuda.cuMemcpyDtoD(array.data_ptr(), saved.data_ptr(), array.nbytes), "cuMemcpyDtoD")
# --8<-- [end:reset]


def _device_array(array):
    """The DeviceArray class, after checking that `array` is one."""
    if not isinstance(array, driver.DeviceArray):
        raise TypeError(f"reset_to_zero and restore_value take torch tensors, numpy or CuPy arrays "
                        f"and DeviceArrays, not a {type(array).__name__}")
    return driver.DeviceArray


# --8<-- [start:heuristics]
class Heuristics(KernelInterface):
    """A kernel whose named constexprs (or launch options) are computed from the other arguments."""

    def __init__(self, fn, values: dict[str, Callable[[dict], Any]]):
        self.fn = fn
        self.base_fn = _base_function(fn)
        self.__name__, self.__doc__ = self.base_fn.__name__, self.base_fn.__doc__
        self.arg_names = self.base_fn.arg_names
        self.values = dict(values)

    def __call__(self, *args, **kwargs):
        raise LaunchError(f"{self.__name__} is a kernel: launch it as {self.__name__}[grid](...)")

    @user_facing
    def run(self, *args, grid, **kwargs):
        return self.fn.run(*args, grid=grid, **self._with_values(args, kwargs))

    @user_facing
    def warmup(self, *args, grid=None, target: str | None = None, **kwargs):
        return self.fn.warmup(*args, grid=grid, target=target, **self._with_values(args, kwargs))

    def _with_values(self, args: tuple, kwargs: dict) -> dict:
        """The launch's keywords plus each heuristic's value; a later one sees the earlier ones."""
        named = _named_args(self.base_fn, args, kwargs)
        kwargs = dict(kwargs)
        for name, rule in self.values.items():
            kwargs[name] = named[name] = rule(named)
        return kwargs


def heuristics(values: dict[str, Callable[[dict], Any]]) -> Callable:
    """`@heuristics({"EVEN_N": lambda args: args["n"] % args["BLOCK"] == 0})`: each launch passes
    the values these functions compute from the arguments (a dict by parameter name)."""
    return lambda fn: Heuristics(fn, values)
# --8<-- [end:heuristics]


# --8<-- [start:autotune]
def autotune(configs: list[Config], key: list[str], prune_configs_by: dict | None = None,
             reset_to_zero: list[str] | None = None, restore_value: list[str] | None = None,
             warmup: float | None = None, rep: float | None = None,
             do_bench: Callable | None = None) -> Callable:
    """Launch the decorated kernel with the fastest of `configs`, chosen once per value of the
    `key` arguments (and array dtypes). `prune_configs_by` = {"early_config_prune":
    fn(configs, named_args, **kwargs), "perf_model": fn(**args, **config) -> estimate, "top_k": n};
    `do_bench(fn, warmup=, rep=) -> ms` replaces the benchmark (tests, other timers)."""
    return lambda fn: Autotuner(fn, configs, key, prune_configs_by, reset_to_zero, restore_value,
                                warmup, rep, do_bench)
# --8<-- [end:autotune]
