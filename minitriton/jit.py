"""The JIT front: `@jit`, `kernel[grid](*args, num_warps=, num_stages=, **constexprs)`.

A launch binds the arguments to the kernel's parameters, reads each runtime argument's launch key
(`specialize.launch_key`), looks the key up among the launches seen before and calls the prepared
launch found there. A key's first launch goes the slow way: `run_slow` specializes the arguments
(`specialize.specialize`), finds or compiles the kernel for that specialization (through
`compiler.compile`, which also consults the disk cache), launches it and gives the key its entry.
Where a C compiler is here, `launcher.c` does the binding, reading and launching of a hit in C and
hands everything else to the binder in Python. Chapter: 01-introduction (the launch),
09-ptx-driver-cache (the fast path).
"""
from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass, replace
from typing import Any, Callable

from . import compiler, exercise_hooks, launcher
from .dtypes import DType
from .errors import (USER_ERRORS, ArgumentKindError, CompilationError, GlobalChanged, LaunchError, debugging,
                     for_the_user, user_facing)
from .frontend import GONE, GlobalRead, KernelFunction, dependencies
from .kernel import INTERPRET_VARIABLES, Options, grid3, interpreting, launch_options
from .specialize import MISSING, constant, launch_key, members_of, plain_key, runtime_values, specialize

# --8<-- [start:launch-options]
# What a launch may say besides the arguments, and the defaults: Triton's launch options (the
# fields of `kernel.Options`). Each is part of the launch key, so two launches that differ in one
# never share a compiled kernel. num_ctas (thread block clusters) is accepted so that launches
# written for Triton run, and must be 1.
LAUNCH_OPTIONS = {"num_warps": 4, "num_stages": 3, "num_ctas": 1, "maxnreg": None,
                  "launch_cooperative_grid": False, "launch_pdl": False, "enable_fp_fusion": True}

# Options of Triton's other backends (AMD's, Intel's, Ascend's), and of its CUDA backend, that
# change nothing here (device_assert is always checked, so `debug` is moot). Libraries pass them
# where their kernels run elsewhere too, and Triton's backends drop the options they lack: a
# launch may give them, and they are ignored. A name Triton knows nowhere is still a mistake.
IGNORED_OPTIONS = frozenset({
    "debug", "sanitize_overflow", "ptx_version", "ptx_options", "ir_override", "cluster_dims",
    "max_num_imprecise_acc_default", "instrumentation_mode", "arch", "backend_name", "warp_size",
    "supported_fp8_dtypes", "deprecated_fp8_dot_operand_dtypes", "default_dot_input_precision",
    "allowed_dot_input_precisions", "waves_per_eu", "kpack", "matrix_instr_nonkdim",
    "allow_flush_denorm", "schedule_hint", "instruction_sched_variant", "grf_mode",
    "generate_native_code", "advanced_path", "multibuffer", "enable_ubuf_saving",
})
# --8<-- [end:launch-options]


class KernelInterface:
    """What every launchable kernel is (Triton's name for it): `kernel[grid](*args)` is
    `kernel.run(*args, grid=grid)`. JITFunction, and autotune's and heuristics' wrappers, are ones."""

    def __getitem__(self, grid) -> Callable:
        return functools.partial(self.run, grid=grid)


