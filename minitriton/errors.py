"""Errors for people.

Every stage reports a mistake in a user's kernel as a `CompilationError` that points at the kernel's
own source: file, line, column, the line itself with a caret under the column, what went wrong and
what is allowed instead. Launch mistakes (a wrong argument) are `LaunchError`s; mistakes a kernel
makes while it runs in the interpreter (a load outside every array) are `InterpreterError`s, which
point at the op's source line the same way. Chapter: 02-frontend.

The rule for all three: the user made the mistake, so what they see is the message and their own
code, not minitriton's frames. Each entry point a user's code calls (a launch, a warmup, a compile)
hands such an error on through `for_the_user`, which cuts the frames below it; MINITRITON_DEBUG=1
keeps them, and the chained causes, for whoever works on minitriton itself.
"""
from __future__ import annotations

import functools
import linecache
import os
from dataclasses import dataclass
from typing import Callable


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


class LaunchError(TypeError):
    """A wrong launch: a missing or extra argument, a wrong type, a host array for a GPU kernel..."""


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


class ArgumentKindError(LaunchError, CompilationError):
    """A launch that gave an argument of the wrong kind for the kernel's use of it: a number or None
    where the kernel uses a pointer, an array where it uses a number. It names the argument, as a
    LaunchError does, and points at the kernel's line that uses it, as a CompilationError does
    (code that catches either catches it)."""

    def __init__(self, loc: Loc | None, message: str, hint: str | None = None):
        CompilationError.__init__(self, loc, message, hint)


class SlowCompileWarning(UserWarning):
    """A kernel that compiles, but slowly: a tile so large that each thread holds thousands of its
    elements, one register each, in straight-line code whose compile time grows with the square of
    its length (in Triton too). Given at the line that makes the tile."""


class InterpreterError(TritonError, RuntimeError):
    """A mistake a kernel made while it ran in the interpreter (out-of-bounds access, ...)."""

    def __init__(self, loc: Loc | None, message: str, hint: str | None = None):
        self.loc, self.message, self.hint = loc, message, hint
        super().__init__(_pointing(loc, message, hint))


# --8<-- [start:for-the-user]
DEBUG = "MINITRITON_DEBUG"


def debugging() -> bool:
    """MINITRITON_DEBUG=1: a user's error keeps minitriton's frames and its causes' (read at each error)."""
    return os.environ.get(DEBUG, "") not in ("", "0")


def for_the_user(error: BaseException) -> BaseException:
    """`error` (a mistake in the user's kernel or launch) as the user should see it: raised again
    from the entry point, it shows the user's frames and the one line that raised it, with none of
    the compiler's or the interpreter's frames below, and no exception it happened while handling.
    Causes stay chained (`__cause__`, `__context__`), without their frames. Under MINITRITON_DEBUG=1
    the error is left whole."""
    if debugging():
        return error
    error.__suppress_context__ = True
    link, seen = error, set()
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        link.__traceback__ = None
        link = link.__cause__ or link.__context__
    return error


USER_ERRORS = (TritonError, LaunchError)  # what for_the_user hands on; anything else is a bug to show whole


def user_facing(entry: Callable) -> Callable:
    """Mark a function a user's code calls (a launch, a warmup): a user's error leaves it through
    `for_the_user`, so the traceback ends at this entry."""
    @functools.wraps(entry)
    def called_by_the_user(*args, **kwargs):
        try:
            return entry(*args, **kwargs)
        except USER_ERRORS as error:
            raise for_the_user(error)
    return called_by_the_user
# --8<-- [end:for-the-user]


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
