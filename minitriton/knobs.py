"""`triton.knobs`: Triton's settings object, for the settings that mean something here.

Not a stage. Triton gathers the environment variables it reads into groups of knobs
(`knobs.cache.dir`, `knobs.runtime.interpret`), which host code and tests set instead of the
variables. minitriton reads each of its settings from its own variable, in the module that uses
the setting, so a knob here is a view of that variable: reading it asks that module, setting it
sets the variable (None unsets it), `del` unsets it, and a group's `scope()` puts its variables
back as they were. Triton's knobs that would change nothing here (IR dumps and overrides, the
launch hooks, the AMD and profiler groups) are left out rather than accepted and ignored, as is the
default of fp fusion: a launch turns fusion off with `enable_fp_fusion=False`. Chapter:
09-ptx-driver-cache.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Any, Callable

from .autotune import PRINT_AUTOTUNING, printing
from .cache import CACHE_DIR, cache_dir
from .kernel import INTERPRET_VARIABLES, interpreting


class Knob:
    """One setting: the variable that holds it, how minitriton reads it, and how a value is written."""

    def __init__(self, key: str, read: Callable[[], Any], write: Callable[[Any], str] = str):
        self.key, self.read, self.write = key, read, write

    def __set_name__(self, group: type, name: str) -> None:
        self.name = name

    def __get__(self, obj, group=None):
        return self if obj is None else self.read()

    def __set__(self, obj, value) -> None:
        if value is None:
            os.environ.pop(self.key, None)
        else:
            os.environ[self.key] = self.write(value)

    def __delete__(self, obj) -> None:
        os.environ.pop(self.key, None)


def _flag(value) -> str:
    return "1" if value else "0"


class base_knobs:
    """A group of knobs (Triton's class name, which code that saves and restores knobs uses)."""

    @property
    def knob_descriptors(self) -> dict[str, Knob]:
        return {name: k for name, k in type(self).__dict__.items() if isinstance(k, Knob)}

    @property
    def knobs(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.knob_descriptors}

    def copy(self) -> base_knobs:
        return type(self)()  # the values are the environment's: a copy sees the same

    def reset(self) -> base_knobs:
        """Triton's: forget what Python set, keeping the environment; here the environment is all."""
        return self

    @contextmanager
    def scope(self):
        """Within the block, set knobs freely: on leaving it, every variable is as it was."""
        saved = {k.key: os.environ.get(k.key) for k in self.knob_descriptors.values()}
        try:
            yield
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


# --8<-- [start:knobs]
class cache_knobs(base_knobs):
    dir = Knob(CACHE_DIR, lambda: str(cache_dir()))  # where compiled kernels are kept


class runtime_knobs(base_knobs):
    interpret = Knob(INTERPRET_VARIABLES[0], interpreting, _flag)  # run kernels in numpy


class autotuning_knobs(base_knobs):
    print = Knob(PRINT_AUTOTUNING, printing, _flag)  # each config's time, and the choice
# --8<-- [end:knobs]


cache = cache_knobs()
runtime = runtime_knobs()
autotuning = autotuning_knobs()
