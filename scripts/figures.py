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

# (module, the `compiled.asm` stage it produces, if any), in the order a kernel meets them.
FRONT = [("jit.py", None), ("frontend.py", "ttir"), ("passes/simplify.py", None)]
CUDA = [("passes/layout.py", "layout"), ("passes/coalesce.py", None), ("passes/shared.py", None),
        ("passes/barriers.py", None), ("codegen/llvm.py", "llir"), ("codegen/ptx.py", "ptx, cubin"),
        ("cache.py", None), ("driver.py", None)]
INTERPRETER = [("interpreter.py", None)]


def headline(module: str) -> str | None:
    """The first line of a module's docstring, or None if the module is not written yet."""
    path = ROOT / "minitriton" / module
    if not path.exists():
        return None
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    return doc.splitlines()[0] if doc else ""


def _stage_node(graph: graphviz.Digraph, module: str) -> str:
    text = headline(module)
    wrapped = "\\n".join(textwrap.wrap(text if text is not None else "(not written yet)", 38))
    style = {"style": "rounded"} if text is not None else {"style": "rounded,dashed", "fontcolor": "gray40"}
    graph.node(module, f"{module}\\n{wrapped}", shape="box", fontname="Helvetica", fontsize="10", **style)
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
    _chain(graph, clusters["interpreter"], split, INTERPRETER, "tile IR")
    _chain(graph, clusters["cuda"], split, CUDA, "tile IR")
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
    for i, op in enumerate(fn.walk()):
        node = f"op{i}"
        results = ", ".join(printer.name(r) for r in op.results)
        types = ", ".join(str(r.type) for r in op.results)
        label = f"{results} = {op.name}\\n{types}" if results else op.name
        memory = op.name in ("load", "store")
        graph.node(node, label, shape="box", style="rounded,filled" if memory else "rounded",
                   fillcolor="lightgoldenrod1" if memory else "white")
        for operand in op.operands:
            source = operand.owner
            graph.edge(printer.name(operand) if source is None else f"op{_index(fn, source)}", node)
    return graph.source


def _index(fn: ir.Function, target: ir.Op) -> int:
    return next(i for i, op in enumerate(fn.walk()) if op is target)


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
