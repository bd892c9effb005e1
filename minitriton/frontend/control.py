"""Control flow in the frontend: `if`, `for` and `while` on runtime values become region ops.

A branch on a compile-time value keeps only the branch taken. On a runtime value, each branch is
generated into a block of its own, starting from the variables as they were; the names a branch
changes become the `if` op's results, yielded by each block. A loop carries the variables its body
assigns that existed before it: they are the block arguments of its body and the values it
yields, and each must keep its type from one iteration to the next. A name that only one branch
(or the body of a loop) defines cannot be read after it. A variable holding an aggregate (a tuple,
a block pointer) is taken apart into its leaves (`language/aggregate.py`): each leaf that differs
is a value of the region, and the variable is put back together from the region's values after
it. Chapter: 02-frontend.
"""
from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

from .. import ir
from ..dtypes import FACTS
from ..language import core as tl
from ..language import semantic
from ..language.aggregate import Structure, flatten, rebuild, same_constant


# An unrolled loop (tl.static_range) stops here: each operation costs the compiler about a
# millisecond down to the cubin, so a kernel this large would take minutes (Triton has no limit).
MAX_UNROLLED_OPS = 1 << 15


class _OnlyInOneBranch:
    """Bound to a name that one branch (or a loop body) defined and the code after it cannot see."""

    def __init__(self, name: str, where: str):
        self.name, self.where = name, where



