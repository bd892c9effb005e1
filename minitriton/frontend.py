"""AST capture: a `@jit` function's Python source -> tile IR.

`generate` parses the kernel's source with `ast` and walks it once, evaluating every expression.
Compile-time values (constexpr arguments, literals, dtypes, anything computed only from them) stay
plain Python values and fold away; values known only when the kernel runs are `tl.tensor`s whose
operations append IR through `language.semantic`. `if` and `while` on runtime values, and `for` over
`range`, become region ops whose carried values are the variables the body assigns. Calls to other
`@jit` functions are inlined. Every mistake is a `CompilationError` pointing at the kernel's line.
Chapter: 02-frontend.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import linecache
import operator
import textwrap
from dataclasses import dataclass
from typing import Any

from . import ir
from .errors import CompilationError, Loc
from .ir import DType
from .language import core as tl
from .language import semantic
from .language.semantic import SemanticError


# --8<-- [start:argspec]
@dataclass(frozen=True)
class ArgSpec:
    """What a launch tells the compiler about one runtime argument (Triton's specialization)."""

    dtype: DType  # pointer_type(fp32), int32, int64, fp32, int1, ...
    divisible_by_16: bool = False  # pointers: address % 16 == 0; integers: value % 16 == 0
    equals_one: bool = False  # integers equal to 1 become the constant 1 (strides of contiguous dims)

    def __str__(self) -> str:
        flags = "".join((" d16" if self.divisible_by_16 else "", " =1" if self.equals_one else ""))
        return f"{self.dtype.short}{flags}"
# --8<-- [end:argspec]


@dataclass
class ParsedFunction:
    """A function's AST, with what is needed to point errors at its file and lines."""

    tree: ast.FunctionDef
    file: str
    first_line: int
    col_offset: int
    globals: dict[str, Any]
    name: str
    source: str


# --8<-- [start:parse]
def parse(fn) -> ParsedFunction:
    """Read a Python function's source and parse it (the decorators are dropped)."""
    for read in (_source_lines, inspect.getsourcelines):
        try:
            lines, first_line = read(fn)
        except (OSError, TypeError) as e:
            raise CompilationError(None, f"cannot read the source of {fn!r}: {e}",
                                   "@jit functions must be defined in a file, not typed at a prompt") from e
        source = "".join(lines)
        dedented = textwrap.dedent(source)
        try:
            tree = ast.parse(dedented)
        except SyntaxError:
            continue  # the lines the code object spans are not the whole definition: ask inspect
        if len(tree.body) == 1 and isinstance(tree.body[0], ast.FunctionDef):
            break
    indent = len(source.splitlines()[0]) - len(dedented.splitlines()[0])
    fdef = tree.body[0]
    assert isinstance(fdef, ast.FunctionDef), "a @jit object wraps a function definition"
    scope = dict(fn.__globals__)
    if fn.__closure__:
        scope.update({name: cell.cell_contents for name, cell in
                      zip(fn.__code__.co_freevars, fn.__closure__)})
    return ParsedFunction(fdef, inspect.getsourcefile(fn) or "<unknown>", first_line, indent, scope,
                          fn.__name__, source)
# --8<-- [end:parse]


def _source_lines(fn) -> tuple[list[str], int]:
    """The lines of `fn`'s definition, from its first decorator to the last line any of its
    instructions came from: what `inspect.getsourcelines` returns, without tokenizing the file
    (which costs a new process some 20 ms, a fair part of loading a kernel from the disk cache)."""
    code = fn.__code__
    lines = linecache.getlines(code.co_filename, fn.__globals__)
    if not lines:
        raise OSError("could not get source code")
    last, pending = code.co_firstlineno, [code]
    while pending:
        c = pending.pop()
        last = max([last] + [end for _, end, _, _ in c.co_positions() if end is not None])
        pending += [k for k in c.co_consts if inspect.iscode(k)]
    return lines[code.co_firstlineno - 1:last], code.co_firstlineno


class _OnlyInOneBranch:
    """Bound to a name that one branch (or a loop body) defined and the code after it cannot see."""

    def __init__(self, name: str, where: str):
        self.name, self.where = name, where


# Python builtins a kernel may use; everything else from `builtins` is refused with a clear error.
_PY_BUILTINS = {"range", "min", "max", "print", "len", "int", "float", "bool", "abs", "isinstance",
                "tuple", "list", "enumerate", "zip", "getattr", "hasattr", "str", "round", "divmod",
                "reversed", "any", "all", "sum", "type", "repr"}

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
           ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
           ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
           ast.MatMult: operator.matmul}
