"""The house: every import of the package's own modules runs down, at the top of its module.

The package's modules are read with `ast` (nothing is imported). Each module belongs to one layer
of `LAYERS`, from the leaves at the bottom to the tools on top; a module may import modules of its
own layer or of the layers below, never above. No import of the package's own modules hides inside
a function, and no modules import each other in a circle. A package's `__init__.py` is its face:
importing it imports what it re-exports.
"""
from __future__ import annotations

import ast
import fnmatch
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "minitriton"

# Bottom to top. A name may end in `.*` (every module of that package).
LAYERS = [
    ("leaves", ["errors", "version", "dtypes", "floats", "layouts.*", "libdevice.*", "tools.*", "allocation",
                "exercise_hooks"]),
    ("tile IR", ["ir.*"]),
    ("the language's builtins, specialization, plain data", [
        "language.semantic", "language.tiles", "language.dots", "language.extern", "language.core", "language.aggregate", "language.blocks",
        "language.memory", "language.reduction", "language.debug", "language.shapes", "language.scaled", "language.elementwise",
        "language.extra.*", "specialize", "kernel",
        "cache"]),
    ("frontend and interpreter", ["frontend.*", "accesses", "address_space", "interpreter"]),
    ("passes", ["passes.*"]),
    ("codegen", ["codegen.lowering", "codegen.fp8", "codegen.elementwise", "codegen.shared", "codegen.memory",
                 "codegen.operands", "codegen.tma", "codegen.movement", "codegen.indexed", "codegen.inline",
                 "codegen.dot", "codegen.control", "codegen.llvm", "codegen.toolkit", "codegen.link", "codegen.ptx"]),
    ("the driver", ["driver"]),
    ("the launch", ["launcher"]),
    ("backends", ["codegen.backend", "backends"]),
    ("compile", ["compiler"]),
    ("the JIT", ["jit"]),
    ("written in the language, and the JIT's tools", ["language.standard", "language.random", "language.math",
                                                      "testing.*", "autotune"]),
    ("Triton's runtime names (the driver object, the kernel classes), its knobs", ["runtime.*", "knobs"]),
    ("the package's face, examples, benchmarks, the command line", ["__init__", "examples.*", "bench.*", "__main__"]),
]


def modules() -> dict[str, Path]:
    """Dotted name (without `minitriton.`; a package by its own name, its face `__init__`) -> file."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1] or ["__init__"]
        found[".".join(parts)] = path
    return found


MODULES = modules()
FACES = {name for name, path in MODULES.items() if path.name == "__init__.py"}


def resolve(importer: str, node: ast.ImportFrom | ast.Import) -> list[str]:
    """The package's modules an import statement imports (a submodule named in `from x import y`
    counts as itself, anything else in it as `x`)."""
    if isinstance(node, ast.Import):
        names = [a.name.removeprefix("minitriton").lstrip(".") or "__init__" for a in node.names
                 if a.name == "minitriton" or a.name.startswith("minitriton.")]
        return [n for n in names if n in MODULES]
    if node.level == 0:
        if node.module != "minitriton" and not (node.module or "").startswith("minitriton."):
            return []
        base = node.module.removeprefix("minitriton").lstrip(".")
    else:
        here = importer.split(".") if MODULES[importer].name == "__init__.py" and importer != "__init__" else \
            importer.split(".")[:-1]
        if importer == "__init__":
            here = []
        here = here[:len(here) - (node.level - 1)]
        base = ".".join(here + ([node.module] if node.module else []))
    targets = []
    for alias in node.names:
        sub = f"{base}.{alias.name}" if base else alias.name
        targets.append(sub if sub in MODULES else (base or "__init__"))
    return [t for t in targets if t in MODULES]


def imports() -> tuple[dict[str, set[str]], list[str]]:
    """Each module's imports of the package (faces expanded), and the imports found inside functions."""
    direct: dict[str, set[str]] = {}
    local = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text())
        direct[name] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if isinstance(inner, (ast.Import, ast.ImportFrom)) and resolve(name, inner):
                        local.append(f"{path.relative_to(PACKAGE.parent)}:{inner.lineno}")
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                direct[name] |= {t for t in resolve(name, node) if t != name}
    return direct, local


DIRECT, LOCAL = imports()


def through_faces(name: str, seen=None) -> set[str]:
    """What importing `name` imports: a module, or for a face, what it re-exports (faces followed)."""
    seen = set() if seen is None else seen
    if name not in FACES or name in seen:
        return {name}
    seen.add(name)
    result = set()
    for target in DIRECT[name]:
        result |= through_faces(target, seen)
    return result


def layer_of(name: str) -> int:
    for rank, (_, patterns) in enumerate(LAYERS):
        if any(fnmatch.fnmatchcase(name, p) or p.endswith(".*") and name == p[:-2] for p in patterns):
            return rank
    raise AssertionError(f"minitriton.{name} is in no layer of LAYERS: give it one")


def test_every_module_has_a_layer():
    for name in MODULES:
        if name not in FACES or name == "__init__":
            layer_of(name)


def test_no_import_of_the_package_inside_a_function():
    assert not LOCAL, f"imports of minitriton modules inside functions (import at the top): {', '.join(LOCAL)}"


def test_every_import_runs_down():
    upward = []
    for name in MODULES:
        if name in FACES and name != "__init__":
            continue
        for target in DIRECT[name]:
            for module in through_faces(target):
                if module != name and layer_of(module) > layer_of(name):
                    upward.append(f"{name} ({LAYERS[layer_of(name)][0]}) imports {module} "
                                  f"({LAYERS[layer_of(module)][0]})")
    assert not upward, "imports that run up:\n  " + "\n  ".join(sorted(upward))


def test_no_circles():
    graph = {name: set().union(*[through_faces(t) for t in DIRECT[name]]) - {name} if DIRECT[name] else set()
             for name in MODULES if name not in FACES or name == "__init__"}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        path.append(name)
        for target in sorted(graph.get(name, ())):
            if state.get(target) == 1:
                circle = path[path.index(target):] + [target]
                raise AssertionError("an import circle: " + " -> ".join(circle))
            if target not in state:
                visit(target)
        path.pop()
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)


def test_the_checks_can_fail():
    """The resolver sees an upward import, a local one and a circle when there is one."""
    tree = ast.parse("from ..jit import jit\n")
    assert resolve("passes.layout", tree.body[0]) == ["jit"]
    assert layer_of("jit") > layer_of("passes.layout")
    tree = ast.parse("from . import core as tl\n")
    assert resolve("language.standard", tree.body[0]) == ["language.core"]
    tree = ast.parse("from .. import ir\n")
    assert resolve("passes.layout", tree.body[0]) == ["ir"] and "ir.ops" in through_faces("ir")