class ControlFlow:
    """The `CodeGenerator`'s methods for `if`, `for` and `while` (a mixin: see generator.py)."""

    # -- if / else ----------------------------------------------------------------------------------
    # --8<-- [start:if]
    def visit_If(self, node: ast.If):
        cond = self.condition(node.test)
        if not isinstance(cond, tl.tensor):  # a constexpr condition: only the taken branch exists
            self.run_body(node.body if cond else node.orelse)
            return
        before = dict(self.scope)
        then_block, then_scope = self.branch(node.body, before)
        else_block, else_scope = self.branch(node.orelse, before)
        names = [n for n in then_scope.keys() | else_scope.keys()
                 if then_scope.get(n, before.get(n)) is not before.get(n)
                 or else_scope.get(n, before.get(n)) is not before.get(n)]
        merged, joined, yielded = {}, [], []  # yielded: (name, path, then leaf, else leaf)
        for n in sorted(names):
            if n == "$ret":  # a branch that falls off the end returns None
                then_scope.setdefault(n, None)
                else_scope.setdefault(n, None)
            a, b = then_scope.get(n), else_scope.get(n)
            if n not in then_scope or n not in else_scope or isinstance(a, _OnlyInOneBranch) \
                    or isinstance(b, _OnlyInOneBranch):
                merged[n] = _OnlyInOneBranch(n, f"one branch of the if at line {self.loc(node).line}")
                continue
            (structure, then_leaves), (other, else_leaves) = flatten(a), flatten(b)
            if structure != other:
                raise self.error(self.assigned_at.get(n, node), f"{_shown(n)} is {structure} in the then "
                                 f"branch but {other} in the else branch", "give it the same kind of value "
                                 "in both branches")
            leaves = []  # a leaf both branches share is kept; the others become the if's results
            for path, x, y in zip(structure.paths(n), then_leaves, else_leaves):
                if _same_leaf(x, y):
                    leaves.append(x)
                else:
                    leaves.append(_Result(len(yielded)))
                    yielded.append((n, path, x, y))
            joined.append((n, structure, leaves))
        then_values = self.yield_values(then_block, [x for _, _, x, _ in yielded])
        else_values = self.yield_values(else_block, [y for _, _, _, y in yielded])
        for (n, path, _, _), a, b in zip(yielded, then_values, else_values):
            if a.type != b.type:
                raise self.error(self.assigned_at.get(n, node),
                                 f"`{path}` is {a.type} in the then branch but "
                                 f"{b.type} in the else branch", "give it the same type and shape in both "
                                 "branches")
        op = self.builder.region_op("if", [cond.handle], [v.type for v in then_values],
                                    [then_block, else_block])
        self.scope = {**before, **merged}
        for n, structure, leaves in joined:
            self.scope[n] = rebuild(structure,
                                    [tl.tensor(op.results[x.index]) if isinstance(x, _Result) else x
                                                for x in leaves])
    # --8<-- [end:if]

    def branch(self, body: list[ast.stmt], before: dict) -> tuple[ir.Block, dict]:
        """Generate `body` into a new block, starting from the variables in `before`."""
        block = ir.Block()
        saved_block, self.builder.block = self.builder.block, block
        self.scope = dict(before)
        try:
            self.run_body(body)
        finally:
            self.builder.block = saved_block
        return block, self.scope

    def yield_values(self, block: ir.Block, leaves: list) -> list[ir.Value]:
        """Append a yield of `leaves` (numbers made into IR constants) to the end of `block`."""
        saved_block, self.builder.block = self.builder.block, block
        try:
            handles = [tl._value(v) for v in leaves]
            self.builder.create("yield", handles)
            return handles
        finally:
            self.builder.block = saved_block

    def condition(self, test: ast.expr):
        cond = tl._unwrap(self.visit(test))
        if isinstance(cond, tl.tensor):
            if cond.type.is_tile and cond.type.numel == 1:  # one element: its value, as Triton reads it
                cond = tl.tensor(semantic.unsplat(cond.handle))
            if cond.type.is_tile:
                raise self.error(test, f"the condition is a tile ({cond.type}); if and while need a "
                                 "scalar", "use tl.where(cond, a, b) to choose per element")
            if cond.dtype != ir.int1:
                cond = tl.tensor(semantic.compare("ne", cond.handle, semantic.Weak(0)))
        return cond

    # -- loops --------------------------------------------------------------------------------------
    # --8<-- [start:for]
    def visit_For(self, node: ast.For):
        if node.orelse:
            raise self.error(node, "for ... else is not supported inside a @jit function")
        iterator = self.visit(node.iter)
        if isinstance(iterator, (tl.static_range, tuple, list)):
            for done, value in enumerate(iterator):  # unrolled at compile time: the loop variable is a constant
                if self.builder.created > MAX_UNROLLED_OPS:
                    raise self.error(node, f"this unrolled loop has grown the kernel past {MAX_UNROLLED_OPS} "
                                           f"operations after {done} of its {len(iterator)} iterations",
                                     "a loop this long belongs in the IR: use tl.range(...) or "
                                     "range(...), which are not unrolled (tl.static_range is for a "
                                     "few iterations whose index must be a constant)")
                self.assign(node.target, value)
                self.run_loop_body(node.body)
            return
        if isinstance(iterator, builtins.range):
            iterator = tl.range(iterator.start, iterator.stop, iterator.step)
        if not isinstance(iterator, tl.range):
            raise self.error(node.iter, f"cannot loop over {iterator!r}",
                             "loop over range(...), tl.range(...) or tl.static_range(...)")
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the loop variable must be a single name")
        bounds = [tl._value(x) for x in (*iterator.args, iterator.step)]
        index_type = bounds[0].dtype
        for b in bounds[1:]:
            index_type = semantic.integer_promote(index_type, b.dtype)
        if any(not b.dtype.is_int() or b.type.is_tile for b in bounds):
            types = ", ".join(str(b.type) for b in bounds)
            raise self.error(node.iter, f"For loop bounds and step must all be integer scalars, are ({types})",
                             "count with integers: range(0, n, 1); a float or a tile has no place here")
        if isinstance(tl._unwrap(iterator.step), int) and tl._unwrap(iterator.step) == 0:
            raise self.error(node.iter, "range step must not be zero",
                             "a loop of step 0 would never end: count up (step > 0) or down (step < 0)")
        bounds = [semantic.cast(b, index_type) for b in bounds]
        carried = self.carried(node.body, exclude={node.target.id})
        inits = [v for c in carried for v in c.inits]
        body = ir.Block([ir.Value(ir.scalar(index_type))] + [ir.Value(v.type) for v in inits])
        before = dict(self.scope)
        self.scope.update(_put_together(carried, body.args[1:]))
        self.scope[node.target.id] = tl.tensor(body.args[0])
        _, after = self.branch_loop(node.body, body)
        self.close_loop(body, after, carried, node)
        op = self.builder.region_op("for", bounds + inits, [v.type for v in inits], [body],
                                    {"num_stages": iterator.num_stages} if iterator.num_stages else {})
        self.scope = self.after_loop(before, after, carried, op.results, node)
    # --8<-- [end:for]

    def run_loop_body(self, body):
        self.loop_depth += 1
        try:
            self.run_body(body)
        finally:
            self.loop_depth -= 1

    def branch_loop(self, body: list[ast.stmt], block: ir.Block):
        saved_block, self.builder.block = self.builder.block, block
        try:
            self.run_loop_body(body)
        finally:
            self.builder.block = saved_block
        return block, self.scope

    def carried(self, body: list[ast.stmt], exclude=frozenset()) -> list[_Carried]:
        """Variables that exist before a loop and are assigned in its body: the loop carries their
        leaves."""
        carried = []
        for n in _assigned_names(body):
            if n in self.scope and n not in exclude and not isinstance(self.scope[n], _OnlyInOneBranch):
                structure, leaves = flatten(self.scope[n])
                carried.append(_Carried(n, structure, [tl._value(x) for x in leaves]))
        return carried

    def close_loop(self, block: ir.Block, after: dict, carried: list[_Carried], node) -> None:
        """End the body with a yield of each carried variable's leaves, which must keep their types."""
        leaves = []
        for c in carried:
            value = after[c.name]
            if isinstance(value, _OnlyInOneBranch):
                raise self.error(node, f"`{c.name}` is defined only in {value.where}",
                                 "define it before the if so it exists on every path")
            structure, these = flatten(value)
            if structure != c.structure:
                raise self.error(self.assigned_at.get(c.name, node), f"loop-carried variable `{c.name}` is "
                                 f"{c.structure} before the loop but {structure} after an iteration",
                                 "only tensors and numbers can change from one iteration to the next")
            leaves += these
        values = self.yield_values(block, leaves)
        paths = [(c.name, path) for c in carried for path in c.structure.paths(c.name)]
        for (n, path), init, v in zip(paths, [v for c in carried for v in c.inits], values):
            if init.type != v.type:
                raise self.error(self.assigned_at.get(n, node), f"loop-carried variable `{path}` is {init.type} "
                                 f"before the loop but {v.type} after an iteration",
                                 f"give `{path}` its final type before the loop, e.g. "
                                 f"tl.zeros({list(v.shape)}, dtype=tl.{_dtype_name(v.dtype)})"
                                 if v.type.is_tile else
                                 f"give `{path}` its final type before the loop (e.g. 0.0 for a float)")

    def after_loop(self, before, after, carried: list[_Carried], results, node) -> dict:
        scope = dict(before)
        for n in after:
            if n not in before and n != "$ret":
                scope[n] = _OnlyInOneBranch(n, f"the body of the loop at line {self.loc(node).line}")
        scope.update(_put_together(carried, results))
        return scope

    # --8<-- [start:while]
    def visit_While(self, node: ast.While):
        if node.orelse:
            raise self.error(node, "while ... else is not supported inside a @jit function")
        carried = self.carried(node.body)
        inits = [v for c in carried for v in c.inits]
        before_scope = dict(self.scope)
        cond_block = ir.Block([ir.Value(v.type) for v in inits])
        saved_block, self.builder.block = self.builder.block, cond_block
        self.scope.update(_put_together(carried, cond_block.args))
        try:
            cond = self.condition(node.test)
            if not isinstance(cond, tl.tensor):
                cond = tl.tensor(semantic.constant(bool(cond), ir.int1))
            self.builder.create("condition", [cond.handle] + list(cond_block.args))
        finally:
            self.builder.block = saved_block
        body = ir.Block([ir.Value(v.type) for v in inits])
        self.scope = dict(before_scope)
        self.scope.update(_put_together(carried, body.args))
        _, after = self.branch_loop(node.body, body)
        self.close_loop(body, after, carried, node)
        op = self.builder.region_op("while", inits, [v.type for v in inits], [cond_block, body])
        self.scope = self.after_loop(before_scope, after, carried, op.results, node)
    # --8<-- [end:while]


