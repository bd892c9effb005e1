"""What the frontend reads of a Python function: its source, its syntax tree, the names it sees.

`parse` reads a function's lines (without tokenizing its file, which is slow) and parses them with
`ast`. `KernelFunction` is a function the frontend can compile: a kernel, or a helper that kernels
call and the frontend inlines. `@jit` makes one (`jit.JITFunction` adds the launch).

A kernel reads module-level names while it compiles, as Python reads them: the module's current
values. `dependencies` lists what a compile depends on besides the arguments: the source of the
kernel and of every @jit function it may call, and every module-level value they read, by value
(`GlobalRead`). The function's `cache_key` hashes them, so that editing any of them compiles it
again in the next process; the JIT checks the values at each launch (`GlobalRead.holds`).
Chapter: 02-frontend.
"""
from __future__ import annotations

import ast
import copy
import enum
import functools
import hashlib
import inspect
import json
import linecache
import textwrap
import types
from collections import ChainMap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..dtypes import DType
from ..errors import CompilationError, Loc
from ..language.core import constexpr_function, is_constexpr
from ..specialize import NoStableKey, key_json


@dataclass
class ParsedFunction:
    """A function's AST, with what is needed to point errors at its file and lines."""

    tree: ast.FunctionDef
    file: str
    first_line: int
    col_offset: int
    globals: ChainMap  # the closure's values, then the module's globals, read as they are now
    name: str
    source: str

    def loc(self, node: ast.AST) -> Loc:
        """Where a node of this function's tree is in its file."""
        return Loc(self.file, self.first_line + getattr(node, "lineno", 1) - 1,
                   self.col_offset + getattr(node, "col_offset", 0), self.name)


# --8<-- [start:parse]
def parse(fn) -> ParsedFunction:
    """Read a Python function's source and parse it (the decorators are dropped)."""
    for read in (_source_lines, inspect.getsourcelines):
        try:
            lines, first_line = read(fn)
        except (OSError, TypeError) as e:
            raise CompilationError(None, f"cannot read the source of {fn!r}: {e}",
                                   "@jit functions must be defined in a file, not typed at a prompt") from e
        source = "".join(lines)
        dedented = textwrap.dedent(source)
        try:
            tree = ast.parse(dedented)
        except SyntaxError:
            continue  # the lines the code object spans are not the whole definition: ask inspect
        if len(tree.body) == 1 and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
            break
    indent = len(source.splitlines()[0]) - len(dedented.splitlines()[0])
    fdef = tree.body[0]
    closure = {name: cell.cell_contents for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ())}
    scope = ChainMap(closure, fn.__globals__)
    parsed = ParsedFunction(fdef, inspect.getsourcefile(fn) or "<unknown>", first_line, indent, scope,
                            fn.__name__, source)
    if isinstance(fdef, ast.AsyncFunctionDef):
        raise CompilationError(parsed.loc(fdef), "an async def cannot be a @jit function",
                               "a kernel runs on the GPU when launched, it is not awaited: write `def`")
    assert isinstance(fdef, ast.FunctionDef), "a @jit object wraps a function definition"
    return parsed
# --8<-- [end:parse]


def _source_lines(fn) -> tuple[list[str], int]:
    """The lines of `fn`'s definition, from its first decorator to the last line any of its
    instructions came from: what `inspect.getsourcelines` returns, without tokenizing the file
    (which costs a new process some 20 ms, a fair part of loading a kernel from the disk cache)."""
    code = fn.__code__
    lines = linecache.getlines(code.co_filename, fn.__globals__)
    if not lines:
        raise OSError("could not get source code")
    last, pending = code.co_firstlineno, [code]
    while pending:
        c = pending.pop()
        last = max([last] + [end for _, end, _, _ in c.co_positions() if end is not None])
        pending += [k for k in c.co_consts if inspect.iscode(k)]
    return lines[code.co_firstlineno - 1:last], code.co_firstlineno



