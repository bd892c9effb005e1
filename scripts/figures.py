"""Draw the book's figures and write its listings from the compiler's own objects.

    python scripts/figures.py              # rewrite chapters/figures/ (needs Graphviz's `dot`)
    python scripts/figures.py add.launcher # print listings (chapters/figures/NAME.txt), write nothing

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
import re
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
FRONT = [("jit.py", None), ("frontend/", "ttir"), ("passes/simplify.py", None)]
INTERPRETER = ["interpreter.py"]
NOT_STAGES = {"ir.py", "errors.py", "compiler.py", "kernel.py"}  # data and helpers every stage uses


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
    order of the calls in `CUDABackend.build` and in `CUDABackend.launcher`."""
    path = ROOT / "minitriton" / "codegen" / "backend.py"
    tree = ast.parse(path.read_text())
    modules = imported_modules(tree, path.parent)
    backend = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "CUDABackend")
    methods = {n.name: n for n in backend.body if isinstance(n, ast.FunctionDef)}
    assert "build" in methods and "launcher" in methods, \
        "the pipeline figure reads CUDABackend.build and CUDABackend.launcher: update cuda_stages()"
    stages = []
    for function in (methods["build"], methods["launcher"]):
        calls = sorted((n for n in ast.walk(function) if isinstance(n, ast.Call)),
                       key=lambda n: (n.lineno, n.col_offset))
        for call in calls:
            name = call.func.value if isinstance(call.func, ast.Attribute) else call.func
            module = modules.get(name.id) if isinstance(name, ast.Name) else None
            if module and module not in NOT_STAGES and module not in stages:
                stages.append(module)
    return stages


def headline(module: str) -> str:
    """The first line of a module's docstring (a package's, for `name/`)."""
    path = ROOT / "minitriton" / (module + "__init__.py" if module.endswith("/") else module)
    doc = ast.get_docstring(ast.parse(path.read_text()))
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

WIDTH = 100  # columns: the widest line a listing shows, so that it fits the book's column at page size


def _packed(pieces: list[str], indent: str) -> str:
    """`pieces` joined into lines of at most WIDTH columns (where a piece fits), each line after the
    first starting with `indent`."""
    lines = [pieces[0]]
    for piece in pieces[1:]:
        if len(lines[-1]) + len(piece.rstrip()) > WIDTH:
            lines[-1] = lines[-1].rstrip()
            lines.append(indent + piece)
        else:
            lines[-1] += piece
    return "\n".join(lines).rstrip()


def _narrow_message(text: str) -> str:
    """A message whose lines past WIDTH are broken at spaces and continued four columns further in."""
    lines = []
    for line in text.splitlines():
        indent = " " * (len(line) - len(line.lstrip()) + 4)
        lines += textwrap.wrap(line, WIDTH, subsequent_indent=indent, break_long_words=False,
                               break_on_hyphens=False) if len(line) > WIDTH else [line]
    return "\n".join(lines)


def _narrow_llvm(text: str) -> str:
    """LLVM IR whose lines past WIDTH are broken after a comma outside quotes (LLVM reads a line
    break as a space) and continued six columns further in."""
    lines = []
    for line in text.splitlines():
        if len(line) <= WIDTH:
            lines.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip()) + 6)
        lines.append(_packed(re.findall(r'(?:"[^"]*"|[^",])+,? *', line), indent))
    return "\n".join(lines)


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
        return _narrow_message(_relative(f"{type(e).__name__}: {e}"))
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
    from minitriton.specialize import arg_spec, specialize

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
    out["bessel.ttir"] = ttir(fe.bessel, f32, f32, 100, BLOCK=4)
    out["row_sum.ttir"] = ttir(fe.row_sum, f32, f32, 300, BLOCK=128)
    out["activate.leaky_relu.ttir"] = ttir(fe.activate, f32, 100, ACTIVATION="leaky_relu", BLOCK=4)
    out["activate.none.ttir"] = ttir(fe.activate, f32, 100, ACTIVATION="none", BLOCK=4)
    out["min_and_where.ttir"] = ttir(fe.min_and_where, f32, f32, _aligned(1, np.int32), BLOCK=8)
    out["selu.ttir"] = ttir(fe.selu, f32, BLOCK=8)
    out["min_max.ttir"] = ttir(fe.min_max, f32, f32, 1000, BLOCK=128)
    out["scale_rows.ttir"] = ttir(fe.scale_rows, fe.Matrix(f32, (30, 50), (64, 1)), 2.0, BLOCK=64)
    specs = {name: arg_spec(specialize(name, value)) for name, value in [("x_ptr", f32), ("n", 100)]}
    out["activate.none.unsimplified"] = ir.print_function(
        generate(fe.activate, specs, {"ACTIVATION": "none", "BLOCK": 4}))
    out["error.tile_condition"] = _error(lambda: ttir(mistakes.relu, f32, BLOCK=4))
    out["error.loop_type"] = _error(lambda: ttir(mistakes.total, f32, f32, 100, BLOCK=4))
    x = np.zeros(1000, np.float32)
    buffer = np.zeros(8 * 16 + 16, np.float32)  # an 8 x 16 matrix, and the output right after it
    with interpreting():
        out["error.out_of_bounds"] = _error(
            lambda: mistakes.add_unmasked[(triton.cdiv(1000, 256),)](x, x, np.empty_like(x), 1000, BLOCK=256))
        out["error.wrong_kind"] = _error(lambda: mistakes.scale[(4,)](x, None, 2.0, 1000, BLOCK=256))
        out["error.walks_out"] = _error(
            lambda: mistakes.first_column[(1,)](buffer[:128], buffer[128:], 16, ROWS=16))
    out["hand_built.ttir"] = ir.print_function(hand_built.build_scale(8))
    out["hand_built.verify"] = f"VerificationError: {hand_built.break_scale()}"
    out["first_kernel.output"] = script_output("first_kernel")
    out["host_api.output"] = script_output("host_api")
    return {f"{name}.txt": text.rstrip("\n") + "\n" for name, text in out.items()}


