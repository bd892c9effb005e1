"""What the frontend reads of a Python function: its source, its syntax tree, the names it sees.

`parse` reads a function's lines (without tokenizing its file, which is slow) and parses them with
`ast`. `KernelFunction` is a function the frontend can compile: a kernel, or a helper that kernels
call and the frontend inlines. `@jit` makes one (`jit.JITFunction` adds the launch). Its
`cache_key` hashes its source and the sources of every @jit function and global constant it uses,
so that editing any of them compiles it again. Chapter: 02-frontend.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import linecache
import textwrap
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import CompilationError, Loc
from ..language.core import constexpr_function, constexpr_value, is_constexpr


@dataclass
class ParsedFunction:
    """A function's AST, with what is needed to point errors at its file and lines."""

    tree: ast.FunctionDef
    file: str
    first_line: int
    col_offset: int
    globals: dict[str, Any]
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
    scope = dict(fn.__globals__)
    if fn.__closure__:
        scope.update({name: cell.cell_contents for name, cell in
                      zip(fn.__code__.co_freevars, fn.__closure__)})
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

    @functools.cached_property
    def cache_key(self) -> str:
        """A hash of this function's source and of every @jit function and global constant it uses."""
        h = hashlib.sha256()
        for source in dependency_sources(self):
            h.update(source.encode())
        return h.hexdigest()
# --8<-- [end:kernel-function]


def dependency_sources(fn: KernelFunction) -> list[str]:
    """The sources of `fn` and of every @jit function it may call, with the global constants read."""
    seen: dict[int, str] = {}

    def visit(f: KernelFunction):
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
            constant = constexpr_value(value)
            if isinstance(value, KernelFunction):
                visit(value)
            elif isinstance(value, constexpr_function):  # evaluated while compiling: its source decides the code
                seen[id(value)] = inspect.getsource(value.fn)
            elif constant is not value or isinstance(value, (int, float, bool, str)):  # a constexpr, or a constant
                seen[id(node)] = f"{getattr(node, 'id', '')}={constant!r}"

    visit(fn)
    return list(seen.values())