# --8<-- [start:kernel-function]
class KernelFunction:
    """A Python function the frontend compiles: a kernel, or a helper kernels call (inlined)."""

    do_not_specialize: frozenset[str] = frozenset()  # a kernel's parameters compiled for no value (@jit's)

    def __init__(self, fn: Callable):
        self.fn = fn
        self.signature = inspect.signature(fn)
        self.arg_names = list(self.signature.parameters)
        self.constexpr_names = {name for name, p in self.signature.parameters.items()
                                if p.annotation is not p.empty and is_constexpr(p.annotation)}
        functools.update_wrapper(self, fn)

    @functools.cached_property
    def parsed(self) -> ParsedFunction:
        return parse(self.fn)

    def check_kernel_parameters(self) -> None:
        """A kernel's parameters are named one by one: each is an argument of the compiled kernel
        (helpers, which are inlined, may take *args). A CompilationError at the parameter if not."""
        arguments = self.parsed.tree.args
        for star, node in (("*", arguments.vararg), ("**", arguments.kwarg)):
            if node is not None:
                raise CompilationError(self.parsed.loc(node), f"a kernel cannot take {star}{node.arg}: each "
                                       f"of its parameters is one argument of the compiled kernel",
                                       "name the parameters one by one, or pass a tuple and index it "
                                       "with tl.static_range")

    @functools.cached_property
    def src(self) -> str:
        return self.parsed.source  # a function whose source cannot be read is a CompilationError

    @property
    def cache_key(self) -> str:
        """A hash of this function's source, of every @jit function it may call and of every
        module-level value they read, as they are now (NoStableKey where a value has no plain form)."""
        if self.__dict__.get("_keying"):
            return f"recursion:{self.__qualname__}"  # a function that names itself, through a global
        self._keying = True
        try:
            return dependencies(self).key()
        finally:
            self._keying = False
# --8<-- [end:kernel-function]


GONE = object()  # what a module-level name that was deleted holds


# --8<-- [start:global-read]
@dataclass(frozen=True, eq=False)
class GlobalRead:
    """A module-level name that a kernel, or a function it calls, reads, and its value when the
    kernel compiled: the disk cache keys the kernel by `key`, and each launch asks `holds()`."""

    name: str
    scope: dict  # where the name lives: the module's globals (or the function's closure)
    value: Any  # the value then: the object itself if it cannot change in place, else a copy
    key: str | None  # the value as plain JSON text (`specialize.key_json`); None where it has none

    @classmethod
    def of(cls, name: str, scope: dict) -> GlobalRead:
        value = scope[name]
        try:
            key = _read_key(value)
        except Exception:  # NoStableKey, or an object that fails when asked for its fields
            return cls(name, scope, value, None)  # compared by identity alone
        if not _frozen(value):  # a list, a dict, an object: it may change in place, so the key decides
            try:
                value = copy.deepcopy(value)
            except Exception:  # an object that cannot be copied: its key stands for it
                value = key
        return cls(name, scope, value, key)

    def now(self):
        return self.scope.get(self.name, GONE)

    def holds(self) -> bool:
        """Whether the name still holds that value: the same object, or one with the same key."""
        now = self.now()
        if now is self.value:
            return True
        try:
            return self.key is not None and _read_key(now) == self.key
        except Exception:
            return False
# --8<-- [end:global-read]


@dataclass
class Dependencies:
    """What a kernel's code depends on besides its arguments."""

    sources: list[str]  # of the kernel and of each @jit function it may call, with its first line
    reads: list[GlobalRead]  # every module-level value they read, in the order first read

    def key(self) -> str:
        """A sha256 over all of it: the kernel's part of its disk-cache key."""
        if unkeyed := [r.name for r in self.reads if r.key is None]:
            raise NoStableKey(f"{', '.join(unkeyed)}: no value another process could compare")
        h = hashlib.sha256()
        for source in self.sources:
            h.update(source.encode())
        h.update(json.dumps([[r.name, r.key] for r in self.reads]).encode())
        return h.hexdigest()


