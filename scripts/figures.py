"""Draw the book's figures and write its listings from the compiler's own objects.

    python scripts/figures.py          # rewrite chapters/figures/ (needs Graphviz's `dot`)

Every figure NAME becomes `NAME.gv` (its Graphviz source) and `NAME.svg` (drawn by `dot`, stamped
with the sha256 of the source it was drawn from). Every listing becomes `NAME.txt`: text the
compiler itself printed (tile IR, an error message, a program's output). The chapters include the
listings with snippets and show the SVGs. `tests/test_docs.py` calls `sources()` and compares with
the committed files, so a change to the compiler that changes a figure or a listing fails the tests
until this script is run again.
"""
from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import subprocess
import sys
import textwrap
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "chapters" / "figures"
EXAMPLES = ROOT / "chapters" / "examples"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script from a checkout: import the package beside it

import graphviz  # noqa: E402
import numpy as np  # noqa: E402

import minitriton as triton  # noqa: E402
from minitriton import ir  # noqa: E402
from minitriton.errors import CompilationError, InterpreterError  # noqa: E402

# ---------------------------------------------------------------------------------------------------
# The pipeline: one node per stage module, labelled with the first line of the module's own docstring.
# ---------------------------------------------------------------------------------------------------

# How a kernel enters: the launch, then `compiler.compile`'s stages before a backend takes over.
FRONT = [("jit.py", None), ("frontend.py", "ttir"), ("passes/simplify.py", None)]
INTERPRETER = ["interpreter.py"]
NOT_STAGES = {"ir.py", "errors.py", "compiler.py"}  # data and helpers every stage uses


def imported_modules(tree: ast.Module, package: Path) -> dict[str, str]:
    """Each name a module's imports bind -> the file (relative to minitriton/) it comes from."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package
            for _ in range(node.level - 1):
                base = base.parent
            for alias in node.names:
                target = base / node.module.replace(".", "/") if node.module else base / alias.name
                bound[alias.asname or alias.name] = str(target.with_suffix(".py").relative_to(ROOT / "minitriton"))
    return bound


def cuda_stages() -> list[str]:
    """The modules whose functions the CUDA backend calls as it builds and launches a kernel, in the
    order of the calls in `CUDABackend.compile`'s `build()` and in `CUDABackend.launcher`."""
    path = ROOT / "minitriton" / "codegen" / "backend.py"
    tree = ast.parse(path.read_text())
    modules = imported_modules(tree, path.parent)
    backend = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "CUDABackend")
    methods = {n.name: n for n in backend.body if isinstance(n, ast.FunctionDef)}
    build = next((n for n in ast.walk(methods["compile"]) if isinstance(n, ast.FunctionDef) and n.name == "build"),
                 None)
    assert build is not None and "launcher" in methods, \
        "the pipeline figure reads CUDABackend.compile's build() and CUDABackend.launcher: update cuda_stages()"
    stages = []
    for function in (build, methods["launcher"]):
        calls = sorted((n for n in ast.walk(function) if isinstance(n, ast.Call)),
                       key=lambda n: (n.lineno, n.col_offset))
        for call in calls:
            name = call.func.value if isinstance(call.func, ast.Attribute) else call.func
            module = modules.get(name.id) if isinstance(name, ast.Name) else None
            if module and module not in NOT_STAGES and module not in stages:
                stages.append(module)
    return stages


def headline(module: str) -> str:
    """The first line of a module's docstring."""
    doc = ast.get_docstring(ast.parse((ROOT / "minitriton" / module).read_text()))
    assert doc, f"minitriton/{module} has no docstring"
    return doc.splitlines()[0]


def _stage_node(graph: graphviz.Digraph, module: str) -> str:
    wrapped = "\\n".join(textwrap.wrap(headline(module), 38))
    graph.node(module, f"{module}\\n{wrapped}", shape="box", style="rounded", fontname="Helvetica",
               fontsize="10")
    return module


def _chain(graph: graphviz.Digraph, where: graphviz.Digraph, start: str, stages: list[tuple[str, str | None]],
           produced: str | None) -> None:
    """Draw `stages` as nodes in `where` (a cluster, or the graph), linked in order from `start`."""
    previous, label = start, produced
    for module, makes in stages:
        node = _stage_node(where, module)
        graph.edge(previous, node, label=label or "", fontname="Helvetica", fontsize="9")
        previous, label = node, makes