@dataclass
class _Carried:
    """A variable a loop carries: its structure, and its leaves' values before the loop."""

    name: str
    structure: Structure
    inits: list[ir.Value]


def _put_together(carried: list[_Carried], values) -> dict:
    """Each carried variable rebuilt from its share of `values` (a block's arguments, a loop's results)."""
    scope, start = {}, 0
    for c in carried:
        scope[c.name] = rebuild(c.structure, [tl.tensor(v) for v in values[start:start + len(c.inits)]])
        start += len(c.inits)
    return scope


class _Result:
    """Where a rebuilt variable takes the `index`-th result of an if op."""

    def __init__(self, index: int):
        self.index = index


def _same_leaf(a, b) -> bool:
    """Whether two leaves are one value, which a region need not carry: one IR value, or one constant."""
    if isinstance(a, tl.tensor) or isinstance(b, tl.tensor):
        return isinstance(a, tl.tensor) and isinstance(b, tl.tensor) and a.handle is b.handle
    return same_constant(a, b)


def _shown(name: str) -> str:
    return "the value returned" if name == "$ret" else f"`{name}`"


def _dtype_name(dtype: ir.DType) -> str:
    """The name `tl` gives `dtype` (tl.float16), for a hint the user can paste."""
    return FACTS[dtype.name].language


def _assigned_names(stmts: list[ast.stmt]) -> list[str]:
    """Names a list of statements assigns, in order of first assignment (nested blocks included)."""
    names: list[str] = []

    def add_target(t):
        if isinstance(t, ast.Name):
            if t.id not in names:
                names.append(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                add_target(e)

    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    add_target(t)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                add_target(node.target)
            elif isinstance(node, ast.For):
                add_target(node.target)
    return names


def _contains_return(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(node))


def _always_returns(stmts: list[ast.stmt]) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    return False
