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
import sys
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
    return launch_arg(value)[0]


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


def launch_arg(value) -> tuple:
    """(key, value to launch with) of one argument, for the fast path. The key is at least as fine
    as `specialize`; an array's device address is read once, for both the key and the launch."""
    cls = value.__class__
    if cls is int:
        return (value == 1, value & 15 == 0, -2147483648 <= value < 2147483648, value < 2**63), value
    if cls is float or cls is bool or value is None:
        return cls, value
    if isinstance(value, np.generic):
        return launch_key(value.item()), value
    address = getattr(value, "data_ptr", None)
    if address is not None:  # a torch tensor or a DeviceArray; the device is checked on a new key
        pointer = address()
        device = getattr(value, "get_device", None)
        return (value.dtype, pointer & 15 == 0, device() if device is not None else None), pointer
    interface = getattr(value, "__cuda_array_interface__", None)  # CuPy: by dtype and alignment
    if interface is not None:
        pointer = interface["data"][0]
        return (interface["typestr"], pointer & 15 == 0, "cuda"), pointer
    interface = getattr(value, "__array_interface__", None)  # numpy: a host array, refused on a new key
    if interface is not None:
        return (interface["typestr"], interface["data"][0] & 15 == 0, "host"), value
    if value is _MISSING:
        return value, value  # a parameter not given: the slow path says which
    try:
        hash(value)
    except TypeError:
        return repr(value), value
    if isinstance(value, (str, ir.DType)):
        return value, value
    return specialize("argument", value), value


class _Missing:
    def __repr__(self):
        return "<missing>"


_MISSING = _Missing()


def _torch_tensor_class() -> type:
    """torch.Tensor where torch is loaded, else a class no argument has (the binder's inline test)."""
    torch = sys.modules.get("torch")
    return torch.Tensor if torch is not None else _NoTensor


class _NoTensor:
    pass


# os.environ's own dictionary, read directly: `os.environ.get` encodes the name and decodes the
# value on every call, a tenth of a launch's host time
_ENVIRON = getattr(os.environ, "_data", None)
_INTERPRET = "MINITRITON_INTERPRET"
_INTERPRET_KEY = os.environ.encodekey(_INTERPRET) if _ENVIRON is not None else _INTERPRET
_OFF = (None, "", "0", b"", b"0")
_FUNCTION = type(lambda: None)  # a binder in Python; the compiled one (launcher.c) makes binder[grid] itself