def pipeline_graph() -> str:
    graph = graphviz.Digraph("pipeline", graph_attr={"rankdir": "TB", "nodesep": "0.3", "ranksep": "0.3"})
    graph.node("kernel", "@jit Python function", shape="plaintext", fontname="Helvetica")
    _chain(graph, graph, "kernel", FRONT, None)
    clusters = {}
    for name, label in (("interpreter", "MINITRITON_INTERPRET=1"), ("cuda", "CUDA backend")):
        clusters[name] = graphviz.Digraph(f"cluster_{name}", graph_attr={
            "label": label, "fontname": "Helvetica", "fontsize": "9", "style": "dotted"})
    split = FRONT[-1][0]  # both backends start from the simplified tile IR
    _chain(graph, clusters["interpreter"], split, [(m, None) for m in INTERPRETER], "tile IR")
    _chain(graph, clusters["cuda"], split, [(m, None) for m in cuda_stages()], "tile IR")
    for cluster in clusters.values():
        graph.subgraph(cluster)
    return graph.source


# ---------------------------------------------------------------------------------------------------
# A kernel's tile IR as a dataflow graph: ops are nodes, values are edges.
# ---------------------------------------------------------------------------------------------------

def ir_graph(fn: ir.Function) -> str:
    printer = ir.Printer()
    graph = graphviz.Digraph(fn.name, graph_attr={"rankdir": "TB", "nodesep": "0.2", "ranksep": "0.25"},
                             node_attr={"fontname": "Helvetica", "fontsize": "10"})
    for arg in fn.args:
        graph.node(printer.name(arg), f"{printer.name(arg)}\\n{arg.type}", shape="plaintext")
    index = {id(op): i for i, op in enumerate(fn.walk())}
    for op in fn.walk():
        node = f"op{index[id(op)]}"
        results = ", ".join(printer.name(r) for r in op.results)
        types = ", ".join(str(r.type) for r in op.results)
        label = f"{results} = {op.name}\\n{types}" if results else op.name
        memory = op.name in ("load", "store")
        graph.node(node, label, shape="box", style="rounded,filled" if memory else "rounded",
                   fillcolor="lightgoldenrod1" if memory else "white")
        for operand in op.operands:
            source = operand.owner
            graph.edge(printer.name(operand) if source is None else f"op{index[id(source)]}", node)
    return graph.source


# ---------------------------------------------------------------------------------------------------
# Listings: what the compiler prints for the chapters' kernels.
# ---------------------------------------------------------------------------------------------------

def _aligned(n: int, dtype) -> np.ndarray:
    """An array whose address is a multiple of 16, as arrays a kernel receives usually are."""
    dtype = np.dtype(dtype)
    raw = np.zeros(n * dtype.itemsize + 16, np.uint8)
    start = -raw.ctypes.data % 16
    return raw[start:start + n * dtype.itemsize].view(dtype)


def ttir(kernel, *args, **constexprs) -> str:
    return kernel.warmup(*args, target="interpreter", **constexprs).asm["ttir"]


def _relative(text: str) -> str:
    """Error messages name files by absolute path; the book shows them from the repository root."""
    return text.replace(str(ROOT) + os.sep, "")


def _error(action) -> str:
    try:
        action()
    except (CompilationError, InterpreterError) as e:
        return _relative(f"{type(e).__name__}: {e}")
    raise AssertionError("the example was supposed to fail")


def example(name: str):
    """A module of chapters/examples/, imported from its file."""
    module_name = f"chapter_examples.{name}"
    if module_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(module_name, EXAMPLES / f"{name}.py")
        sys.modules[module_name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[module_name])
    return sys.modules[module_name]


@contextmanager
def interpreting():
    """Launch kernels in the interpreter for a while, leaving the environment as it was afterwards."""
    saved = os.environ.get("MINITRITON_INTERPRET")
    os.environ["MINITRITON_INTERPRET"] = "1"
    try:
        yield
    finally:
        if saved is None:
            del os.environ["MINITRITON_INTERPRET"]
        else:
            os.environ["MINITRITON_INTERPRET"] = saved