def figures() -> dict[str, str]:
    from minitriton.examples.tutorials import add_kernel
    from minitriton.frontend import generate
    from minitriton.specialize import arg_spec, specialize
    from minitriton.passes.simplify import simplify

    f32 = _aligned(1, np.float32)
    specs = {name: arg_spec(specialize(name, value)) for name, value in
             [("x_ptr", f32), ("y_ptr", f32), ("output_ptr", f32), ("n_elements", 98_437)]}
    add = simplify(generate(add_kernel, specs, {"BLOCK_SIZE": 1024}))
    return {"pipeline.gv": pipeline_graph(), "add_ir.gv": ir_graph(add)}


# ---------------------------------------------------------------------------------------------------
# The CUDA backend (chapters 4 to 9): layouts, axis facts, shared memory, barriers, LLVM IR, PTX, launch.
# ---------------------------------------------------------------------------------------------------

TARGET = "sm_90"  # the arch the backend chapters compile for; no GPU is needed to compile for it


def _misaligned(n: int, dtype, offset_bytes: int) -> np.ndarray:
    """An array whose address is `offset_bytes` past a multiple of 16."""
    dtype = np.dtype(dtype)
    raw = np.zeros(n * dtype.itemsize + 16 + offset_bytes, np.uint8)
    start = -raw.ctypes.data % 16 + offset_bytes
    return raw[start:start + n * dtype.itemsize].view(dtype)


def compiled(kernel, *args, **kwargs):
    """A kernel compiled for TARGET with its every stage in `asm` (warmup: nothing runs)."""
    return kernel.warmup(*args, target=TARGET, **kwargs)


def _lines(text: str, *words: str) -> str:
    """The lines of `text` that contain any of `words`, tabs turned into spaces."""
    return "\n".join(line.expandtabs(8) for line in text.splitlines() if any(w in line for w in words))


def _with_aliases(listing: str, shown: str) -> str:
    """`shown`, lines picked from a printed `listing`, under the definitions of the layout aliases
    it names (and the parents they name), in the listing's order."""
    definitions = dict(line.split(" = ", 1) for line in listing.splitlines() if line.startswith("#"))
    needed, todo = set(), re.findall(r"#\w+?\d+\b", shown)
    while todo:
        alias = todo.pop()
        if alias in definitions and alias not in needed:
            needed.add(alias)
            todo += re.findall(r"#\w+?\d+\b", definitions[alias])
    return "\n".join([f"{a} = {d}" for a, d in definitions.items() if a in needed] + [shown])


def _between(text: str, first: str, stop: str) -> str:
    """The lines of `text` from the first one containing `first` up to (without) the next containing `stop`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if first in line)
    end = next(i for i in range(start + 1, len(lines)) if stop in lines[i])
    return "\n".join(lines[start:end])


class BackendIR:
    """A kernel's IR after the CUDA backend's passes, with what the shared-memory pass decided:
    `fn` after insert_barriers (what `asm["layout"]` prints); the scratch `buffers` assign_shared
    placed; `length`, the number of ops when they were placed (their positions count up to it);
    `ring_uses`, (position, op) of each async_load and local_read in that numbering; `loops`, the
    (first, last) position of each `for` and the last op of its body."""

    def __init__(self, fn: ir.Function, buffers: list, length: int, ring_uses: list, loops: list):
        self.fn, self.buffers, self.length, self.ring_uses, self.loops = fn, buffers, length, ring_uses, loops


def backend_ir(kernel, *args, **kwargs) -> BackendIR:
    """Run the CUDA backend's passes here, in the order `CUDABackend.compile` runs them, keeping the
    objects the chapters draw; the result must print as the `layout` stage the backend keeps."""
    from minitriton.frontend import generate
    from minitriton.specialize import arg_spec, specialize
    from minitriton.passes.barriers import insert_barriers
    from minitriton.passes.coalesce import coalesce
    from minitriton.passes.layout import assign_layouts
    from minitriton.passes.pipeline import pipeline
    from minitriton.passes.prefetch import prefetch
    from minitriton.passes.shared import assign_shared
    from minitriton.passes.simplify import simplify

    expected = compiled(kernel, *args, **kwargs).asm["layout"]
    kwargs = dict(kwargs)
    options = kernel.options(kwargs)
    num_warps, num_stages = options.num_warps, options.num_stages
    bound = kernel.bind(args, kwargs)
    specs = {n: arg_spec(specialize(n, v)) for n, v in bound.items() if n not in kernel.constexpr_names}
    constexprs = {n: v for n, v in bound.items() if n in kernel.constexpr_names}
    fn = simplify(generate(kernel, specs, constexprs))
    assign_layouts(fn, num_warps, coalesce(fn, num_warps))
    pipeline(fn, num_stages)
    prefetch(fn, num_stages, num_warps)
    buffers = assign_shared(fn)
    ops = list(fn.walk())
    position = {id(op): i for i, op in enumerate(ops)}
    ring_uses = [(i, op) for i, op in enumerate(ops) if op.name in ("async_load", "local_read")]
    loops = [(position[id(op)], position[id(op.regions[0].ops[-1])]) for op in ops if op.name == "for"]
    insert_barriers(fn)
    assert ir.print_function(fn) == expected, \
        "scripts/figures.py no longer runs the CUDA passes as CUDABackend.compile does: update backend_ir()"
    return BackendIR(fn, buffers, len(ops), ring_uses, loops)


def _dot_string(text: str) -> str:
    """A DOT string; a `\\n` in `text` stays DOT's line break."""
    return '"' + text.replace('"', '\\"') + '"'