# --8<-- [start:dependencies]
def dependencies(*functions) -> Dependencies:
    """The sources of `functions` (a kernel, and the @jit functions it is given as constexprs, in
    tuples too) and of every @jit function they may call, each once, and the module-level values
    all of them read. A name counts as read where a function loads it and never assigns it, as
    Python decides which names are global. A module is not a value (what is read of one is:
    `config.BLOCK`), nor is minitriton itself, whose source is in every key."""
    sources: dict[int, str] = {}
    reads: dict[tuple[str, int], GlobalRead] = {}

    def note(name: str, scope: Mapping):
        if (name, id(scope)) in reads:
            return
        value = scope[name]
        if isinstance(value, types.ModuleType) or _of_minitriton(value):
            return
        reads[(name, id(scope))] = GlobalRead.of(name, scope)
        for function in _functions_in(value):
            visit(function)

    def visit(f: KernelFunction):
        if id(f) in sources:
            return
        sources[id(f)] = f"line {f.parsed.first_line}\n{f.src}"  # device asserts print the line
        scope, local = f.parsed.globals, _local_names(f.parsed.tree)
        for node in (n for statement in f.parsed.tree.body for n in ast.walk(statement)):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in local \
                    and node.id in scope:
                note(node.id, next(m for m in scope.maps if node.id in m))
            elif isinstance(node, ast.Attribute) \
                    and isinstance(module := _module_of(node.value, scope, local), types.ModuleType) \
                    and node.attr in vars(module) and not _of_minitriton(module):
                note(node.attr, vars(module))

    for function in _functions_in(functions):
        visit(function)
    return Dependencies(list(sources.values()), list(reads.values()))
# --8<-- [end:dependencies]


def _local_names(fdef: ast.FunctionDef) -> set[str]:
    """The function's parameters and every name it assigns: Python's local variables."""
    args = fdef.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
    return names | {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}


def _module_of(node: ast.expr, scope: Mapping, local: set[str]):
    """The module `node` names (`config`, `package.config`), or None."""
    if isinstance(node, ast.Name):
        return scope.get(node.id) if node.id not in local else None
    if isinstance(node, ast.Attribute):
        return getattr(_module_of(node.value, scope, local), node.attr, None)
    return None


def _of_minitriton(value) -> bool:
    """A function, class or module of minitriton (the language's builtins, `triton.cdiv`...)."""
    if isinstance(value, KernelFunction) or not (callable(value) or isinstance(value, types.ModuleType)):
        return False
    module = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
    return module == "minitriton" or str(module).startswith("minitriton.")


def _functions_in(value) -> list[KernelFunction]:
    """The @jit functions in a value: itself, or the members of a tuple, list or dict."""
    if isinstance(value, (tuple, list)):
        return [f for v in value for f in _functions_in(v)]
    if isinstance(value, dict):
        return [f for v in value.values() for f in _functions_in(v)]
    return [value] if isinstance(value, KernelFunction) else []


def _read_key(value) -> str:
    """A value's key as a read, as JSON text (in which 1 and True differ): a @jit function by its
    name, since its source and reads are in the dependencies already; anything else by `key_json`."""
    if isinstance(value, KernelFunction):
        return json.dumps({"jit": f"{value.__module__}.{value.__qualname__}"})
    return json.dumps(key_json(value), sort_keys=True)


def _frozen(value) -> bool:
    """Whether a value cannot change in place (a number, a string, a dtype, a function, a tuple of
    such): a launch may then compare the object itself, and the read keeps it rather than a copy."""
    if isinstance(value, (tuple, frozenset)):
        return all(_frozen(v) for v in value)
    if type(value).__name__ == "constexpr":
        return _frozen(value.value)
    return isinstance(value, _FROZEN)


_FROZEN = (type(None), bool, int, float, complex, str, bytes, DType, type, enum.Enum, np.generic,
           types.FunctionType, types.BuiltinFunctionType, KernelFunction, constexpr_function)
