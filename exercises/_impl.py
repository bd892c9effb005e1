"""Which implementation an exercise's tests run: the learner's stub, or the reference solution.

Each test file does `impl = load("01_introduction/ex1_axpy")` and tests `impl.<name>`. By default
that is the file beside the test (`exercises/01_introduction/ex1_axpy.py`), which the learner
edits; with MINITRITON_SOLUTIONS=1 it is `exercises/solutions/01_introduction/ex1_axpy.py`.
`tests/test_exercises.py` runs every exercise both ways: each test must fail on the untouched
stub and pass on the solution.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent


def solutions_wanted() -> bool:
    return os.environ.get("MINITRITON_SOLUTIONS", "0") not in ("", "0")


def load(name: str) -> ModuleType:
    """The module for exercise `name` ("NN_chapter/exN_name"), imported from its file."""
    folder = HERE / "solutions" if solutions_wanted() else HERE
    path = folder / f"{name}.py"
    module_name = ("solution_" if solutions_wanted() else "exercise_") + name.replace("/", "_")
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # before running it: @jit reads its functions' source by module
    spec.loader.exec_module(module)
    return module