def _attributes(attrs: dict) -> str:
    return ", ".join(f"{k}={_dot_string(str(v))}" for k, v in attrs.items())


RING_COLORS = ("#b3cde3", "#ccebc5", "#decbe4", "#fed9a6")
SCRATCH_COLOR, SHARED_OP_COLOR, BARRIER_COLOR = "#fbb4ae", "#fed9a6", "#fb8072"


def shared_memory_graph(kernel: BackendIR, title: str) -> str:
    """Shared memory over a kernel: x is an op's position in program order, y a byte offset. The
    pipeline's rings live over their loop (one band per stage, with a tick where an async_load
    writes it or a local_read reads it); each scratch buffer lives during its op."""
    fn, length = kernel.fn, kernel.length
    total = fn.attrs["shared_bytes"]
    width, height, left, bottom = 640.0, 300.0, 80.0, 60.0
    x = lambda position: left + width * position / length
    y = lambda offset: bottom + height * offset / total
    lines = ["digraph shared {",
             "  graph [layout=neato, inputscale=72, splines=false, outputorder=nodesfirst];",
             '  node [shape=box, fixedsize=true, fontname="Helvetica", fontsize=9, style=filled, penwidth=0.7];',
             f'  label={_dot_string(title)}; labelloc=t; fontname="Helvetica"; fontsize=11;']

    def box(name, x0, x1, y0, y1, label, color, **extra):
        attrs = {"pos": f"{(x0 + x1) / 2:.1f},{(y0 + y1) / 2:.1f}!", "width": f"{(x1 - x0) / 72:.3f}",
                 "height": f"{(y1 - y0) / 72:.3f}", "label": label, "fillcolor": color, **extra}
        lines.append(f"  {name} [{_attributes(attrs)}];")

    def text(name, px, py, label, half_width=60):
        box(name, px - half_width, px + half_width, py - 8, py + 8, label, "white", shape="plaintext", style="")

    offsets, sizes = fn.attrs["buffer_offsets"], fn.attrs["shared_buffers"]
    ring_ops = {op.attrs["buffer"]: op for _, op in kernel.ring_uses if op.name == "async_load"}
    spans = {b.ring: b for b in kernel.buffers if b.ring}
    for r, name in enumerate(sorted(offsets, key=offsets.get)):
        stage_bytes = ring_ops[name].attrs["stage_bytes"]
        tile = ring_ops[name].operands[0].type
        start, end = x(spans[name].start), x(spans[name].end + 1)
        for s in range(sizes[name] // stage_bytes):
            low = offsets[name] + s * stage_bytes
            box(f"{name}_{s}", start, end, y(low), y(low + stage_bytes), "", RING_COLORS[r % len(RING_COLORS)])
            text(f"{name}_{s}_label", start + (end - start) * 0.25, y(low + stage_bytes / 2),
                 f"{name} stage {s}: {'x'.join(map(str, tile.shape))} {tile.dtype.pointee.short}", half_width=80)
    for i, (position, op) in enumerate(kernel.ring_uses):
        # A stage given by a constant (the prologue's copies) is one stage; a loop's may be any of them.
        stage = op.operands[-1 if op.name == "async_load" else 0].owner
        low, high = offsets[op.attrs["buffer"]], offsets[op.attrs["buffer"]] + sizes[op.attrs["buffer"]]
        if stage is not None and stage.name == "constant":
            low += stage.attrs["value"] * op.attrs["stage_bytes"]
            high = low + op.attrs["stage_bytes"]
        color = "#4d4d4d" if op.name == "async_load" else "#e41a1c"
        box(f"use{i}", x(position) - 1.2, x(position) + 1.2, y(low), y(high), "", color, penwidth=0)
    for i, buffer in enumerate(b for b in kernel.buffers if not b.ring):
        x0, x1 = x(buffer.start), max(x(buffer.end + 1), x(buffer.start) + 6)
        box(f"buffer{i}", x0, x1, y(buffer.offset), y(buffer.offset + buffer.size), "", SCRATCH_COLOR)
        text(f"buffer{i}_label", x0 - 62, y(buffer.offset + buffer.size / 2), f"{buffer.op.name}: {buffer.size} B")
    for i, (first, last) in enumerate(kernel.loops):
        box(f"loop{i}", x(first), x(last + 1), bottom - 26, bottom - 20, "", "#999999", penwidth=0)
        text(f"loop{i}_label", x((first + last + 1) / 2), bottom - 36, "for loop body")
    for tick in sorted({0, total, *offsets.values(), *(b.offset for b in kernel.buffers)}):
        text(f"y{tick}", left - 30, y(tick), str(tick), half_width=25)
    for tick in (0, length):
        text(f"x{tick}", x(tick), bottom - 10, str(tick), half_width=20)
    text("x_axis", left + width / 2, bottom - 52, "op position (program order)", half_width=100)
    text("y_axis", left - 30, bottom + height + 16, "byte offset", half_width=40)
    text("key_writes", left + width - 110, bottom + height + 16, "dark: async_load (cp.async writes)", 100)
    text("key_reads", left + width - 110, bottom + height + 32, "red: local_read (ldmatrix reads)", 100)
    lines.append("}")
    return "\n".join(lines) + "\n"


def barrier_graph(fn: ir.Function, title: str) -> str:
    """The ops of `fn` in program order: shared-memory ops with their byte ranges, the barriers
    `insert_barriers` placed, loop bodies as boxes with their back edge; other ops folded into counts."""
    printer = ir.Printer()
    printer.function(fn)  # names every value as the listing does
    lines = ["digraph barriers {",
             '  graph [rankdir=TB, nodesep=0.2, ranksep=0.18, fontname="Helvetica", fontsize=11];',
             '  node [fontname="Courier", fontsize=9, shape=box, style="rounded,filled", fillcolor=white, height=0.25];',
             '  edge [arrowsize=0.5];', f"  label={_dot_string(title)}; labelloc=t;"]
    count = [0]

    def node(label, **attrs) -> str:
        count[0] += 1
        lines.append(f"  n{count[0]} [{_attributes({'label': label, **attrs})}];")
        return f"n{count[0]}"

    def chain(block: ir.Block, previous: str | None) -> tuple[str, str]:
        """Draw `block`'s ops linked after `previous`; return its first and last node."""
        first, folded = None, 0

        def link(name):
            nonlocal previous, first
            if previous is not None:
                lines.append(f"  {previous} -> {name};")
            first, previous = first or name, name

        def flush():
            nonlocal folded
            if folded:
                link(node(f"{folded} other op{'s' if folded > 1 else ''}", shape="plaintext", style=""))
                folded = 0

        for op in block.ops:
            if op.name == "barrier":
                flush()
                link(node("barrier", fillcolor=BARRIER_COLOR))
            elif "smem_bytes" in op.attrs:
                flush()
                low = op.attrs["smem_offset"]
                what = f"{', '.join(printer.name(r) for r in op.results)} = {op.name}"
                link(node(f"{what}\\nshared [{low}, {low + op.attrs['smem_bytes']})", fillcolor=SHARED_OP_COLOR))
            elif op.regions:
                flush()
                head = node(f"{op.name} {', '.join(printer.name(v) for v in op.operands[:3])}", fillcolor="#eeeeee")
                link(head)
                for region in op.regions:
                    lines.append(f'  subgraph cluster_{count[0]} {{ label="{op.name} body"; style=dashed; fontsize=9;')
                    inner_first, inner_last = chain(region, None)
                    lines.append("  }")
                    lines.append(f"  {head} -> {inner_first};")
                    lines.append(f'  {inner_last} -> {inner_first} [constraint=false, style=dashed, '
                                 f'label=" next trip", fontsize=8, fontname="Helvetica"];')
                    previous = inner_last
            elif op.name in ("yield", "condition"):
                flush()
                link(node(op.name, shape="plaintext", style=""))
            else:
                folded += 1
        flush()
        return first, previous

    chain(fn.body, node(f"func @{fn.name}", shape="plaintext", style=""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _layout_bases(layout, shape, index, warp, lane) -> str:
    """What a distributed layout answers, as the layouts chapter shows it."""
    lines = [
        f"{layout}  over {list(shape)}",
        f"register bases   {layout.register_bases(shape)}",
        f"lane bases       {layout.lane_bases(shape)}",
        f"warp bases       {layout.warp_bases(shape)}",
        f"lane fields      {layout.lane_fields(shape)}",
        f"warp fields      {layout.warp_fields(shape)}",
        f"owner({index})  {layout.owner(index, shape)}   # (warp, lane, register)",
        f"elements(warp={warp}, lane={lane})  {layout.elements(warp, lane, shape)}",
    ]
    return "\n".join(_packed(re.findall(r"[^,]+,? *", line), " " * 18) for line in lines)


def _buffers_text(kernel: BackendIR) -> str:
    fn = kernel.fn
    return "\n".join([str(b) for b in sorted(kernel.buffers, key=lambda b: (b.start, b.offset))] +
                     [f"shared_bytes = {fn.attrs['shared_bytes']}"])


def _matmul_args(stages: int, block: int):
    """matmul_kernel on 512 x 512 fp16 matrices, with `block` x `block` x 32 tiles."""
    f16 = _aligned(1, np.float16)
    return (f16, f16, f16, 512, 512, 512, 512, 1, 512, 1, 512, 1), dict(
        BLOCK_SIZE_M=block, BLOCK_SIZE_N=block, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="", num_stages=stages)


def backend_listings() -> dict[str, str]:
    from minitriton import launcher, layouts
    from minitriton.examples.tutorials import add_kernel, matmul_block_ptr_kernel, matmul_kernel, softmax_kernel
    from minitriton.frontend import generate
    from minitriton.specialize import arg_spec, specialize
    from minitriton.passes.coalesce import print_axis_info
    from minitriton.passes.simplify import simplify

    f32 = _aligned(1, np.float32)
    coalesce_examples = example("coalesce_examples")
    out = {}
    # 4. layouts
    blocked = layouts.default_blocked((16, 16), 4, size_per_thread=(1, 2))
    out["layout.blocked.bases"] = _layout_bases(blocked, (16, 16), (9, 5), 2, 10)
    out["softmax.layout"] = compiled(softmax_kernel, f32, f32, 784, 784, 301, 784, BLOCK_SIZE=1024,
                                     num_stages=2).asm["layout"]
    args, kwargs = _matmul_args(1, 64)
    listing = compiled(matmul_kernel, *args, **kwargs).asm["layout"]
    out["matmul.layout.dot"] = _with_aliases(listing, _lines(listing, " = load ", "convert_layout", " = dot ", "store "))
    # 5. coalescing
    specs = {name: arg_spec(specialize(name, value)) for name, value in
             [("x_ptr", f32), ("y_ptr", f32), ("output_ptr", f32), ("n_elements", 98_304)]}
    out["add.axis_info"] = print_axis_info(simplify(generate(add_kernel, specs, {"BLOCK_SIZE": 512})))
    cases = [("x, y and output 16-byte aligned, n_elements = 98304", (f32, f32, f32, 98_304)),
             ("y 4 bytes past a 16-byte boundary", (f32, _misaligned(1, np.float32, 4), f32, 98_304)),
             ("n_elements = 98437: the mask changes inside a run of 4", (f32, f32, f32, 98_437))]
    out["add.accesses"] = "\n".join(
        f"// {title}\n" + _lines(compiled(add_kernel, *a, BLOCK_SIZE=512).asm["ptx"], "ld.global", "st.global")
        for title, a in cases)
    i32 = _aligned(1, np.int32)
    out["gather_rows.accesses"] = "\n".join(
        f"// {kernel.__name__}\n" + _lines(compiled(kernel, f32, i32, f32, BLOCK=512).asm["ptx"], "ld.global", "st.global")
        for kernel in (coalesce_examples.gather_rows, coalesce_examples.gather_rows_hinted))
    out["scale_block.ttir"] = ttir(coalesce_examples.scale_block, f32, 96, 192, 256, BLOCK_M=16, BLOCK_N=64)
    out["scale_block.accesses"] = _lines(compiled(coalesce_examples.scale_block, f32, 96, 192, 256, BLOCK_M=16,
                                                  BLOCK_N=64).asm["ptx"], "ld.global", "st.global")
    args, kwargs = _matmul_args(3, 128)
    out["matmul.block_ptr.accesses"] = _access_counts({
        "pointer arithmetic": compiled(matmul_kernel, *args, **kwargs).asm["ptx"],
        "block pointers": compiled(matmul_block_ptr_kernel, *args,
                                   **{k: v for k, v in kwargs.items() if k != "ACTIVATION"}).asm["ptx"]})
    # 6. shared memory
    args, kwargs = _matmul_args(3, 128)
    out["matmul.buffers"] = _buffers_text(backend_ir(matmul_kernel, *args, **kwargs))
    args, kwargs = _matmul_args(1, 64)
    out["matmul.buffers.stages1"] = _buffers_text(backend_ir(matmul_kernel, *args, **kwargs))
    args, kwargs = _matmul_args(4, 128)
    out["matmul.out_of_resources"] = _out_of_resources(backend_ir(matmul_kernel, *args, **kwargs).fn, 48 * 1024)
    # 8. LLVM IR
    add = compiled(add_kernel, f32, f32, f32, 98_304, BLOCK_SIZE=512)
    out["add.llir"] = _narrow_llvm(add.asm["llir"])
    bessel = compiled(example("frontend_examples").bessel, f32, f32, 100, BLOCK=512)
    out["bessel.llir.calls"] = _lines(bessel.asm["llir"], "__nv_")
    out["add.llir.first_load"] = _narrow_llvm(_between(add.asm["llir"], "define ptx_kernel", "extractvalue"))
    softmax_llir = compiled(softmax_kernel, f32, f32, 784, 784, 301, 784, BLOCK_SIZE=1024, num_stages=2).asm["llir"]
    out["softmax.llir.reduce"] = _narrow_llvm(_between(softmax_llir, "llvm.nvvm.barrier0", "fsub float"))
    args, kwargs = _matmul_args(3, 128)
    matmul_ptx = compiled(matmul_kernel, *args, **kwargs).asm["ptx"]
    out["matmul.ptx.mma"] = "\n".join(_lines(matmul_ptx, "ldmatrix").splitlines()[:2] + ["..."] +
                                      _lines(matmul_ptx, "mma.sync").splitlines()[:2] + ["..."] +
                                      _lines(matmul_ptx, "cp.async").splitlines()[:2])
    # 9. PTX, the driver, the JIT's launch path, the cache
    out["add.ptx"] = add.asm["ptx"].expandtabs(8)
    out["add.launcher"] = launcher._binder(("ptr", "ptr", "ptr", "int32"))[0]
    out["add.cache_parts"] = _cache_key_parts(add_kernel, f32, f32, f32, 98_304, BLOCK_SIZE=512)
    return out


def _access_counts(ptx_by_title: dict[str, str]) -> str:
    """How many of each global-memory instruction (and cp.async copy) each PTX has, side by side."""
    counts = {title: {} for title in ptx_by_title}
    for title, ptx in ptx_by_title.items():
        for name in re.findall(r"\b((?:ld|st)\.global[\w.]*|cp\.async\.[\w.]+)", ptx):
            counts[title][name] = counts[title].get(name, 0) + 1
    names = sorted({name for each in counts.values() for name in each})
    width = max(map(len, names))
    lines = [" " * width + "".join(f"  {title:>20}" for title in ptx_by_title)]
    lines += [name.ljust(width) + "".join(f"  {counts[t].get(name, 0):>20}" for t in ptx_by_title) for name in names]
    return "\n".join(lines)


def _out_of_resources(fn: ir.Function, limit: int) -> str:
    """What `assign_shared` says when a kernel needs more shared memory than `limit`."""
    from minitriton.errors import OutOfResources
    from minitriton.passes.shared import assign_shared

    try:
        assign_shared(fn, limit=limit)
    except OutOfResources as error:
        return _narrow_message(f"OutOfResources: {error}")
    raise AssertionError(f"the kernel fits in {limit} bytes of shared memory")


def _cache_key_parts(kernel, *args, **kwargs) -> str:
    """The parts the CUDA backend hashes into the kernel's disk-cache key, seen by compiling a fresh
    copy of the kernel (so that its in-memory cache cannot answer first)."""
    import json

    from minitriton import cache

    seen = []
    make_key = cache.make_key
    cache.make_key = lambda **parts: seen.append(parts) or make_key(**parts)
    try:
        compiled(triton.jit(kernel.fn), *args, **kwargs)
    finally:
        cache.make_key = make_key
    parts = dict(seen[-1])
    # which ptxas and libdevice differ from machine to machine: the figure says what stands there
    parts["toolkit"] = {"libdevice": "<its path> <16 hex digits of its sha256>",
                        "ptxas": "<its path> <the last line of ptxas --version>"}
    return "\n".join(_packed(re.findall(r'(?:"[^"]*"|[^",])+,? *', f"{name}: {json.dumps(part)}"), "    ")
                     for name, part in sorted(parts.items()))


def backend_figures() -> dict[str, str]:
    from minitriton import layouts
    from minitriton.examples.tutorials import _layer_norm_fwd_fused, matmul_kernel, softmax_kernel

    blocked = layouts.default_blocked((16, 16), 4, size_per_thread=(1, 2))
    mma = layouts.MmaLayout((2, 2))
    f32 = _aligned(1, np.float32)
    out = {
        "layout.blocked.gv": layouts.draw(blocked, (16, 16)),
        "layout.slice.gv": layouts.draw(layouts.SliceLayout(1, blocked), (16,)),
        "layout.mma.gv": layouts.draw(mma, (32, 16), color_by="register"),
        "layout.dot_a.gv": layouts.draw(layouts.DotOperandLayout(0, mma, 2), (32, 16), color_by="register"),
        "shared.swizzle.gv": layouts.draw(layouts.mma_operand_swizzle(32, 16, 0), (16, 32)),
    }
    args, kwargs = _matmul_args(3, 128)
    out["shared.matmul.gv"] = shared_memory_graph(
        backend_ir(matmul_kernel, *args, **kwargs),
        "matmul_kernel, 128x128x32 fp16 tiles, num_stages=3: shared memory over the program")
    softmax = backend_ir(softmax_kernel, f32, f32, 784, 784, 301, 784, BLOCK_SIZE=1024, num_stages=2)
    out["barriers.softmax.gv"] = barrier_graph(softmax.fn, "softmax_kernel after insert_barriers")
    layer_norm = backend_ir(_layer_norm_fwd_fused, f32, f32, f32, f32, f32, f32, 304, 300, 1e-5, BLOCK_SIZE=128)
    out["barriers.layer_norm.gv"] = barrier_graph(layer_norm.fn, "_layer_norm_fwd_fused after insert_barriers")
    args, kwargs = _matmul_args(1, 64)
    out["barriers.matmul.gv"] = barrier_graph(backend_ir(matmul_kernel, *args, **kwargs).fn,
                                              "matmul_kernel, num_stages=1, after insert_barriers")
    return out


# ---------------------------------------------------------------------------------------------------
# Figures drawn as SVG from the compiler's decisions: the contiguity runs that become vector loads
# (chapter 5), the butterfly of a warp reduction (chapter 8), a launch's parameter buffer (chapter 9).
# Each is drawn for the book's column (COLUMN px wide, text of at least 10 px) with a legend.
# ---------------------------------------------------------------------------------------------------

COLUMN = 688.0  # px: the width of the book's text column at page size
RUN_COLORS = ("#8dd3c7", "#fdb462", "#bebada", "#80b1d3")
STEP_COLORS = ("#e41a1c", "#377eb8", "#4daf4a", "#984ea3", "#ff7f00")


def _svg(height: float, body: list[str]) -> str:
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{COLUMN:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {COLUMN:.0f} {height:.0f}" font-family="Helvetica, Arial, sans-serif" font-size="11">',
        '<defs><pattern id="masked" width="5" height="5" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="5" stroke="#525252" '
        'stroke-width="1.5"/></pattern></defs>',
        *body, "</svg>"]) + "\n"


def _text(x: float, y: float, text: str, size: float = 11, anchor: str = "start", weight: str = "") -> str:
    bold = ' font-weight="bold"' if weight else ""
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{bold}>{escaped}</text>'


def _rect(x: float, y: float, w: float, h: float, fill: str, stroke: str = "#737373", width: float = 0.6) -> str:
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="{width}"/>')


def _first_load(kernel, *args, **constexprs) -> tuple[ir.Op, object, object, list[str]]:
    """The first load of `kernel` after the coalescing pass, the axis facts of its pointers and of
    its mask, and the global loads of its PTX for TARGET."""
    from minitriton.frontend import generate
    from minitriton.passes.coalesce import AxisAnalysis, coalesce
    from minitriton.passes.simplify import simplify
    from minitriton.specialize import arg_spec, specialize

    bound = kernel.bind(args, constexprs)
    specs = {n: arg_spec(specialize(n, v)) for n, v in bound.items() if n not in kernel.constexpr_names}
    fn = simplify(generate(kernel, specs, {n: v for n, v in bound.items() if n in kernel.constexpr_names}))
    analysis = AxisAnalysis(fn)
    coalesce(fn, 4)
    load = next(op for op in fn.walk() if op.name == "load")
    ptx = compiled(kernel, *args, **constexprs).asm["ptx"]
    return load, analysis[load.operands[0]], analysis[load.operands[1]], _lines(ptx, "ld.global").split("\n")


def contiguity_figure() -> str:
    """The tile of `copy_tile`'s last program over a 20 x 48 (then 20 x 45) matrix: each element
    coloured by the vector access that loads it, as the coalescing pass decided from the axis facts."""
    copy_tile = example("coalesce_examples").copy_tile
    f32 = _aligned(1, np.float32)
    cases = [("rows 64 floats apart, N = 48: multiples of 16", 20, 48, 64),
             ("rows 45 floats apart, N = 45: no multiple of 16", 20, 45, 45)]
    block_m, block_n, cell, left = 16, 32, 14.0, 70.0
    body, y = [], 18.0
    body.append(_text(4, y, f"copy_tile, BLOCK_M={block_m}, BLOCK_N={block_n}, fp32, 4 warps: the tile of "
                            f"program (1, 1), rows {block_m}-{2 * block_m - 1}, columns {block_n}-{2 * block_n - 1}",
                      12, weight="bold"))
    y += 12
    for title, m, n, stride in cases:
        load, pointers, mask, ptx = _first_load(copy_tile, f32, f32, m, n, stride, BLOCK_M=block_m, BLOCK_N=block_n)
        vector, dim = load.attrs["vector"], load.attrs["contig_dim"]
        y += 18
        body.append(_text(4, y, title, 11, weight="bold"))
        facts = (f"pointers: contiguity {pointers.contiguity[dim]}, divisibility {pointers.divisibility[dim]} B; "
                 f"mask: constancy {mask.constancy[dim]}  ->  vector = {vector}: "
                 f"{ptx[0].split()[1] if ptx[0].split()[0].startswith('@') else ptx[0].split()[0]}")
        body.append(_text(4, y + 16, facts, 11))
        y += 26
        for r in range(block_m):
            row = block_m + r
            body.append(_text(left - 6, y + cell * 0.75, f"row {row}", 10, "end"))
            for c in range(block_n):
                col = block_n + c
                x = left + c * cell
                body.append(_rect(x, y, cell, cell, RUN_COLORS[(c // vector) % len(RUN_COLORS)]))
                if row >= m or col >= n:
                    body.append(_rect(x, y, cell, cell, "url(#masked)"))
            y += cell
        for c in range(0, block_n, 4):
            body.append(_text(left + c * cell + 1, y + 12, str(block_n + c), 10))
        y += 16
    y += 14
    for i, color in enumerate(RUN_COLORS[:2]):
        body.append(_rect(4 + i * 14, y - 10, 12, 12, color))
    body.append(_text(36, y, "a run of one colour: what one thread loads with one instruction", 11))
    body.append(_rect(380, y - 10, 12, 12, "url(#masked)"))
    body.append(_text(396, y, "masked off: row >= M or column >= N", 11))
    return _svg(y + 10, body)


def butterfly_figure() -> str:
    """Which lanes exchange partial results at each step of a warp reduction, for two reductions
    as the compiler lays them out: the butterfly masks are the layout's lane bits along the axis."""
    from minitriton.examples.attention import attention_fwd_kernel
    from minitriton.examples.tutorials import softmax_kernel

    f16, f32 = _aligned(1, np.float16), _aligned(1, np.float32)
    cases = [
        ("softmax_kernel: tl.max of a row of 1024 fp32, 4 warps",
         backend_ir(softmax_kernel, f32, f32, 784, 784, 301, 784, BLOCK_SIZE=1024, num_stages=2)),
        ("attention_fwd_kernel: tl.max of the 64 x 32 scores along axis 1, 4 warps",
         backend_ir(attention_fwd_kernel, f16, f16, f16, f16, f32, 0.125, 16384, 8192, 64, 1, 2, 128,
                    HEAD_DIM=64, BLOCK_M=64, BLOCK_N=32, CAUSAL=False)),
    ]
    left, pitch, gap = 70.0, 19.0, 30.0
    lane_x = lambda lane: left + lane * pitch
    body, y = [], 4.0
    for title, kernel in cases:
        reduce = next(op for op in kernel.fn.walk() if op.name == "reduce")
        source, axis = reduce.operands[0], reduce.attrs["axis"]
        masks = source.layout.lane_masks_along(axis, source.shape)
        warps = source.layout.warp_masks_along(axis, source.shape)
        y += 16
        body.append(_text(4, y, title, 12, weight="bold"))
        body.append(_text(4, y + 15, f"{source.layout}", 10))
        y += 38
        for lane in range(32):
            body.append(_text(lane_x(lane), y - 6, str(lane), 10, "middle"))
        for step, mask in enumerate(masks):
            top, bottom = y + step * gap, y + (step + 1) * gap
            color = STEP_COLORS[step % len(STEP_COLORS)]
            body.append(_text(4, (top + bottom) / 2 + 4, f"xor {mask}", 11))
            for lane in range(32):
                body.append(f'<line x1="{lane_x(lane):.1f}" y1="{top:.1f}" x2="{lane_x(lane):.1f}" '
                            f'y2="{bottom:.1f}" stroke="#cccccc" stroke-width="1"/>')
                body.append(f'<line x1="{lane_x(lane ^ mask):.1f}" y1="{top:.1f}" x2="{lane_x(lane):.1f}" '
                            f'y2="{bottom:.1f}" stroke="{color}" stroke-width="1.1"/>')
        for step in range(len(masks) + 1):
            for lane in range(32):
                body.append(f'<circle cx="{lane_x(lane):.1f}" cy="{y + step * gap:.1f}" r="2.6" fill="#4d4d4d"/>')
        y += len(masks) * gap + 18
        after = (f"then {1 << len(warps)} warps meet in shared memory" if warps
                 else "no other warp holds part of a row: no shared memory")
        body.append(_text(4, y, f"{len(masks)} steps: each group of {1 << len(masks)} lanes holds its result; "
                                f"{after}", 11))
        y += 8
    y += 20
    body.append(f'<line x1="4" y1="{y - 4}" x2="24" y2="{y - 4}" stroke="{STEP_COLORS[0]}" stroke-width="1.5"/>')
    body.append(_text(30, y, "the partial result a lane receives from lane ^ mask (shfl.sync.bfly)", 11))
    body.append(f'<line x1="420" y1="{y - 4}" x2="440" y2="{y - 4}" stroke="#cccccc" stroke-width="1.5"/>')
    body.append(_text(446, y, "its own, combined with it", 11))
    return _svg(y + 10, body)


def parameter_figure() -> str:
    """The parameter buffer `launcher.parameter_layout` lays out for the layer norm forward kernel,
    as specialized for two launches: each argument's offset, size and alignment, and the padding."""
    from minitriton import launcher
    from minitriton.examples.tutorials import _layer_norm_fwd_fused

    f32 = _aligned(1, np.float32)
    cases = [("N = 300: an int32", 300), ("N = 2**31: an int64, aligned to 8 bytes", 2**31)]
    left, scale = 16.0, 9.0  # px per byte
    body, y = [_text(4, 16, "_layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps): "
                            "the bytes cuLaunchKernel reads", 12, weight="bold")], 24.0
    for title, n in cases:
        metadata = compiled(_layer_norm_fwd_fused, f32, f32, f32, f32, f32, f32, 304, n, 1e-5,
                            BLOCK_SIZE=128).metadata
        kinds = ["ptr" if dtype.startswith("ptr") else dtype for dtype in metadata.signature]
        layout, offsets = launcher.parameter_layout(kinds)
        y += 22
        body.append(_text(4, y, f"{title}: {layout.size} bytes", 11, weight="bold"))
        y += 8
        end = 0
        for name, kind, offset in zip(metadata.runtime_args, metadata.signature, offsets):
            size = 8 if kind.startswith("ptr") else ir.dtype_named(kind).itemsize
            if offset > end:
                body.append(_rect(left + end * scale, y, (offset - end) * scale, 34, "url(#masked)"))
            body.append(_rect(left + offset * scale, y, size * scale, 34,
                              "#b3cde3" if kind.startswith("ptr") else "#ccebc5"))
            body.append(_text(left + (offset + size / 2) * scale, y + 14, name, 10, "middle"))
            body.append(_text(left + (offset + size / 2) * scale, y + 28,
                              "ptr" if kind.startswith("ptr") else kind, 10, "middle"))
            body.append(_text(left + offset * scale, y + 48, str(offset), 10, "middle"))
            end = offset + size
        body.append(_text(left + end * scale, y + 48, str(end), 10, "middle"))
        y += 52
    y += 22
    body.append(_rect(4, y - 10, 12, 12, "#b3cde3"))
    body.append(_text(20, y, "a pointer: 8 bytes at a multiple of 8", 11))
    body.append(_rect(236, y - 10, 12, 12, "#ccebc5"))
    body.append(_text(252, y, "a scalar at a multiple of its size", 11))
    body.append(_rect(458, y - 10, 12, 12, "url(#masked)"))
    body.append(_text(474, y, "padding; numbers: byte offsets", 11))
    return _svg(y + 10, body)


def language_index() -> str:
    """Every public name of `triton.language` in minitriton, as a markdown table by the module that
    defines it (in `language/`, or `dtypes.py`): the list of what the language has, which cannot
    fall behind the code."""
    import types

    import minitriton.language as tl
    from minitriton.dtypes import DType

    groups: dict[str, list[str]] = {}
    for name in sorted(vars(tl), key=str.lower):
        value = getattr(tl, name)
        if name.startswith("_") or isinstance(value, types.ModuleType):
            continue
        if isinstance(value, DType):
            where = "element types (`dtypes.py`)"
        else:
            module = getattr(value, "__module__", None) or type(value).__module__
            if module in ("__future__", "typing", "minitriton.language.semantic"):
                continue  # what the package's own modules import, not the language
            module = "minitriton.language.core" if module == "builtins" else module  # tl.tuple, the numel limit
            where = f"`{module.rsplit('.', 1)[-1]}.py`"  # language/<name>.py, or dtypes.py
        groups.setdefault(where, []).append(f"`{name}`")
    modules = sorted(f"`tl.{n}`" for n, v in vars(tl).items() if isinstance(v, types.ModuleType)
                     and v.__name__.startswith("minitriton.language.") and not n.startswith("_"))
    rows = ["| defined in | names |", "| --- | --- |"]
    rows += [f"| {where} | {', '.join(names)} |" for where, names in sorted(groups.items())]
    rows.append(f"| submodules | {', '.join(modules)} |")
    return "\n".join(rows) + "\n"


def access_pictures() -> dict[str, str]:
    """The access pictures of chapters 1 and 5, recorded by the interpreter (`accesses.py`)."""
    pictures = example("access_picture")
    with interpreting():
        add, block = pictures.add_accesses(), pictures.scale_block_accesses()
    return {"access.add.svg": add.svg(), "access.add.txt": add.text(["x_ptr"]),
            "access.scale_block.svg": block.svg(kinds=["load"])}


def drawn_figures() -> dict[str, str]:
    """The SVG figures drawn here from the compiler's decisions (no Graphviz)."""
    return {"contiguity.svg": contiguity_figure(), "butterfly.svg": butterfly_figure(),
            "params.svg": parameter_figure()}


def sources() -> dict[str, str]:
    """Every generated text file of chapters/figures/, by file name: Graphviz sources and listings."""
    backend = {f"{name}.txt": text.rstrip("\n") + "\n" for name, text in backend_listings().items()}
    return {**figures(), **backend_figures(), **listings(), **backend, **access_pictures(), **drawn_figures(),
            "language_index.md": language_index()}


def svg_stamp(source: str) -> str:
    """The comment an SVG carries to say which source it was drawn from."""
    return f"<!-- drawn by scripts/figures.py from a source with sha256 {hashlib.sha256(source.encode()).hexdigest()} -->"


def render(source: str) -> str:
    svg = graphviz.Source(source).pipe(format="svg", encoding="utf-8")
    declaration, rest = svg.split("\n", 1)
    return f"{declaration}\n{svg_stamp(source)}\n{rest}"


def main(names: list[str]) -> None:
    if names:  # print the named listings: the command a chapter gives under a listing made here
        made = sources()
        unknown = [name for name in names if f"{name}.txt" not in made]
        if unknown:
            listed = sorted(n[:-4] for n in made if n.endswith(".txt"))
            sys.exit(f"no listing named {', '.join(unknown)}; the listings: {', '.join(listed)}")
        print("\n".join(made[f"{name}.txt"] for name in names), end="")
        return
    FIGURES.mkdir(parents=True, exist_ok=True)
    for name, text in sources().items():
        (FIGURES / name).write_text(text)
        if name.endswith(".gv"):
            (FIGURES / name).with_suffix(".svg").write_text(render(text))
        print(f"wrote chapters/figures/{name}")


if __name__ == "__main__":
    main(sys.argv[1:])