_CMPOPS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
           ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Is: operator.is_, ast.IsNot: operator.is_not,
           ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_UNSUPPORTED = {
    ast.With: "`with` blocks are", ast.Try: "try/except is", ast.ClassDef: "class definitions are",
    ast.FunctionDef: "nested function definitions are", ast.Lambda: "lambdas are",
    ast.Import: "imports are", ast.ImportFrom: "imports are", ast.Global: "`global` is",
    ast.Nonlocal: "`nonlocal` is", ast.Delete: "`del` is", ast.ListComp: "list comprehensions are",
    ast.GeneratorExp: "generator expressions are", ast.DictComp: "dict comprehensions are",
    ast.SetComp: "set comprehensions are", ast.Yield: "`yield` is", ast.Await: "`await` is",
    ast.Raise: "`raise` is", ast.Break: "`break` is", ast.Continue: "`continue` is",
    ast.AsyncFunctionDef: "async functions are", ast.Set: "set literals are", ast.NamedExpr: "`:=` is",
}
_UNSUPPORTED_HINTS = {
    ast.Break: "give the loop a condition (a while loop) or mask the remaining iterations",
    ast.Continue: "wrap the rest of the body in an if, or mask it",
    ast.FunctionDef: "define it at module level with @jit and call it",
    ast.Lambda: "define a @jit function at module level and call it",
    ast.ListComp: "use tl.static_range to unroll a loop at compile time",
    ast.Raise: "use tl.static_assert (compile time) or tl.device_assert (run time)",
    ast.Import: "import at module level: a kernel sees the names of its module",
    ast.ImportFrom: "import at module level: a kernel sees the names of its module",
}


def _is_constexpr_annotation(annotation, globals_: dict) -> bool:
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return "constexpr" in annotation.value
    text = ast.unparse(annotation)
    return text.endswith("constexpr")


def constexpr_params(parsed: ParsedFunction) -> list[str]:
    args = parsed.tree.args
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs
            if _is_constexpr_annotation(a.annotation, parsed.globals)]


# --8<-- [start:generate]
def generate(jit_fn, specs: dict[str, ArgSpec], constexprs: dict[str, Any], name: str | None = None
             ) -> ir.Function:
    """Compile one specialization of a @jit kernel to tile IR.

    `specs` describes each runtime argument; `constexprs` gives the value of every other parameter.
    """
    parsed = jit_fn.parsed
    builder = ir.Builder()
    args, arg_attrs, scope = [], [], {}
    for param in jit_fn.arg_names:
        if param in constexprs:
            scope[param] = tl._unwrap(constexprs[param])
            continue
        spec = specs[param]
        value = ir.Value(ir.scalar(spec.dtype), name=param)
        args.append(value)
        arg_attrs.append({"divisibility": 16} if spec.divisible_by_16 else {})
        scope[param] = 1 if spec.equals_one else tl.tensor(value)
    loc = Loc(parsed.file, parsed.first_line, parsed.col_offset, parsed.name)
    fn = ir.Function(name or parsed.name, args, builder.block, arg_attrs, loc)
    with semantic.building(builder):
        CodeGenerator(parsed, builder, scope, depth=0).run_body(parsed.tree.body)
    ir.verify(fn)
    return fn
# --8<-- [end:generate]


