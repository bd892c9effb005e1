"""Which implementation an exercise's tests run: your copy, the stub, the solution or a wrong one.

Each test file does `impl = load("01_introduction/ex1_axpy")` and tests `impl.<name>`. The stubs in
`exercises/` are never edited: you work in a copy of each, under `my_exercises/` (which git
ignores), made from the stub the first time its tests run. MINITRITON_SOLUTIONS picks the file:

| MINITRITON_SOLUTIONS | the module `load("01_introduction/ex1_axpy")` imports |
| --- | --- |
| unset, or 0 | your copy, `my_exercises/01_introduction/ex1_axpy.py` |
| 1 | the reference solution, `exercises/solutions/01_introduction/ex1_axpy.py` |
| stubs | the untouched stub, `exercises/01_introduction/ex1_axpy.py` |
| wrong:01_introduction/ex1_axpy__no_mask | the wrong solution `exercises/wrong/01_introduction/ex1_axpy__no_mask.py` |

A wrong solution (`wrong/<chapter>/<exercise>__<mistake>.py`) is the reference solution with one
plausible mistake. `wrong:` takes a comma-separated list of them, at most one per exercise; an
exercise without one in the list loads its reference solution. `tests/test_exercises.py` runs every
exercise's tests on the stubs (each test must fail), on the solutions (each must pass) and on the
wrong solutions (each must fail at least one), so solving exercises in `my_exercises/` never
changes what `make test` checks.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
WORKING_COPIES = HERE.parent / "my_exercises"
WRONG = "wrong:"


def chosen_file(name: str) -> tuple[Path, str]:
    """The file that exercise `name` ("NN_chapter/exN_name") is loaded from, and a module name
    that tells the implementations apart."""
    choice = os.environ.get("MINITRITON_SOLUTIONS", "0")
    if choice.startswith(WRONG):
        variants = {variant.split("__")[0]: variant for variant in choice[len(WRONG):].split(",")}
        if name in variants:
            return HERE / "wrong" / f"{variants[name]}.py", "wrong_" + variants[name]
        return HERE / "solutions" / f"{name}.py", "solution_" + name
    if choice == "stubs":
        return HERE / f"{name}.py", "stub_" + name
    if choice not in ("", "0"):
        return HERE / "solutions" / f"{name}.py", "solution_" + name
    copy = WORKING_COPIES / f"{name}.py"
    if not copy.exists():
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(HERE / f"{name}.py", copy)
    return copy, "mine_" + name


def load(name: str) -> ModuleType:
    """The module for exercise `name` ("NN_chapter/exN_name"), imported from its file."""
    path, module_name = chosen_file(name)
    module_name = module_name.replace("/", "_")
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # before running it: @jit reads its functions' source by module
    spec.loader.exec_module(module)
    return module
