"""Errors for people.

Every stage reports a mistake in a user's kernel as a `CompilationError` that points at the kernel's
own source: file, line, column, the line itself with a caret under the column, what went wrong and
what is allowed instead. Launch mistakes (a wrong argument) are `LaunchError`s; mistakes a kernel
makes while it runs in the interpreter (a load outside every array) are `InterpreterError`s, which
point at the op's source line the same way. Chapter: 02-frontend.
"""
from __future__ import annotations

import linecache
from dataclasses import dataclass


@dataclass(frozen=True)
class Loc:
    """A place in a kernel's source: the file, the 1-based line, the 0-based column."""

    file: str
    line: int
    col: int = 0
    function: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col + 1}"

    def source_line(self) -> str:
        return linecache.getline(self.file, self.line).rstrip("\n")


UNKNOWN_LOC = Loc("<unknown>", 0, 0)


class TritonError(Exception):
    """The root of the errors a kernel's author may meet, under Triton's name (`triton.TritonError`),
    so code that catches Triton's errors catches these."""


# --8<-- [start:pointing]
def _pointing(loc: Loc | None, message: str, hint: str | None) -> str:
    """`file:line:col: message`, then the source line with a caret under the column, then the hint."""
    if loc is None or loc.line <= 0:
        text = message
    else:
        where = f"{loc}" + (f" in {loc.function}()" if loc.function else "")
        text = f"{where}: {message}"
        line = loc.source_line()
        if line:
            text += f"\n    {line}\n    {' ' * loc.col}^"
    if hint:
        text += f"\n  hint: {hint}"
    return text


class CompilationError(TritonError):
    """A mistake in a kernel, found while compiling it."""

    def __init__(self, loc: Loc | None, message: str, hint: str | None = None):
        self.loc, self.message, self.hint = loc, message, hint
        super().__init__(_pointing(loc, message, hint))

    @property
    def error_message(self) -> str:
        """The message alone, under Triton's name for it."""
        return self.message
# --8<-- [end:pointing]


class InterpreterError(TritonError, RuntimeError):
    """A mistake a kernel made while it ran in the interpreter (out-of-bounds access, ...)."""

    def __init__(self, loc: Loc | None, message: str, hint: str | None = None):
        self.loc, self.message, self.hint = loc, message, hint
        super().__init__(_pointing(loc, message, hint))


class LaunchError(TypeError):
    """A wrong launch: a missing or extra argument, a wrong type, a host array for a GPU kernel..."""


class GlobalChanged(LaunchError, RuntimeError):
    """A module-level value that a compiled kernel read has changed since it compiled (Triton
    raises a RuntimeError with the same words): launching it would run the old value."""


class VerificationError(AssertionError):
    """The IR broke an invariant: a bug in a stage of the compiler, never in a user's kernel."""


class OutOfResources(TritonError, RuntimeError):
    """A kernel needs more of a resource (shared memory, registers) than the device offers."""

    def __init__(self, required: int, limit: int, name: str):
        self.required, self.limit, self.name = required, limit, name
        super().__init__(
            f"out of resources: {name} needs {required} bytes, the device offers {limit}; "
            f"make the block smaller or lower num_stages"
        )