class JITFunction(KernelFunction, KernelInterface):
    """A kernel (or a helper that kernels call): the Python function, parsed once, compiled per key."""

    def __init__(self, fn: Callable, do_not_specialize=(), debug=None, noinline=False, repr=None):
        super().__init__(fn)
        self.do_not_specialize = {self.arg_names[a] if isinstance(a, int) else a for a in do_not_specialize}
        self.cache: dict[tuple, Any] = {}  # specialization -> CompiledKernel
        self.repr = repr  # Triton's: a compiled kernel's name from its Specialization

    def __call__(self, *args, **kwargs):
        raise LaunchError(f"{self.__name__} is a @jit function: launch it as {self.__name__}[grid](...) "
                          "or call it from another @jit function")

    def __getitem__(self, grid) -> Callable:
        binder = self.__dict__.get("_binder") or self._make_binder()
        return functools.partial(binder, grid) if binder.__class__ is _FUNCTION else binder[grid]

    # --8<-- [start:run]
    def run(self, *args, grid, **kwargs):
        """Launch over `grid`: the binder's fast path (one key, one dict lookup, one prepared call)."""
        return (self.__dict__.get("_binder") or self._make_binder())(grid, *args, **kwargs)

    @user_facing
    def run_slow(self, *args, grid, **kwargs):
        """Bind, check the grid, specialize, find (or compile) the kernel for this key, then launch
        it over `grid`: the interpreter's way, and the way of any call the fast path does not take.
        A mistake in the launch or the kernel reaches the user without minitriton's frames."""
        options = self.options(kwargs)
        bound = self.bind(args, kwargs)
        grid = grid3(grid(bound) if callable(grid) else grid)  # before compiling: a bad grid costs nothing
        kernel = self.kernel_for(bound, options, target=None)
        kernel.launch(grid, runtime_values(bound, kernel.runtime_args))
        return kernel
    # --8<-- [end:run]

    def _make_binder(self) -> Callable:
        """This kernel's binder, made at its first launch: the Python one (`make_binder`), behind
        launcher.c's where the compiled fast path is here."""
        params = list(self.signature.parameters.values())
        runtime = [n for n in self.arg_names if n not in self.constexpr_names]
        fast = launcher.fast_path([n in self.do_not_specialize for n in runtime], launch_key, grid3) \
            if _bindable(params) else None
        python = make_binder(self, fast)
        if fast is None:
            self._binder = python
            return python
        options = [o for o in LAUNCH_OPTIONS if o not in self.arg_names]
        self._binder = launcher.compiled_launcher()[0].Binder(
            fast, tuple(self.arg_names), tuple(n in self.constexpr_names for n in self.arg_names),
            tuple(MISSING if p.default is p.empty else p.default for p in params), tuple(options),
            tuple(LAUNCH_OPTIONS[o] for o in options), MISSING, python, *INTERPRET_VARIABLES)
        return self._binder

    @user_facing
    def warmup(self, *args, grid=None, target: str | None = None, **kwargs):
        """Compile without running; `target="sm_90"` compiles for a GPU that need not be here."""
        options = self.options(kwargs)  # first: it takes the options out of kwargs
        return self.kernel_for(self.bind(args, kwargs), options, target)

    def options(self, kwargs: dict) -> Options:
        """The launch options (LAUNCH_OPTIONS) taken out of `kwargs`, checked; an option the kernel
        also has as a parameter (a constexpr named `num_stages`, say) is left in `kwargs` too."""
        chosen = {name: kwargs.get(name, default) if name in self.arg_names else kwargs.pop(name, default)
                  for name, default in LAUNCH_OPTIONS.items()}
        for name in IGNORED_OPTIONS & kwargs.keys() - set(self.arg_names):
            del kwargs[name]
        if chosen["num_ctas"] not in (1, None) and "num_ctas" not in self.arg_names:
            _one_cta(chosen["num_ctas"])
        if "extern_libs" not in self.arg_names:  # rare: its launches take this slow way
            chosen["extern_libs"] = kwargs.pop("extern_libs", None)
        return launch_options(**chosen)

    def bind(self, args, kwargs) -> dict[str, Any]:
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise LaunchError(wrong_call(self, e, kwargs)) from None
        bound.apply_defaults()
        return bound.arguments

    def kernel_for(self, bound: dict, options: Options, target: str | None):
        self.check_kernel_parameters()
        backend = "interpreter" if interpreting() and target is None else (target or "cuda")
        specs, constexprs = [], []
        for name, value in bound.items():
            if isinstance(value, str) and name not in self.constexpr_names:
                raise LaunchError(f"argument `{name}` of {self.__name__} is the string {value!r}; "
                                  "expected an array, an int, a float or a bool (strings can only be "
                                  f"given to tl.constexpr parameters: `{name}: tl.constexpr`)")
            if name in self.constexpr_names or value is None or isinstance(value, DType):
                constexprs.append((name, constant(name, value)))
            else:
                specs.append((name, specialize(name, value, specialized=name not in self.do_not_specialize)))
        options = replace(options, target=backend)
        key = (tuple(specs), tuple(constexprs), exercise_hooks.installed(), options)
        kernel = self.cache.get(key)
        if kernel is not None and (changed := _changed(kernel.globals_read)):
            if target is None and backend != "interpreter":
                raise _global_changed(self.__name__, changed) from None
            kernel = None  # the interpreter reads globals as they are now, as Triton's does: compile again
        if kernel is None:
            name = _kernel_name(self.repr(Specialization.of(specs, constexprs))) if self.repr else None
            try:
                reads = tuple(dependencies(self, [value for _, value in constexprs]).reads)
                kernel = compiler.compile(compiler.ASTSource(self, dict(specs), dict(constexprs), name=name),
                                          target=backend, options=options)
            except CompilationError as error:
                raise misplaced_argument(self, bound, dict(specs), dict(constexprs), options, error) or error
            kernel.globals_read = reads
            self.cache[key] = kernel
        return kernel