def interpreting() -> bool:
    """MINITRITON_INTERPRET=1 runs kernels in the numpy interpreter; read at every launch."""
    return (_ENVIRON if _ENVIRON is not None else os.environ).get(_INTERPRET_KEY) not in _OFF


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
        return self.parsed.source  # a function whose source cannot be read is a CompilationError

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
        binder = self.__dict__.get("_binder") or self._make_binder()
        return functools.partial(binder, grid) if binder.__class__ is _FUNCTION else binder[grid]

    _python_getitem = __getitem__  # what launcher.c's Subscript falls back to

    # --8<-- [start:run]
    def run(self, *args, grid, **kwargs):
        """Launch over `grid`: the generated fast path (one key, one dict lookup, one prepared call)."""
        return (self.__dict__.get("_binder") or self._make_binder())(grid, *args, **kwargs)

    def run_slow(self, *args, grid, **kwargs):
        """Bind, specialize, find (or compile) the kernel for this key, then launch it over `grid`:
        the interpreter's way, and the way of any call the fast path does not take."""
        num_warps, num_stages = self.options(kwargs)
        bound = self.bind(args, kwargs)
        try:
            kernel = self.kernel_for(bound, num_warps, num_stages, target=None)
        except CompilationError as e:
            raise e.with_traceback(None)  # the message points at the kernel's line; frames would hide it
        if callable(grid):
            grid = grid(bound)
        kernel.launch(_grid3(grid), [bound[n] for n in kernel.runtime_args])
        return kernel
    # --8<-- [end:run]

    # --8<-- [start:binder]
    def _make_binder(self):
        """Generate, once, `binder(grid, <the kernel's parameters>, *, <launch options>)`, named
        after the kernel. On a GPU it reads each argument once (an array's dtype, address and
        device; an int's facts), makes the key a tuple of those, looks up the prepared launch for
        the key and calls it. The first launch of a key, the interpreter, and a call that does not
        fit the parameters go the slow way (`run_slow`), which also raises the clear errors.
        Where the driver is here and a C compiler too, the compiled fast path (launcher.c) binds,
        reads, looks up and launches instead, and hands anything but a hit to this binder: the
        Python lines are its readable twin, and the way everywhere else."""
        params = list(self.signature.parameters.values())
        if any(p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in params):
            self._binder = lambda grid, *args, **kwargs: self.run_slow(*args, grid=grid, **kwargs)
            return self._binder
        names = [p.name for p in params]
        runtime = [n for n in names if n not in self.constexpr_names]
        defaults = {f"_d{i}": p.default for i, p in enumerate(params) if p.default is not p.empty}
        signature = [f"{p.name}=_d{i}" if p.default is not p.empty else f"{p.name}=_MISSING"
                     for i, p in enumerate(params)]
        option_names = [o for o in LAUNCH_OPTIONS if o not in names]
        options = [f"{o}={LAUNCH_OPTIONS[o]}" for o in option_names]
        passed = ", ".join(f"{o}={o}" for o in option_names)
        head = (f"def binder(grid, {''.join(p + ', ' for p in signature)}*_more, "
                f"{''.join(o + ', ' for o in options)}**_unknown):\n")
        everything = f"({''.join(n + ', ' for n in names)}), grid, dict({passed})"
        new_grid = ("    grid = _grid3(grid({" + ", ".join(f"{n!r}: {n}" for n in names) + "}) "
                    "if callable(grid) else grid)\n")
        fast = _fast_path(runtime, self.do_not_specialize)
        if fast is not None:  # the compiled fast path reads, looks up and launches (launcher.c)
            constants = [n for n in names if n in self.constexpr_names] + option_names
            body = ("    if grid.__class__ is not tuple:\n    " + new_grid +
                    f"    kernel = _fast(grid, ({''.join(c + ', ' for c in constants)}), {', '.join(runtime)})\n"
                    "    if kernel.__class__ is tuple:\n"
                    f"        return _miss(kernel, {everything})\n"
                    "    return kernel\n")
        else:
            reads = "".join(  # a torch tensor and an int inline, read as launch_arg reads them; the rest by it
                f"    k{i} = _plain({n})\n" if n in self.do_not_specialize else
                f"    if {n}.__class__ is _Tensor:\n"
                f"        v{i} = {n}.data_ptr()\n"
                f"        k{i} = ({n}.dtype, v{i} & 15 == 0, {n}.get_device())\n"
                f"    elif {n}.__class__ is int:\n"
                f"        v{i} = {n}\n"
                f"        k{i} = ({n} == 1, {n} & 15 == 0, -2147483648 <= {n} < 2147483648, {n} < 2**63)\n"
                f"    else:\n"
                f"        k{i}, v{i} = _arg({n})\n"
                for i, n in enumerate(runtime))
            values = [n if n in self.do_not_specialize else f"v{i}" for i, n in enumerate(runtime)]
            keys = [n if n in self.constexpr_names else f"k{runtime.index(n)}" for n in names]
            key = f"({''.join(k + ', ' for k in keys + option_names)})"
            body = (reads +
                    f"    entry = _table.get({key})\n"
                    "    if entry is None:\n"
                    f"        return _miss({key}, {everything})\n"
                    "    if grid.__class__ is not tuple or len(grid) != 3:\n    " + new_grid +
                    f"    entry[1](grid, {''.join(v + ', ' for v in values)})\n"
                    "    return entry[0]\n")
        source = (
            head +
            "    if _more or _unknown or _environ.get(_INTERPRET_KEY) not in _OFF:\n"
            f"        return _slow({everything}, _more, _unknown)\n" + body)
        table: dict = {}
        namespace = {"_table": table, "_fast": fast, "_environ": _ENVIRON if _ENVIRON is not None else os.environ,
                     "_INTERPRET_KEY": _INTERPRET_KEY, "_OFF": _OFF, "_arg": launch_arg,
                     "_plain": _plain_key, "_grid3": _grid3, "_MISSING": _MISSING,
                     "_Tensor": _torch_tensor_class(), **defaults}

        def slow(values, grid, options, more=(), unknown=None):
            """The interpreter, or a call that does not fit: bind as Python would, then run."""
            if more:
                args, kwargs = values + more, {}
            else:
                args, kwargs = (), {n: v for n, v in zip(names, values) if v is not _MISSING}
            return self.run_slow(*args, grid=grid, **kwargs, **(unknown or {}), **options)

        def miss(key, values, grid, options):
            """A key's first launch goes the slow way, which raises any error; then the key gets
            its entry: the kernel and its prepared launch, which takes the runtime values."""
            kernel = slow(values, grid, options)
            bound = dict(zip(names, values))
            prepared = kernel.prepared([runtime.index(n) for n in kernel.runtime_args],
                                       [bound[n] for n in kernel.runtime_args])
            if prepared is None:  # the interpreter has none
                pass
            elif fast is not None:
                fast.add(key, kernel, prepared.function, prepared.block_x, prepared.shared_bytes,
                         prepared.codes, prepared.positions, prepared.stream_of, prepared.launch,
                         prepared.failure)
            else:
                table[key] = (kernel, prepared.launch)
            return kernel

        namespace["_slow"], namespace["_miss"] = slow, miss
        exec(compile(source, f"<binder of {self.__name__}>", "exec"), namespace)
        binder = self._binder = namespace["binder"]
        binder.__name__ = binder.__qualname__ = self.__name__
        binder.source = source
        if fast is not None:  # launcher.c binds a hit too; anything else it hands to `binder`
            from . import driver
            compiled = driver.compiled_launcher()[0]
            self._binder = compiled.Binder(
                fast, tuple(names), tuple(n in self.constexpr_names for n in names),
                tuple(p.default if p.default is not p.empty else _MISSING for p in params), tuple(option_names),
                tuple(LAUNCH_OPTIONS[o] for o in option_names), _MISSING, binder, _INTERPRET)
            if JITFunction.__dict__["__getitem__"].__class__ is not compiled.Subscript:
                # kernel[grid] in C from now on: a kernel whose binder is compiled skips the
                # Python frame of __getitem__ (0.4 us a launch); the others still take it
                JITFunction.__getitem__ = compiled.Subscript(JITFunction._python_getitem)
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


def _fast_path(runtime: list[str], do_not_specialize):
    """The compiled fast path for a kernel with these runtime parameters, or None (no driver here,
    or no C compiler): then the binder reads, looks up and launches in Python."""
    from . import driver
    return driver.fast_path([n in do_not_specialize for n in runtime], _torch_tensor_class(), launch_arg, _grid3)


def _grid3(grid) -> tuple[int, int, int]:
    """`grid` as (x, y, z): an int, or 1 to 3 non-negative ints (the common `(n,)` first)."""
    if grid.__class__ is tuple and len(grid) == 1 and grid[0].__class__ is int and grid[0] >= 0:
        return (grid[0], 1, 1)
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
