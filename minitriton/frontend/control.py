"""Control flow in the frontend: `if`, `for` and `while` on runtime values become region ops.

A branch on a compile-time value keeps only the branch taken. On a runtime value, each branch is
generated into a block of its own, starting from the variables as they were; the names a branch
changes become the `if` op's results, yielded by each block. A loop carries the variables its body
assigns that existed before it: they are the block arguments of its body and the values it
yields, and each must keep its type from one iteration to the next. A name that only one branch
(or the body of a loop) defines cannot be read after it. Chapter: 02-frontend.
"""
from __future__ import annotations

import ast
import builtins

from .. import ir
from ..dtypes import FACTS
from ..errors import CompilationError
from ..language import core as tl
from ..language import semantic


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
        merged, yielded = {}, []
        for n in sorted(names):
            if n == "$ret":  # a branch that falls off the end returns None
                then_scope.setdefault(n, None)
                else_scope.setdefault(n, None)
            if n not in then_scope or n not in else_scope:
                merged[n] = _OnlyInOneBranch(n, f"one branch of the if at line {self.loc(node).line}")
                continue
            a, b = then_scope[n], else_scope[n]
            if not isinstance(a, tl.tensor) and not isinstance(b, tl.tensor) and _same_constant(a, b):
                merged[n] = a
                continue
            yielded.append(n)
        then_values = self.yield_values(then_block, [then_scope[n] for n in yielded], yielded, node)
        else_values = self.yield_values(else_block, [else_scope[n] for n in yielded], yielded, node)
        for n, a, b in zip(yielded, then_values, else_values):
            if a.type != b.type:
                raise self.error(self.assigned_at.get(n, node), f"`{n}` is {a.type} in the then branch but "
                                 f"{b.type} in the else branch", "give it the same type and shape in both "
                                 "branches")
        op = self.builder.region_op("if", [cond.handle], [v.type for v in then_values],
                                    [then_block, else_block])
        self.scope = {**before, **merged}
        self.scope.update({n: tl.tensor(result) for n, result in zip(yielded, op.results)})
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

    def yield_values(self, block: ir.Block, values: list, names: list[str], node) -> list[ir.Value]:
        """Append a yield of `values` (constants made into IR values) to the end of `block`."""
        saved_block, self.builder.block = self.builder.block, block
        try:
            handles = []
            for n, v in zip(names, values):
                if isinstance(v, _OnlyInOneBranch):
                    raise self.error(node, f"`{n}` is defined only in {v.where}")
                if v is None or not isinstance(v, (tl.tensor, bool, int, float)):
                    raise self.error(node, f"`{n}` holds {v!r}, which cannot change at run time",
                                     "only tensors and numbers can be assigned under a runtime "
                                     "condition or in a loop")
                handles.append(tl._value(v))
            self.builder.create("yield", handles)
            return handles
        finally:
            self.builder.block = saved_block

    def condition(self, test: ast.expr):
        cond = tl._unwrap(self.visit(test))
        if isinstance(cond, tl.tensor):
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
            for value in iterator:  # unrolled at compile time: the loop variable is a constant
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
            raise self.error(node.iter, "range bounds must be integer scalars")
        if isinstance(tl._unwrap(iterator.step), int) and tl._unwrap(iterator.step) == 0:
            raise self.error(node.iter, "range step must not be zero")
        bounds = [semantic.cast(b, index_type) for b in bounds]
        carried = self.carried_names(node.body, exclude={node.target.id})
        inits = [tl._value(self.scope[n]) for n in carried]
        body = ir.Block([ir.Value(ir.scalar(index_type))] + [ir.Value(v.type) for v in inits])
        before = dict(self.scope)
        self.scope.update({n: tl.tensor(a) for n, a in zip(carried, body.args[1:])})
        self.scope[node.target.id] = tl.tensor(body.args[0])
        _, after = self.branch_loop(node.body, body)
        self.close_loop(body, after, carried, inits, node)
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

    def carried_names(self, body: list[ast.stmt], exclude=frozenset()) -> list[str]:
        """Variables that exist before a loop and are assigned in its body: the loop carries them."""
        names = [n for n in _assigned_names(body) if n in self.scope and n not in exclude
                 and not isinstance(self.scope[n], _OnlyInOneBranch)]
        for n in names:
            v = tl._unwrap(self.scope[n])
            if not isinstance(v, (tl.tensor, bool, int, float)):
                raise CompilationError(self.builder.loc, f"`{n}` holds {v!r} and is reassigned in a loop",
                                       "only tensors and numbers can change from one iteration to the next")
        return names

    def close_loop(self, block: ir.Block, after: dict, carried, inits, node) -> list[ir.Value]:
        values = self.yield_values(block, [after[n] for n in carried], carried, node)
        for n, init, v in zip(carried, inits, values):
            if init.type != v.type:
                raise self.error(self.assigned_at.get(n, node), f"loop-carried variable `{n}` is {init.type} "
                                 f"before the loop but {v.type} after an iteration",
                                 f"give `{n}` its final type before the loop, e.g. "
                                 f"tl.zeros({list(v.shape)}, dtype=tl.{_dtype_name(v.dtype)})"
                                 if v.type.is_tile else
                                 f"give `{n}` its final type before the loop (e.g. 0.0 for a float)")
        return values

    def after_loop(self, before, after, carried, results, node) -> dict:
        scope = dict(before)
        for n in after:
            if n not in before and n != "$ret":
                scope[n] = _OnlyInOneBranch(n, f"the body of the loop at line {self.loc(node).line}")
        scope.update({n: tl.tensor(r) for n, r in zip(carried, results)})
        return scope

    # --8<-- [start:while]
    def visit_While(self, node: ast.While):
        if node.orelse:
            raise self.error(node, "while ... else is not supported inside a @jit function")
        carried = self.carried_names(node.body)
        inits = [tl._value(self.scope[n]) for n in carried]
        before_scope = dict(self.scope)
        cond_block = ir.Block([ir.Value(v.type) for v in inits])
        saved_block, self.builder.block = self.builder.block, cond_block
        self.scope.update({n: tl.tensor(a) for n, a in zip(carried, cond_block.args)})
        try:
            cond = self.condition(node.test)
            if not isinstance(cond, tl.tensor):
                cond = tl.tensor(semantic.constant(bool(cond), ir.int1))
            self.builder.create("condition", [cond.handle] + list(cond_block.args))
        finally:
            self.builder.block = saved_block
        body = ir.Block([ir.Value(v.type) for v in inits])
        self.scope = dict(before_scope)
        self.scope.update({n: tl.tensor(a) for n, a in zip(carried, body.args)})
        _, after = self.branch_loop(node.body, body)
        self.close_loop(body, after, carried, inits, node)
        op = self.builder.region_op("while", inits, [v.type for v in inits], [cond_block, body])
        self.scope = self.after_loop(before_scope, after, carried, op.results, node)
    # --8<-- [end:while]


def _same_constant(a, b) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return a is b


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
