"""The JIT front: `@jit`, `kernel[grid](*args, num_warps=, num_stages=, **constexprs)`.

A launch binds the arguments to the kernel's parameters, reads from each runtime argument what the
compiler specializes on (its dtype, whether an address or an integer is divisible by 16, whether an
integer is 1), looks that key up in the function's in-memory cache, compiles on a miss (through
`compiler.compile`, which also consults the disk cache), and launches. Chapter: 01-introduction.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import os
from typing import Any, Callable

import numpy as np

from . import ir
from .errors import CompilationError, LaunchError

def array_dtype(x) -> ir.DType | None:
    """The element dtype of an array argument (the driver's table of array types), or None for
    anything that is not an array."""
    if not (hasattr(x, "data_ptr") or hasattr(x, "__cuda_array_interface__") or isinstance(x, np.ndarray)):
        return None
    from .driver import dtype_of
    return ir.SCALAR_DTYPES[dtype_of(x)]


def array_address(x) -> int:
    if hasattr(x, "data_ptr"):
        return x.data_ptr()
    interface = getattr(x, "__cuda_array_interface__", None) or x.__array_interface__
    return interface["data"][0]


# --8<-- [start:specialize]
def specialize(name: str, value) -> tuple:
    """The facts about one runtime argument that the compiled code may depend on (the cache key)."""
    if isinstance(value, np.generic):  # np.int64(5), np.float32(0.5): a number, not an array
        value = value.item()
    if isinstance(value, bool):
        return ("i1",)
    if isinstance(value, int):
        if -2**31 <= value < 2**31:
            kind = "i32"
        elif -2**63 <= value < 2**63:
            kind = "i64"
        elif value < 2**64:
            kind = "u64"
        else:
            raise LaunchError(f"argument `{name}` = {value} does not fit in 64 bits")
        return (kind, value % 16 == 0, value == 1)
    if isinstance(value, float):
        return ("fp32",)
    dtype = array_dtype(value)
    if dtype is None:
        raise LaunchError(f"argument `{name}` is a {type(value).__name__}; expected an array (torch "
                          f"tensor, numpy array, DeviceArray), an int, a float or a bool")
    return ("*" + dtype.name, array_address(value) % 16 == 0)


def launch_key(value):
    """What the fast path keys a launch on for one argument: at least as fine as `specialize`."""
    cls = value.__class__
    if cls is int:
        return (value == 1, value & 15 == 0, -2147483648 <= value < 2147483648, value < 2**63)
    if cls is float or cls is bool or value is None:
        return cls
    if isinstance(value, np.generic):
        return launch_key(value.item())
    address = getattr(value, "data_ptr", None)
    if address is not None:  # a torch tensor or a DeviceArray; the device is checked on a new key
        device = getattr(value, "get_device", None)
        return (value.dtype, address() & 15 == 0, device() if device is not None else None)
    # numpy, CuPy: by dtype and alignment, never by contents
    interface = getattr(value, "__array_interface__", None) or getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        return (interface["typestr"], interface["data"][0] & 15 == 0)
    try:
        hash(value)
    except TypeError:
        return repr(value)
    if isinstance(value, (str, ir.DType)):
        return value
    return specialize("argument", value)


def _plain_key(value):
    return value.__class__ if value.__class__ is not int else (-2147483648 <= value < 2147483648)


def arg_spec(key: tuple):
    """The frontend's ArgSpec for one specialization key."""
    from .frontend import ArgSpec
    kind = key[0]
    if kind.startswith("*"):
        return ArgSpec(ir.pointer_type(ir.SCALAR_DTYPES[kind[1:]]), divisible_by_16=key[1])
    if kind in ("i32", "i64", "u64"):
        dtype = {"i32": ir.int32, "i64": ir.int64, "u64": ir.uint64}[kind]
        return ArgSpec(dtype, divisible_by_16=key[1], equals_one=key[2])
    return ArgSpec({"fp32": ir.float32, "i1": ir.int1}[kind])
# --8<-- [end:specialize]


def interpreting() -> bool:
    """MINITRITON_INTERPRET=1 runs kernels in the numpy interpreter; read at every launch."""
    return os.environ.get("MINITRITON_INTERPRET", "0") not in ("", "0")


class JITFunction:
    """A kernel (or a helper that kernels call): the Python function, parsed once, compiled per key."""

    def __init__(self, fn: Callable, do_not_specialize=(), debug=None, noinline=False):
        self.fn = fn
        self.signature = inspect.signature(fn)
        self.arg_names = list(self.signature.parameters)
        self.constexpr_names = {name for name, p in self.signature.parameters.items()
                                if _is_constexpr(p.annotation)}
        self.do_not_specialize = {self.arg_names[a] if isinstance(a, int) else a for a in do_not_specialize}
        self.cache: dict[tuple, Any] = {}
        functools.update_wrapper(self, fn)

    @functools.cached_property
    def parsed(self):
        from .frontend import parse
        return parse(self.fn)

    @functools.cached_property
    def src(self) -> str:
        self.parsed  # a function whose source cannot be read is a CompilationError, raised there
        return inspect.getsource(self.fn)

    @functools.cached_property
    def cache_key(self) -> str:
        """A hash of this function's source and of every @jit function and global constant it uses."""
        h = hashlib.sha256()
        for source in dependency_sources(self):
            h.update(source.encode())
        return h.hexdigest()

    def __call__(self, *args, **kwargs):
        raise LaunchError(f"{self.__name__} is a @jit function: launch it as {self.__name__}[grid](...) "
                          "or call it from another @jit function")

    def __getitem__(self, grid) -> Callable:
        return functools.partial(self.run, grid=grid)

    # --8<-- [start:run]
    def run(self, *args, grid, **kwargs):
        """Launch over `grid`: the generated fast path (one key, one dict lookup, one prepared call)."""
        binder = self.__dict__.get("_binder") or self._make_binder()
        try:
            return binder(*args, grid=grid, **kwargs)
        except CompilationError as e:
            raise e.with_traceback(None)  # the message points at the kernel's line; frames would hide it
        except TypeError:
            self.bind(args, {k: v for k, v in kwargs.items() if k not in LAUNCH_OPTIONS
                             or k in self.arg_names})  # a wrong call raises LaunchError here
            raise

    def run_slow(self, *args, grid, **kwargs):
        """Bind, specialize, find (or compile) the kernel for this key, then launch it over `grid`."""
        num_warps, num_stages = self.options(kwargs)
        bound = self.bind(args, kwargs)
        kernel = self.kernel_for(bound, num_warps, num_stages, target=None)
        if callable(grid):
            grid = grid(bound)
        kernel.launch(_grid3(grid), [bound[n] for n in kernel.runtime_args])
        return kernel
    # --8<-- [end:run]

    # --8<-- [start:binder]
    def _make_binder(self):
        """Generate `binder(<the kernel's parameters>, *, grid, num_warps, num_stages)` once: it
        computes the launch's key from the arguments without building any dict, looks the kernel
        up, and calls its prepared launch; a miss goes the slow way once and fills the table."""
        params = list(self.signature.parameters.values())
        if any(p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in params):
            self._binder = self.run_slow
            return self._binder
        names = [p.name for p in params]
        defaults = {f"_d{i}": p.default for i, p in enumerate(params) if p.default is not p.empty}
        signature = [f"{p.name}=_d{i}" if p.default is not p.empty else p.name for i, p in enumerate(params)]
        options = [f"{o}={d}" for o, d in LAUNCH_OPTIONS.items() if o not in names]
        one_cta = "" if "num_ctas" in names else "    if num_ctas != 1:\n        _one_cta(num_ctas)\n"
        runtime = [n for n in names if n not in self.constexpr_names]
        keys = [n if n in self.constexpr_names else
                f"_plain({n})" if n in self.do_not_specialize else f"_key({n})" for n in names]
        source = (
            f"def binder({''.join(p + ', ' for p in signature)}*, grid, {', '.join(options + ['_table=_table'])}):\n"
            f"{one_cta}"
            f"    key = ({', '.join(keys + ['num_warps', 'num_stages'])}, _environ.get('MINITRITON_INTERPRET'))\n"
            "    kernel = _table.get(key)\n"
            "    if kernel is None:\n"
            f"        kernel = _miss(key, ({''.join(n + ', ' for n in names)}), num_warps, num_stages)\n"
            "    if callable(grid):\n"
            f"        grid = grid({{{', '.join(f'{n!r}: {n}' for n in names)}}})\n"
            "    if grid.__class__ is not tuple or len(grid) != 3:\n"
            "        grid = _grid3(grid)\n"
            f"    kernel.launch_fast(grid, ({''.join(f'{n}, ' for n in runtime)}))\n"
            "    return kernel\n")
        namespace = {"_table": {}, "_environ": os.environ, "_key": launch_key, "_plain": _plain_key,
                     "_grid3": _grid3, "_one_cta": _one_cta, **defaults}

        def miss(key, values, num_warps, num_stages):
            bound = dict(zip(names, values))
            kernel = self.kernel_for(bound, num_warps, num_stages, target=None)
            kernel.prepare_fast([runtime.index(n) for n in kernel.runtime_args])
            kernel.check_arguments([bound[n] for n in kernel.runtime_args])
            namespace["_table"][key] = kernel
            return kernel

        namespace["_miss"] = miss
        exec(compile(source, f"<binder of {self.__name__}>", "exec"), namespace)
        self._binder = namespace["binder"]
        self._binder.source = source
        return self._binder
    # --8<-- [end:binder]

    def warmup(self, *args, grid=None, target: str | None = None, **kwargs):
        """Compile without running; `target="sm_90"` compiles for a GPU that need not be here."""
        num_warps, num_stages = self.options(kwargs)
        return self.kernel_for(self.bind(args, kwargs), num_warps, num_stages, target)

    def options(self, kwargs: dict) -> tuple[int, int]:
        """The launch options (LAUNCH_OPTIONS), which are also constexprs if the kernel names them."""
        take = lambda name: kwargs.get(name, LAUNCH_OPTIONS[name]) if name in self.arg_names \
            else kwargs.pop(name, LAUNCH_OPTIONS[name])
        num_ctas = take("num_ctas")
        if num_ctas != 1 and "num_ctas" not in self.arg_names:
            _one_cta(num_ctas)
        return take("num_warps"), take("num_stages")

    def bind(self, args, kwargs) -> dict[str, Any]:
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise LaunchError(f"{self.__name__}[grid](...): {e}; its parameters are "
                              f"({', '.join(self.arg_names)})") from None
        bound.apply_defaults()
        return bound.arguments

    def kernel_for(self, bound: dict, num_warps: int, num_stages: int, target: str | None):
        if not isinstance(num_warps, int) or num_warps < 1 or num_warps & (num_warps - 1) or num_warps > 32:
            raise LaunchError(f"num_warps must be a power of two from 1 to 32, got {num_warps!r}")
        backend = "interpreter" if interpreting() and target is None else (target or "cuda")
        specs, constexprs = [], []
        for name, value in bound.items():
            if isinstance(value, str) and name not in self.constexpr_names:
                raise LaunchError(f"argument `{name}` of {self.__name__} is the string {value!r}; "
                                  "expected an array, an int, a float or a bool (strings can only be "
                                  f"given to tl.constexpr parameters: `{name}: tl.constexpr`)")
            if name in self.constexpr_names or value is None or isinstance(value, ir.DType):
                constexprs.append((name, _hashable(value)))
            elif name in self.do_not_specialize and isinstance(value, int) and not isinstance(value, bool):
                specs.append((name, ("i32" if -2**31 <= value < 2**31 else "i64", False, False)))
            else:
                specs.append((name, specialize(name, value)))
        key = (tuple(specs), tuple(constexprs), num_warps, num_stages, backend)
        kernel = self.cache.get(key)
        if kernel is None:
            from .compiler import Options, compile
            options = Options(num_warps=num_warps, num_stages=num_stages, target=backend)
            try:
                kernel = compile(self, dict(specs), dict(constexprs), options)
            except CompilationError as e:
                # The message points at the kernel's own line; the compiler's frames would only hide it.
                raise e.with_traceback(None)
            self.cache[key] = kernel
        return kernel


# What a launch may say besides the arguments, and the defaults. num_ctas is Triton's (thread block
# clusters); it is accepted so that launches written for Triton run, and must be 1.
LAUNCH_OPTIONS = {"num_warps": 4, "num_stages": 3, "num_ctas": 1}


def _one_cta(num_ctas) -> None:
    raise LaunchError(f"num_ctas={num_ctas!r}: minitriton launches one thread block per program (num_ctas=1)")


def _hashable(value):
    if isinstance(value, list):
        return tuple(value)
    return getattr(value, "value", value) if type(value).__name__ == "constexpr" else value


def _is_constexpr(annotation) -> bool:
    if annotation is inspect.Parameter.empty:
        return False
    if isinstance(annotation, str):
        return annotation.endswith("constexpr")
    return getattr(annotation, "__name__", "") == "constexpr"


def _grid3(grid) -> tuple[int, int, int]:
    if isinstance(grid, int):
        grid = (grid,)
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3 or any(g < 0 for g in grid):
        raise LaunchError(f"the grid must be 1 to 3 non-negative sizes, got {grid}")
    return grid + (1,) * (3 - len(grid))


def dependency_sources(fn: JITFunction) -> list[str]:
    """The sources of `fn` and of every @jit function it may call, with the global constants read."""
    seen: dict[int, str] = {}

    def visit(f: JITFunction):
        if id(f) in seen:
            return
        seen[id(f)] = f.src
        scope = f.parsed.globals
        for node in ast.walk(f.parsed.tree):
            if isinstance(node, ast.Name) and node.id in scope:
                value = scope[node.id]
            elif isinstance(node, ast.Attribute):
                base = node.value.id if isinstance(node.value, ast.Name) else None
                value = getattr(scope.get(base), node.attr, None) if base in scope else None
            else:
                continue
            if isinstance(value, JITFunction):
                visit(value)
            elif isinstance(value, (int, float, bool, str)) or type(value).__name__ == "constexpr":
                seen[id(node)] = f"{getattr(node, 'id', '')}={_hashable(value)!r}"

    visit(fn)
    return list(seen.values())


# --8<-- [start:jit]
def jit(fn: Callable | None = None, *, do_not_specialize=(), debug=None, noinline=False, **_):
    """Mark a function as a kernel (launch it with fn[grid](...)) or a helper other kernels call."""
    if fn is None:
        return functools.partial(jit, do_not_specialize=do_not_specialize, debug=debug, noinline=noinline)
    return JITFunction(fn, do_not_specialize=do_not_specialize, debug=debug, noinline=noinline)
# --8<-- [end:jit]
