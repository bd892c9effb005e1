"""The printer: the text a person reads between any two stages.

Values are named %0, %1, ... in order of definition (kernel arguments by their own names); each line
shows the op, its operands, its attributes and its result type with its layout once it has one. A
layout is written once, above the function, as an alias (`#blocked0 = #blocked<{...}>`, as Triton's
MLIR does) and named by its alias on every line, so a line stays short enough to read. A
function's own attributes (what the passes decided for the whole kernel) follow its header as a
comment. Chapter: 03-tile-ir.
"""
from __future__ import annotations

import itertools

from ..dtypes import DType
from .core import Block, Function, Op, Value


def _attr_text(value) -> str:
    if isinstance(value, DType):
        return value.short
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_attr_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_attr_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, float):
        return repr(value)
    return str(value)


# --8<-- [start:printer]
class Printer:
    """Names values %0, %1, ... in order of definition (kernel arguments keep their own names), and
    layouts #blocked0, #blocked1, #mma0, ... in order of first use."""

    WIDTH = 100  # a header longer than this puts one argument on a line

    def __init__(self, show_locs: bool = False, show_layouts: bool = True):
        self.names: dict[int, str] = {}
        self.counter = itertools.count()
        self.show_locs, self.show_layouts = show_locs, show_layouts
        self.lines: list[str] = []
        self.aliases: dict[object, tuple[str, str]] = {}  # layout -> (alias, its definition)
        self.kinds: dict[str, int] = {}  # the last number given to each kind of layout

    def name(self, v: Value) -> str:
        key = id(v)
        if key not in self.names:
            self.names[key] = f"%{v.name}" if v.name else f"%{next(self.counter)}"
        return self.names[key]

    def layout(self, layout) -> str:
        """The alias of `layout`; its definition names a parent layout by the parent's alias."""
        if layout not in self.aliases:
            text = str(layout)
            parent = getattr(layout, "parent", None)
            if parent is not None:
                text = text.replace(str(parent), self.layout(parent))
            kind = text[1:text.index("<")]  # blocked, slice, mma, dot_op, ...
            self.kinds[kind] = self.kinds.get(kind, -1) + 1
            self.aliases[layout] = (f"#{kind}{self.kinds[kind]}", text)
        return self.aliases[layout][0]

    def typed(self, v: Value) -> str:
        text = str(v.type)
        if self.show_layouts and v.layout is not None:
            text += f" {self.layout(v.layout)}"
        return text

    def function(self, fn: Function) -> str:
        args = []
        for v, attrs in itertools.zip_longest(fn.args, fn.arg_attrs or [], fillvalue={}):
            extra = " {" + ", ".join(f"{k}={_attr_text(a)}" for k, a in attrs.items()) + "}" \
                if attrs else ""
            args.append(f"{self.name(v)}: {self.typed(v)}{extra}")
        header = f"func @{fn.name}({', '.join(args)}) {{"
        if len(header) > self.WIDTH:
            header = f"func @{fn.name}(\n    " + ",\n    ".join(args) + "\n) {"
        self.lines.append(header)
        if fn.attrs:  # what the passes decided for the whole kernel
            self.lines.append("  // " + ", ".join(f"{k}={_attr_text(v)}" for k, v in fn.attrs.items()))
        self.block(fn.body, 1)
        self.lines.append("}")
        self.lines[:0] = [f"{alias} = {text}" for alias, text in self.aliases.values()]
        return "\n".join(self.lines)

    def block(self, block: Block, depth: int) -> None:
        for op in block.ops:
            self.op(op, depth)

    def op(self, op: Op, depth: int) -> None:
        pad = "  " * depth
        results = ", ".join(self.name(r) for r in op.results)
        lhs = f"{results} = " if results else ""
        operands = ", ".join(self.name(v) for v in op.operands)
        attrs = {k: v for k, v in op.attrs.items() if k != "dtype" or op.name in ("cast", "bitcast")}
        attr_text = " {" + ", ".join(f"{k}={_attr_text(v)}" for k, v in attrs.items()) + "}" \
            if attrs else ""
        types = ", ".join(self.typed(r) for r in op.results)
        line = f"{pad}{lhs}{op.name}" + (f" {operands}" if operands else "") + attr_text
        if op.name == "constant":
            line = f"{pad}{lhs}constant {_attr_text(op.attrs['value'])}"
        if types:
            line += f" : {types}"
        if self.show_locs and op.loc is not None:
            line += f"  // line {op.loc.line}"
        self.lines.append(line)
        for i, region in enumerate(op.regions):
            head = ", ".join(f"{self.name(a)}: {self.typed(a)}" for a in region.args)
            label = {"for": ["body"], "if": ["then", "else"], "while": ["before", "after"]}
            self.lines.append(f"{pad}  ^{label.get(op.name, ['region'] * 4)[i]}({head}):")
            self.block(region, depth + 2)
# --8<-- [end:printer]


def print_function(fn: Function, show_locs: bool = False, show_layouts: bool = True) -> str:
    return Printer(show_locs, show_layouts).function(fn)