# --8<-- [start:misplaced]
# What an argument could have been instead, to see whether the kernel compiles with it: a number
# (or None) tried as a pointer, an array as a number (a 0-d array is a pointer to its element).
AS_POINTER = (("*fp32", False), ("*i32", False))
AS_NUMBER = (("i32", False, False), ("fp32",))
NUMBERS = ("i1", "i32", "i64", "u64", "fp32")  # what `specialize` makes of a bool, an int, a float


def misplaced_argument(kernel: JITFunction, bound: dict, specs: dict, constexprs: dict, options: Options,
                       error: CompilationError) -> ArgumentKindError | None:
    """After `kernel` failed to compile: the argument of the wrong kind, if one explains the failure.
    Each number (or None) is tried as a pointer and each array as a number, one at a time, in the
    tile IR alone; if the kernel compiles with exactly one of them changed, the mistake is that
    argument's, and the error names it, at the line where the kernel's use of it failed. None if no
    argument explains the failure, or if several do each alone: in `x_ptr + y_ptr` either pointer
    made a number would compile, and the mistake is the kernel's (the language's error stands)."""
    explained = [name for name, value in bound.items()
                 if _compiles_as_the_other_kind(kernel, name, value, specs, constexprs, options)]
    if len(explained) != 1:
        return None
    name = explained[0]
    value = bound[name]
    if name in specs and specs[name][0].startswith("*"):
        item = f" ({name}.item())" if getattr(value, "ndim", 1) == 0 else ""
        wanted, hint = "a number", "pass a number" + item
    else:
        wanted = "a pointer"
        hint = "pass an array there (a torch tensor, a numpy array, a DeviceArray)"
    misplaced = ArgumentKindError(error.loc, f"argument `{name}` of {kernel.__name__} is "
                                  f"{_described(value)}, but the kernel uses it as {wanted} "
                                  f"({error.message})", hint)
    misplaced.__cause__ = error if debugging() else None
    misplaced.__suppress_context__ = True
    return misplaced


def _compiles_as_the_other_kind(kernel: JITFunction, name: str, value, specs: dict, constexprs: dict,
                                options: Options) -> bool:
    """Whether the kernel's tile IR builds with argument `name` a number where it is an array, or a
    pointer where it is a number (or None)."""
    kind = specs[name][0] if name in specs else None
    pointer = kind is not None and kind.startswith("*")
    if name in kernel.constexpr_names or not (pointer or kind in NUMBERS or value is None):
        return False
    others = {n: c for n, c in constexprs.items() if n != name}
    for instead in AS_NUMBER if pointer else AS_POINTER:
        try:
            compiler.tile_ir(compiler.ASTSource(kernel, {**specs, name: instead}, others), options)
        except Exception:  # noqa: BLE001  (a probe that fails in any way explains nothing)
            continue
        return True
    return False


def _described(value) -> str:
    if value is None:
        return "None"
    shape = getattr(value, "shape", None)
    if shape is not None:
        return "a 0-d array, which a kernel takes as a pointer to its one element" if len(shape) == 0 \
            else f"an array of shape {tuple(shape)}, which a kernel takes as a pointer to its first element"
    return f"the {type(value).__name__} {value!r}"
# --8<-- [end:misplaced]


def wrong_call(kernel, error: TypeError, kwargs: dict) -> str:
    """What is wrong with a launch's arguments (Python's words), what the kernel takes, and the
    parameter or launch option an unknown keyword was perhaps meant to be."""
    options = [o for o in (*LAUNCH_OPTIONS, "extern_libs") if o not in kernel.arg_names]
    unknown = [k for k in kwargs if k not in kernel.arg_names]
    close = [m for k in unknown for m in difflib.get_close_matches(k, [*kernel.arg_names, *options], n=1)]
    return (f"{kernel.__name__}[grid](...): {error}; its parameters are ({', '.join(kernel.arg_names)}), and "
            f"a launch may also give {', '.join(options)}" + (f" (did you mean {', '.join(close)}?)" if close else ""))