def script_output(name: str) -> str:
    """What `python chapters/examples/NAME.py` prints, run as a reader would run it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py")], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True)
    return done.stdout


def listings() -> dict[str, str]:
    from minitriton.examples.tutorials import add_kernel, softmax_kernel
    from minitriton.frontend import generate
    from minitriton.jit import arg_spec, specialize

    fe, mistakes, hand_built = example("frontend_examples"), example("mistakes"), example("hand_built_ir")
    f32 = _aligned(1, np.float32)
    out = {}
    out["add.ttir"] = ttir(add_kernel, f32, f32, f32, 98_437, BLOCK_SIZE=1024)
    out["softmax.ttir"] = ttir(softmax_kernel, f32, f32, 781, 781, 301, 781, BLOCK_SIZE=1024, num_stages=2)
    out["double.ast"] = ast.dump(fe.double.parsed.tree, indent=2)
    out["double.ttir"] = ttir(fe.double, f32, BLOCK=4)
    out["gather.stride7.ttir"] = ttir(fe.gather, f32, f32, 7, BLOCK=4)
    out["gather.stride1.ttir"] = ttir(fe.gather, f32, f32, 1, BLOCK=4)
    out["mixed.ttir"] = ttir(fe.mixed, _aligned(1, np.float16), f32, f32, BLOCK=4)
    out["row_sum.ttir"] = ttir(fe.row_sum, f32, f32, 300, BLOCK=128)
    out["activate.leaky_relu.ttir"] = ttir(fe.activate, f32, 100, ACTIVATION="leaky_relu", BLOCK=4)
    out["activate.none.ttir"] = ttir(fe.activate, f32, 100, ACTIVATION="none", BLOCK=4)
    specs = {name: arg_spec(specialize(name, value)) for name, value in [("x_ptr", f32), ("n", 100)]}
    out["activate.none.unsimplified"] = ir.print_function(
        generate(fe.activate, specs, {"ACTIVATION": "none", "BLOCK": 4}))
    out["error.tile_condition"] = _error(lambda: ttir(mistakes.relu, f32, BLOCK=4))
    out["error.loop_type"] = _error(lambda: ttir(mistakes.total, f32, f32, 100, BLOCK=4))
    x = np.zeros(1000, np.float32)
    with interpreting():
        out["error.out_of_bounds"] = _error(
            lambda: mistakes.add_unmasked[(triton.cdiv(1000, 256),)](x, x, np.empty_like(x), 1000, BLOCK=256))
    out["hand_built.ttir"] = ir.print_function(hand_built.build_scale(8))
    out["hand_built.verify"] = f"VerificationError: {hand_built.break_scale()}"
    out["first_kernel.output"] = script_output("first_kernel")
    return {f"{name}.txt": text.rstrip("\n") + "\n" for name, text in out.items()}


def figures() -> dict[str, str]:
    from minitriton.examples.tutorials import add_kernel
    from minitriton.frontend import generate
    from minitriton.jit import arg_spec, specialize
    from minitriton.passes.simplify import simplify

    f32 = _aligned(1, np.float32)
    specs = {name: arg_spec(specialize(name, value)) for name, value in
             [("x_ptr", f32), ("y_ptr", f32), ("output_ptr", f32), ("n_elements", 98_437)]}
    add = simplify(generate(add_kernel, specs, {"BLOCK_SIZE": 1024}))
    return {"pipeline.gv": pipeline_graph(), "add_ir.gv": ir_graph(add)}


def sources() -> dict[str, str]:
    """Every generated text file of chapters/figures/, by file name: Graphviz sources and listings."""
    return {**figures(), **listings()}


def svg_stamp(source: str) -> str:
    """The comment an SVG carries to say which source it was drawn from."""
    return f"<!-- drawn by scripts/figures.py from a source with sha256 {hashlib.sha256(source.encode()).hexdigest()} -->"


def render(source: str) -> str:
    svg = graphviz.Source(source).pipe(format="svg", encoding="utf-8")
    declaration, rest = svg.split("\n", 1)
    return f"{declaration}\n{svg_stamp(source)}\n{rest}"


def main() -> None:
    FIGURES.mkdir(parents=True, exist_ok=True)
    for name, text in sources().items():
        (FIGURES / name).write_text(text)
        if name.endswith(".gv"):
            (FIGURES / name).with_suffix(".svg").write_text(render(text))
        print(f"wrote chapters/figures/{name}")


if __name__ == "__main__":
    main()