class CodeGenerator(ast.NodeVisitor):
    """Walks one function's AST, holding its variables in `scope`; inlined calls get their own."""

    def __init__(self, parsed: ParsedFunction, builder: ir.Builder, scope: dict, depth: int):
        self.parsed, self.builder, self.scope, self.depth = parsed, builder, scope, depth
        self.loop_depth = 0
        self.assigned_at: dict[str, ast.AST] = {}  # where each variable was last assigned, for errors

    # -- locations and errors ---------------------------------------------------------------------
    def loc(self, node: ast.AST) -> Loc:
        return Loc(self.parsed.file, self.parsed.first_line + getattr(node, "lineno", 1) - 1,
                   self.parsed.col_offset + getattr(node, "col_offset", 0), self.parsed.name)

    def error(self, node: ast.AST, message: str, hint: str | None = None) -> CompilationError:
        return CompilationError(self.loc(node), message, hint)

    # --8<-- [start:visit]
    def visit(self, node: ast.AST):
        """Visit a node with its location stamped on every op made; point any error at the node."""
        if type(node) in _UNSUPPORTED:
            raise self.error(node, f"{_UNSUPPORTED[type(node)]} not supported inside a @jit function",
                             _UNSUPPORTED_HINTS.get(type(node)))
        saved = self.builder.loc
        if hasattr(node, "lineno"):
            self.builder.loc = self.loc(node)
        try:
            method = getattr(self, "visit_" + type(node).__name__, None)
            if method is None:
                raise self.error(node, f"{type(node).__name__} is not supported inside a @jit function")
            return method(node)
        except CompilationError:
            raise
        except SemanticError as e:  # the user's mistake: the message says it all, no traceback
            raise self.error(node, str(e), e.hint) from None
        except RecursionError as e:
            raise self.error(node, "calls nest too deeply (a @jit function calling itself?)",
                             "@jit functions are inlined, so they cannot recurse") from e
        except (TypeError, ValueError, AttributeError, KeyError, IndexError, ZeroDivisionError,
                OverflowError, AssertionError) as e:
            raise self.error(node, f"{type(e).__name__}: {e}") from e
        finally:
            self.builder.loc = saved
    # --8<-- [end:visit]

    # -- statements -------------------------------------------------------------------------------
    def run_body(self, stmts: list[ast.stmt]) -> None:
        """Run statements in order; an `if` that returns in a branch takes the rest of the body along."""
        for i, stmt in enumerate(stmts):
            if "$ret" in self.scope:
                return  # code after a return never runs
            if isinstance(stmt, ast.If) and _contains_return(stmt) and self.loop_depth == 0:
                rest = stmts[i + 1:]
                then = stmt.body + ([] if _always_returns(stmt.body) else rest)
                orelse = stmt.orelse + ([] if _always_returns(stmt.orelse) else rest)
                self.visit(ast.copy_location(ast.If(stmt.test, then, orelse), stmt))
                return
            self.visit(stmt)

    def visit_Expr(self, node: ast.Expr):
        self.visit(node.value)

    def visit_Pass(self, node):
        pass

    def visit_Return(self, node: ast.Return):
        if self.loop_depth:
            raise self.error(node, "return inside a loop is not supported",
                             "assign the result to a variable and return it after the loop")
        returns_none = node.value is None or isinstance(node.value, ast.Constant) and node.value.value is None
        if self.depth == 0 and not returns_none:
            raise self.error(node, "a kernel cannot return a value", "write results to memory with tl.store")
        self.scope["$ret"] = None if node.value is None else self.visit(node.value)

    def visit_Assign(self, node: ast.Assign):
        value = self.visit(node.value)
        for target in node.targets:
            self.assign(target, value)

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if node.value is None:
            return
        value = self.visit(node.value)
        if _is_constexpr_annotation(node.annotation, self.parsed.globals) and isinstance(value, tl.tensor):
            raise self.error(node, f"{ast.unparse(node.target)} is annotated tl.constexpr but its value "
                             "is only known when the kernel runs")
        self.assign(node.target, value)

    def visit_AugAssign(self, node: ast.AugAssign):
        if not isinstance(node.target, ast.Name):
            raise self.error(node, "only variables can be updated in place (x += ...)",
                             "tiles are values: write x = x + y, or store through a pointer")
        current = self.visit(ast.copy_location(ast.Name(node.target.id, ast.Load()), node))
        self.assign(node.target, self.apply_binop(node.op, current, self.visit(node.value), node))

    def assign(self, target: ast.AST, value) -> None:
        value = tl._unwrap(value)
        if isinstance(target, ast.Name):
            self.scope[target.id] = value
            self.assigned_at[target.id] = target
        elif isinstance(target, (ast.Tuple, ast.List)):
            starred = next((t for t in target.elts if isinstance(t, ast.Starred)), None)
            if starred is not None:
                raise self.error(starred, "`*` unpacking is not supported inside a @jit function",
                                 "unpack into as many names as there are values")
            if isinstance(value, tl.tensor) or not hasattr(value, "__len__"):
                raise self.error(target, f"cannot unpack {value!r} into {len(target.elts)} names")
            if len(value) != len(target.elts):
                raise self.error(target, f"cannot unpack {len(value)} values into {len(target.elts)} names")
            for t, v in zip(target.elts, value):
                self.assign(t, v)
        else:
            raise self.error(target, f"cannot assign to {ast.unparse(target)}",
                             "tiles are values: build a new one with tl.where, or tl.store to memory")

    def visit_Assert(self, node: ast.Assert):
        test = self.visit(node.test)
        msg = "" if node.msg is None else str(self.visit(node.msg))
        if isinstance(test, tl.tensor):
            tl.device_assert(test, msg or ast.unparse(node.test))
        elif not test:
            raise self.error(node, f"assertion failed: {msg or ast.unparse(node.test)}")

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

    # -- expressions --------------------------------------------------------------------------------
    def visit_Constant(self, node: ast.Constant):
        return node.value

    def visit_Name(self, node: ast.Name):
        name = node.id
        if name in self.scope:
            value = self.scope[name]
            if isinstance(value, _OnlyInOneBranch):
                raise self.error(node, f"`{name}` is defined only in {value.where}",
                                 "define it before the if/loop so it exists on every path")
            return value
        if name in self.parsed.globals:
            return self.global_value(node, self.parsed.globals[name])
        if name in _PY_BUILTINS:
            return getattr(builtins, name)
        if hasattr(builtins, name):
            raise self.error(node, f"the Python builtin `{name}` is not supported inside a @jit function")
        raise self.error(node, f"name `{name}` is not defined",
                         "a kernel sees its arguments, its local variables, and module-level names")

    def global_value(self, node, value):
        if type(value).__module__.startswith(("torch", "numpy", "cupy")) and hasattr(value, "shape"):
            raise self.error(node, f"global `{node.id}` is an array ({type(value).__name__}); kernels "
                             "cannot read host arrays", "pass it to the kernel as an argument")
        return tl._unwrap(value)

    def visit_Attribute(self, node: ast.Attribute):
        base = self.visit(node.value)
        try:
            return tl._unwrap(getattr(base, node.attr))
        except AttributeError:
            raise self.error(node, f"{_describe(base)} has no attribute `{node.attr}`") from None

    def visit_Tuple(self, node: ast.Tuple):
        return tuple(self.visit(e) for e in node.elts)

    def visit_List(self, node: ast.List):
        return [self.visit(e) for e in node.elts]

    def visit_Dict(self, node: ast.Dict):
        return {self.visit(k): self.visit(v) for k, v in zip(node.keys, node.values)}

    def visit_JoinedStr(self, node: ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                v = self.visit(value.value)
                if isinstance(v, tl.tensor):
                    raise self.error(value, "f-strings can only format compile-time values",
                                     "print runtime values with tl.device_print(prefix, value)")
                spec = "" if value.format_spec is None else self.visit(value.format_spec)
                parts.append(format(v, spec))
        return "".join(parts)

    def visit_FormattedValue(self, node):
        return self.visit_JoinedStr(ast.JoinedStr([node]))

    def visit_Slice(self, node: ast.Slice):
        return slice(*(None if x is None else self.visit(x) for x in (node.lower, node.upper, node.step)))

    def visit_Subscript(self, node: ast.Subscript):
        base = self.visit(node.value)
        index = self.visit(node.slice)
        if isinstance(base, tl.tensor):
            return base[index]
        if isinstance(index, tl.tensor):
            raise self.error(node, "cannot index a compile-time value with a runtime value")
        return base[index]

    def apply_binop(self, op: ast.operator, a, b, node):
        a, b = tl._unwrap(a), tl._unwrap(b)
        if type(op) is ast.Pow and (isinstance(a, tl.tensor) or isinstance(b, tl.tensor)):
            return tl.pow(a, b)
        if type(op) is ast.MatMult:
            raise self.error(node, "`@` is not supported on tiles", "use tl.dot(a, b)")
        return _BINOPS[type(op)](a, b)

    def visit_BinOp(self, node: ast.BinOp):
        return self.apply_binop(node.op, self.visit(node.left), self.visit(node.right), node)

    def visit_UnaryOp(self, node: ast.UnaryOp):
        x = tl._unwrap(self.visit(node.operand))
        if isinstance(node.op, ast.Not):
            return tl.tensor(semantic.unary("lnot", x.handle)) if isinstance(x, tl.tensor) else not x
        return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}[type(node.op)](x)

    def visit_BoolOp(self, node: ast.BoolOp):
        """`and`/`or`: Python's meaning on constants; elementwise logic (both sides run) on tensors."""
        result = self.visit(node.values[0])
        for value_node in node.values[1:]:
            if not isinstance(result, tl.tensor):
                if isinstance(node.op, ast.And) and not result or isinstance(node.op, ast.Or) and result:
                    return result
                result = self.visit(value_node)
                continue
            other = self.visit(value_node)
            a = semantic.compare("ne", result.handle, semantic.Weak(0))
            b = tl._operand(other)
            b = semantic.compare("ne", b, semantic.Weak(0)) if not isinstance(b, semantic.Weak) \
                else semantic.scalar_constant(bool(b.value))
            result = tl.tensor(semantic.binary("and" if isinstance(node.op, ast.And) else "or", a, b))
        return result

    def visit_Compare(self, node: ast.Compare):
        left = tl._unwrap(self.visit(node.left))
        result = None
        for op, right_node in zip(node.ops, node.comparators):
            right = tl._unwrap(self.visit(right_node))
            if isinstance(op, (ast.In, ast.NotIn)) and (isinstance(left, tl.tensor) or
                                                        isinstance(right, tl.tensor)):
                raise self.error(node, f"`{type(op).__name__.lower()}` needs compile-time values",
                                 "compare tensors with == and !=")
            # `is` and `is not` compare identities at compile time, tensors included, so that
            # `if bias_ptr is not None:` folds whether or not a bias was passed.
            this = _CMPOPS[type(op)](left, right)
            result = this if result is None else (result & this if isinstance(result, tl.tensor) or
                                                  isinstance(this, tl.tensor) else result and this)
            left = right
        return result

    def visit_IfExp(self, node: ast.IfExp):
        cond = self.condition(node.test)
        if not isinstance(cond, tl.tensor):
            return self.visit(node.body if cond else node.orelse)
        a, b = self.visit(node.body), self.visit(node.orelse)
        return tl.where(cond, a, b)

    def visit_Starred(self, node):
        raise self.error(node, "`*` unpacking is not supported inside a @jit function")

    # -- calls ----------------------------------------------------------------------------------------
    # --8<-- [start:call]
    def visit_Call(self, node: ast.Call):
        fn = self.visit(node.func)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                value = self.visit(a.value)
                if isinstance(value, tl.tensor):
                    raise self.error(a, "cannot unpack a tensor into arguments")
                args.extend(value)
            else:
                args.append(self.visit(a))
        kwargs = {}
        for k in node.keywords:
            value = self.visit(k.value)
            if k.arg is not None:
                kwargs[k.arg] = value
            elif isinstance(value, dict):  # f(**options), options a dict built at compile time
                kwargs.update(value)
            else:
                raise self.error(k, f"cannot unpack {_describe(value)} into keyword arguments")
        from .jit import JITFunction  # the JIT imports this module

        if fn is tl.reduce or fn is tl.associative_scan:
            return self.combine(fn, args, kwargs, node)
        if isinstance(fn, JITFunction):
            return self.inline(fn, args, kwargs, node)
        if tl.is_builtin(fn) or isinstance(fn, type) and issubclass(fn, (tl.range, tl.static_range,
                                                                        tl.constexpr)):
            return fn(*args, **kwargs)
        if fn is builtins.print:  # print("x", x) is device_print("x", x), as in Triton
            return tl.device_print(*args) if args else None
        if fn is builtins.range:
            return tl.range(*args, **kwargs)
        if fn in (builtins.min, builtins.max) and any(isinstance(a, tl.tensor) for a in args):
            combine = tl.minimum if fn is builtins.min else tl.maximum
            result = args[0]
            for a in args[1:]:
                result = combine(result, a)
            return result
        if fn is builtins.abs and args and isinstance(args[0], tl.tensor):
            return tl.abs(args[0])
        if any(isinstance(a, tl.tensor) for a in [*args, *kwargs.values()]):
            raise self.error(node, f"cannot call {_describe(fn)} with tensor arguments",
                             "kernels can call tl.* functions and other @jit functions")
        if not callable(fn):
            raise self.error(node, f"{_describe(fn)} is not callable")
        return fn(*args, **kwargs)  # a plain Python function of compile-time values
    # --8<-- [end:call]

    # --8<-- [start:combine]
    def combine(self, fn, args: list, kwargs: dict, node: ast.Call):
        """tl.reduce / tl.associative_scan: the combine function, inlined on two scalars, becomes
        the region of a `reduce` or `scan` op with kind "combine"."""
        from .jit import JITFunction
        bound = inspect.signature(fn).bind(*args, **kwargs)
        bound.apply_defaults()
        x, axis, combine = (tl._unwrap(bound.arguments[k]) for k in ("input", "axis", "combine_fn"))
        if isinstance(x, (tuple, list)):
            raise self.error(node, "combining several tensors at once is not supported",
                             "reduce each tensor on its own, or pack them into one")
        if not isinstance(combine, JITFunction):
            raise self.error(node, "combine_fn must be a @jit function of two values")
        value = tl._value(x)
        if not value.type.is_tile:
            raise self.error(node, f"cannot reduce or scan a scalar ({value.type})")
        if axis is None and fn is tl.reduce:
            value, axis = semantic.reshape(value, (value.type.numel,)), 0
        axis = tl._const_int(axis, "the axis") % len(value.shape)
        region = ir.Block([ir.Value(ir.scalar(value.dtype)), ir.Value(ir.scalar(value.dtype))])
        saved, self.builder.block = self.builder.block, region
        try:
            result = self.inline(combine, [tl.tensor(a) for a in region.args], {}, node)
            result = semantic.cast(tl._value(result), value.dtype)
            if result.type.is_tile:
                raise self.error(node, "combine_fn must return one scalar value")
            self.builder.create("yield", [result])
        finally:
            self.builder.block = saved
        if fn is tl.reduce:
            shape = value.shape[:axis] + value.shape[axis + 1:]
            op = self.builder.region_op("reduce", [value], [ir.Type(shape, value.dtype)], [region],
                                        {"axis": axis, "kind": "combine"})
            out = op.result
            if tl._unwrap(bound.arguments["keep_dims"]):
                out = semantic.expand_dims(out, axis)
            return tl.tensor(out)
        op = self.builder.region_op("scan", [value], [value.type], [region],
                                    {"axis": axis, "kind": "combine",
                                     "reverse": bool(tl._unwrap(bound.arguments["reverse"]))})
        return tl.tensor(op.result)
    # --8<-- [end:combine]

    # --8<-- [start:inline]
    def inline(self, callee, args: list, kwargs: dict, node: ast.Call):
        """Generate the body of a called @jit function in place, with its parameters bound to the args."""
        if self.depth > 64:
            raise self.error(node, "calls nest too deeply (a @jit function calling itself?)",
                             "@jit functions are inlined, so they cannot recurse")
        try:
            bound = callee.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise self.error(node, f"bad call to {callee.__name__}(): {e}") from None
        bound.apply_defaults()
        parsed = callee.parsed
        for name in constexpr_params(parsed):
            if isinstance(bound.arguments.get(name), tl.tensor):
                raise self.error(node, f"argument `{name}` of {callee.__name__}() is a tl.constexpr but "
                                 "received a value only known at run time",
                                 "pass a literal or another constexpr")
        scope = {k: tl._unwrap(v) for k, v in bound.arguments.items()}
        generator = CodeGenerator(parsed, self.builder, scope, self.depth + 1)
        generator.run_body(parsed.tree.body)
        return generator.scope.get("$ret")
    # --8<-- [end:inline]


def _describe(x) -> str:
    if isinstance(x, tl.tensor):
        return f"a tensor ({x.type})"
    name = getattr(x, "__name__", None)
    return f"`{name}`" if name else repr(x)


def _same_constant(a, b) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return a is b


def _dtype_name(dtype: DType) -> str:
    return {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64"}.get(dtype.name,
                                                                                           dtype.name)


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