@dataclass(frozen=True)
class Specialization:
    """What `@jit(repr=...)` is given, as Triton gives it: each argument's type (`"i32"`, `"*fp16"`,
    `"constexpr"`) and the constants (the constexprs, and the ints specialized to 1)."""

    signature: dict
    constants: dict

    @classmethod
    def of(cls, specs: list, constexprs: list) -> Specialization:
        signature = {name: key[0] for name, key in specs}
        constants = {name: 1 for name, key in specs if len(key) == 3 and key[2]}
        for name, value in constexprs:
            signature[name], constants[name] = "constexpr", value
        return cls(signature, constants)


# --8<-- [start:globals]
def _changed(reads: tuple[GlobalRead, ...]) -> list[GlobalRead]:
    """The module-level values a compiled kernel read that no longer hold (`GlobalRead.holds`)."""
    return [read for read in reads if not read.holds()]


def _global_changed(kernel: str, changed: list[GlobalRead]) -> GlobalChanged:
    """Triton's words for a launch that would run a kernel compiled with an old global's value."""
    read = changed[0]
    now = read.now()
    return GlobalChanged(
        f"Global variable {read.name} has changed since we compiled this kernel, from {read.value} to "
        f"{'nothing (it was deleted)' if now is GONE else now} ({kernel}); a kernel reads module-level "
        "values when it compiles: pass the value as an argument (a tl.constexpr parameter), or define "
        "the kernel again to compile it with the new one")
# --8<-- [end:globals]


def _kernel_name(text: str) -> str:
    """A name PTX accepts: letters, digits and underscores, not starting with a digit."""
    name = re.sub(r"\W", "_", str(text))
    return name if name and not name[0].isdigit() else f"k_{name}"


_FUNCTION = type(lambda: None)  # a binder in Python; the compiled one (launcher.c) makes binder[grid] itself


# --8<-- [start:binder]
def make_binder(kernel: JITFunction, fast=None) -> Callable:
    """`binder(grid, *args, **kwargs)`, a launch of `kernel`: bind the call to the parameters,
    read each runtime argument's launch key (`launch_key`; `plain_key` for one that is not
    specialized), look the key up and call the prepared launch found there. A key's first launch,
    the interpreter and a call that does not fit the parameters go the slow way (`run_slow`),
    which raises any error, then the key gets its entry: here, and in the compiled fast path
    `fast` where there is one (launcher.c's binder launches every hit with a tuple grid itself
    and hands anything else to this binder). A hit whose kernel read a module-level value that has
    changed since goes the slow way too, which says so (launcher.c checks that each is the same
    object; this binder, that each has the same value)."""
    params = list(kernel.signature.parameters.values())
    if not _bindable(params):
        return lambda grid, *args, **kwargs: kernel.run_slow(*args, grid=grid, **kwargs)
    names = [p.name for p in params]
    position = {name: i for i, name in enumerate(names)}
    positional = sum(p.kind == p.POSITIONAL_OR_KEYWORD for p in params)
    defaults = [MISSING if p.default is p.empty else p.default for p in params]
    runtime = [i for i, name in enumerate(names) if name not in kernel.constexpr_names]
    constants = [i for i, name in enumerate(names) if name in kernel.constexpr_names]
    keys = [(lambda v: (plain_key(v), v)) if names[i] in kernel.do_not_specialize else launch_key
            for i in runtime]
    options = {name: value for name, value in LAUNCH_OPTIONS.items() if name not in position}
    table: dict[tuple, tuple] = {}  # launch key -> (kernel, prepared launch, the globals it read)

    def bind(args: tuple, kwargs: dict):
        """(the parameters' values, the options) as Python would bind the call, or None."""
        if len(args) > positional:
            return None
        values = list(args) + defaults[len(args):]
        chosen = dict(options)
        for name, value in kwargs.items():
            i = position.get(name)
            if i is None and name in chosen:
                chosen[name] = value
            elif i is None and name in IGNORED_OPTIONS:
                continue
            elif i is None or i < len(args):
                return None  # unknown, or given twice: the slow way says so
            else:
                values[i] = value
        return None if any(v is MISSING for v in values) else (values, chosen)

    def binder(grid, *args, **kwargs):
        try:
            bound = None if interpreting() else bind(args, kwargs)
            if bound is None:
                return kernel.run_slow(*args, grid=grid, **kwargs)
            values, chosen = bound
            read = [key_of(values[i]) for key_of, i in zip(keys, runtime)]
            key = (*[k for k, _ in read], (*[values[i] for i in constants], *chosen.values()))
            try:
                entry = table.get(key)
            except TypeError:  # an unhashable constexpr: the slow way says which
                return kernel.run_slow(*args, grid=grid, **kwargs)
            if entry is None:
                return miss(key, values, grid, args, kwargs)
            if entry[2] and _changed(entry[2]):  # a global the kernel read has changed:
                return kernel.run_slow(*args, grid=grid, **kwargs)  # the slow way says so
            entry[1](grid3(grid(dict(zip(names, values))) if callable(grid) else grid),
                     *[value for _, value in read])
            return entry[0]
        except USER_ERRORS as error:
            raise for_the_user(error)

    def miss(key: tuple, values: list, grid, args: tuple, kwargs: dict):
        compiled = kernel.run_slow(*args, grid=grid, **kwargs)
        given = [names[i] for i in runtime]
        if exercise_hooks.installed():  # kernels built with a reader's piece: launched the slow way
            return compiled
        if set(compiled.runtime_args) <= set(given):
            prepared = compiled.prepared([given.index(n) for n in compiled.runtime_args],
                                         [values[position[n]] for n in compiled.runtime_args])
            if prepared is None:  # the interpreter has none
                return compiled
            launch, codes, positions = prepared.launch, prepared.codes, prepared.positions
        else:
            # members of tuples and descriptors (and a descriptor again, as a TMA tensor map): each
            # launch reads them from its arguments, which C hands over for Python to pack ('*')
            read = members_of(tuple(compiled.runtime_args))
            first = read(dict(zip(names, values)))
            prepared = compiled.prepared(list(range(len(first))), first)
            if prepared is None:
                return compiled
            go = prepared.launch
            launch = lambda grid, *these: go(grid, *read(dict(zip(given, these))))  # noqa: E731
            codes, positions = "*" * len(given), tuple(range(len(given)))
        table[key] = (compiled, launch, compiled.globals_read)
        if fast is not None and not prepared.attributes:  # launch.c calls cuLaunchKernel only
            guards = tuple((r.scope, r.name, r.value) for r in compiled.globals_read)
            fast.add(key, compiled, prepared.function, prepared.block_x, prepared.shared_bytes, codes,
                     positions, prepared.stream_of, launch, prepared.failure, guards)
        return compiled

    binder.__name__ = binder.__qualname__ = kernel.__name__
    binder.fast = fast  # the compiled fast path it fills, or None
    return binder
# --8<-- [end:binder]


def _bindable(params) -> bool:
    """Whether the binders bind a call to these parameters themselves: not where there are
    *args, **kwargs or positional-only parameters (Python's binding, in `run_slow`, does that)."""
    return all(p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in params)


def _install_compiled_subscript(launcher) -> None:
    """kernel[grid] in C, once the compiled launcher loads: for a kernel whose binder is compiled,
    launcher.c's Subscript returns binder[grid] without the Python frame of __getitem__ (0.4 us
    a launch); for the others it calls the Python __getitem__ it wraps."""
    JITFunction.__getitem__ = launcher.Subscript(_python_getitem)


_python_getitem = JITFunction.__getitem__
launcher.when_launcher_loads(_install_compiled_subscript)


def _one_cta(num_ctas) -> None:
    raise LaunchError(f"num_ctas={num_ctas!r}: minitriton launches one thread block per program "
                      "(thread block clusters are not supported); leave num_ctas out or pass 1")


# --8<-- [start:jit]
def jit(fn: Callable | None = None, *, do_not_specialize=(), debug=None, noinline=False, repr=None, **_):
    """Mark a function as a kernel (launch it with fn[grid](...)) or a helper other kernels call."""
    if fn is None:
        return functools.partial(jit, do_not_specialize=do_not_specialize, debug=debug, noinline=noinline,
                                 repr=repr)
    return JITFunction(fn, do_not_specialize=do_not_specialize, debug=debug, noinline=noinline, repr=repr)
# --8<-- [end:jit]
