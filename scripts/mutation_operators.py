"""The mutants of one Python module: small AST changes a test suite should notice.

Each mutant is found by walking the module's AST in a fixed order; it is named by the
position of its node in that walk and a variant number, so it can be rebuilt from a fresh
parse of the same source. Applying one returns the whole module as source text again
(``ast.unparse``): comments and layout go, behaviour stays.

Operators (docs/testing.md lists them with the rules for what is left alone):

* comparisons flipped (``==``/``!=``, ``<``/``>=``, ``<``/``<=``, ``in``/``not in``, ...);
* conditions of ``if``, ``while``, ``elif`` and conditional expressions negated; ``not x``
  becomes ``x``;
* ``and``/``or`` swapped;
* constants changed: numbers +1, strings and bytes altered, ``True``/``False`` swapped;
* arithmetic and bit operators swapped (``+``/``-``, ``|``/``&``, ``<<``/``>>``, ...);
* statements deleted: ``raise``, a call used as a statement (``pass`` takes its place);
* functions that return a value made to ``return None`` at once.

Left alone, because changing them cannot change behaviour a test could see: docstrings,
annotations and type unions spelled outside them (``Event = A | B``), ``if TYPE_CHECKING:``
blocks, logging calls (``log.*``, ``logger.*``, ``logging.*``), ``slots=`` flags and the
text parts of f-strings.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass

_LOGGERS = {"log", "logger", "logging", "_log", "_logger", "LOG", "LOGGER"}

_COMPARE_FLIPS: dict[type[ast.cmpop], tuple[type[ast.cmpop], ...]] = {
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.Lt: (ast.GtE, ast.LtE),
    ast.LtE: (ast.Gt, ast.Lt),
    ast.Gt: (ast.LtE, ast.GtE),
    ast.GtE: (ast.Lt, ast.Gt),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
}

_BINOP_SWAPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.BitOr: ast.BitAnd,
    ast.BitAnd: ast.BitOr,
    ast.BitXor: ast.BitOr,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
}


@dataclass(frozen=True)
class Mutant:
    node_index: int
    variant: int
    line: int
    kind: str
    original: str
    mutated: str


@dataclass(frozen=True)
class _Change:
    kind: str
    replacement: Callable[[ast.AST], ast.AST | None]
    """Builds the node that takes the place of the original (a deep copy is passed)."""


def _operator_symbol(op: ast.AST) -> str:
    sample = ast.Compare(left=ast.Name("a"), ops=[op], comparators=[ast.Name("b")])  # type: ignore[list-item]
    if isinstance(op, ast.cmpop):
        return ast.unparse(sample).removeprefix("a ").removesuffix(" b")
    binop = ast.BinOp(left=ast.Name("a"), op=op, right=ast.Name("b"))  # type: ignore[arg-type]
    return ast.unparse(binop).removeprefix("a ").removesuffix(" b")


def _changed_constant(value: object) -> list[tuple[str, object]]:
    if isinstance(value, bool):
        return [("constant", not value)]
    if isinstance(value, int):
        return [("constant", value + 1)]
    if isinstance(value, float):
        return [("constant", value + 1.0)]
    if isinstance(value, str):
        return [("constant", "XX" + value + "XX" if value else "XX")]
    if isinstance(value, bytes):
        return [("constant", b"XX" + value if value else b"XX")]
    return []


def _compare_changes(node: ast.Compare) -> Iterator[_Change]:
    for position, op in enumerate(node.ops):
        for flipped in _COMPARE_FLIPS.get(type(op), ()):

            def replace(new: ast.AST, position: int = position, flipped: type = flipped) -> ast.AST:
                assert isinstance(new, ast.Compare)
                new.ops[position] = flipped()
                return new

            yield _Change("comparison", replace)


def _negated(test: ast.expr) -> ast.expr:
    return ast.UnaryOp(op=ast.Not(), operand=test)


def _changes(node: ast.AST, parent: ast.AST | None) -> Iterator[_Change]:
    if isinstance(node, ast.Compare):
        yield from _compare_changes(node)
    elif isinstance(node, (ast.If, ast.While, ast.IfExp)):

        def negate(new: ast.AST) -> ast.AST:
            assert isinstance(new, (ast.If, ast.While, ast.IfExp))
            new.test = _negated(new.test)
            return new

        yield _Change("negated condition", negate)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield _Change("removed not", lambda new: new.operand)  # type: ignore[attr-defined]
    elif isinstance(node, ast.BoolOp):

        def swap(new: ast.AST) -> ast.AST:
            assert isinstance(new, ast.BoolOp)
            new.op = ast.Or() if isinstance(new.op, ast.And) else ast.And()
            return new

        yield _Change("and/or", swap)
    elif isinstance(node, ast.Constant) and not isinstance(parent, ast.JoinedStr):
        for kind, value in _changed_constant(node.value):

            def constant(new: ast.AST, value: object = value) -> ast.AST:
                return ast.Constant(value=value)  # type: ignore[arg-type]

            yield _Change(kind, constant)
    elif (
        isinstance(node, (ast.BinOp, ast.AugAssign))
        and type(node.op) in _BINOP_SWAPS
        and not _is_type_union(node)
    ):

        def arithmetic(new: ast.AST) -> ast.AST:
            assert isinstance(new, (ast.BinOp, ast.AugAssign))
            new.op = _BINOP_SWAPS[type(new.op)]()
            return new

        yield _Change("operator", arithmetic)
    elif isinstance(node, ast.Raise):
        yield _Change("deleted raise", lambda new: ast.Pass())
    elif isinstance(node, ast.Expr) and isinstance(node.value, (ast.Call, ast.Await)):
        yield _Change("deleted call", lambda new: ast.Pass())
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _returns_value(node):

        def return_none(new: ast.AST) -> ast.AST:
            assert isinstance(new, (ast.FunctionDef, ast.AsyncFunctionDef))
            keep = 1 if _has_docstring(new) else 0
            new.body.insert(keep, ast.Return(value=ast.Constant(value=None)))
            return new

        yield _Change("returns None", return_none)


def _returns_value(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for node in _own_nodes(function):
        if isinstance(node, ast.Return) and node.value is not None:
            if isinstance(node.value, ast.Constant) and node.value.value is None:
                continue
            return True
    return False


def _own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, not those of functions nested in it."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _has_docstring(node: ast.AST) -> bool:
    body = getattr(node, "body", None)
    return (
        isinstance(body, list)
        and bool(body)
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    )


def _skipped_children(node: ast.AST) -> set[int]:
    """ids of child nodes whose subtrees are never mutated (see the module docstring)."""
    skipped: set[int] = set()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
        skipped.add(id(node.returns))
    if isinstance(node, (ast.arg, ast.AnnAssign)) and node.annotation is not None:
        skipped.add(id(node.annotation))
    for child in ast.iter_child_nodes(node):
        if _is_bare_string(child):  # docstrings, attribute docstrings
            skipped.add(id(child))
    return skipped


def _is_bare_string(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _is_type_union(node: ast.AST) -> bool:
    """`A | B | None` spelled outside an annotation (a type alias): a type, not arithmetic."""

    def is_type(part: ast.AST) -> bool:
        if isinstance(part, ast.BinOp) and isinstance(part.op, ast.BitOr):
            return is_type(part.left) and is_type(part.right)
        if isinstance(part, ast.Subscript):
            return is_type(part.value)
        if isinstance(part, ast.Constant):
            return part.value is None
        name = part.attr if isinstance(part, ast.Attribute) else getattr(part, "id", "")
        return bool(name) and (name[0].isupper() or name in _BUILTIN_TYPES)

    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr) and is_type(node)


_BUILTIN_TYPES = {"int", "str", "bytes", "bytearray", "memoryview", "float", "bool", "dict", "list"}


def _is_layout_flag(node: ast.AST) -> bool:
    """`slots=...` of a class decorator: memory layout, not behaviour."""
    return isinstance(node, ast.keyword) and node.arg == "slots"


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test) in {
        "TYPE_CHECKING",
        "typing.TYPE_CHECKING",
    }


def _is_logging_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    target = node.func
    while isinstance(target, ast.Attribute):
        target = target.value
    return isinstance(target, ast.Name) and target.id in _LOGGERS and target is not node.func


def _walk(tree: ast.AST) -> Iterator[tuple[ast.AST, ast.AST | None]]:
    """Every node that may be mutated, with its parent, in a fixed order."""
    stack: list[tuple[ast.AST, ast.AST | None]] = [(tree, None)]
    while stack:
        node, parent = stack.pop()
        if _is_type_checking(node) or _is_logging_call(node) or _is_layout_flag(node):
            continue
        if isinstance(node, ast.Expr) and _is_logging_call(node.value):
            continue
        yield node, parent
        skipped = _skipped_children(node)
        children = [child for child in ast.iter_child_nodes(node) if id(child) not in skipped]
        stack.extend((child, node) for child in reversed(children))


def _snippet(source: str, node: ast.AST) -> str:
    text = ast.get_source_segment(source, node) or ast.unparse(node)
    first = text.strip().splitlines()[0] if text.strip() else text
    return first if len(first) <= 100 else first[:97] + "..."


def _unparse_brief(node: ast.AST | None) -> str:
    if node is None:
        return "<deleted>"
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        header = ast.unparse(node).splitlines()[0]
        return f"{header} return None ..."
    text = ast.unparse(node)
    first = text.splitlines()[0] if text else text
    return first if len(first) <= 100 else first[:97] + "..."


def enumerate_mutants(source: str) -> list[Mutant]:
    tree = ast.parse(source)
    mutants: list[Mutant] = []
    for index, (node, parent) in enumerate(_walk(tree)):
        for variant, change in enumerate(_changes(node, parent)):
            replacement = change.replacement(copy.deepcopy(node))
            mutants.append(
                Mutant(
                    node_index=index,
                    variant=variant,
                    line=getattr(node, "lineno", 0),
                    kind=change.kind,
                    original=_snippet(source, node),
                    mutated=_unparse_brief(replacement),
                )
            )
    return mutants


class _Replacer(ast.NodeTransformer):
    def __init__(self, target: ast.AST, replacement: ast.AST) -> None:
        self.target = target
        self.replacement = replacement

    def visit(self, node: ast.AST) -> ast.AST:
        if node is self.target:
            return self.replacement
        visited: ast.AST = super().visit(node)
        return visited


def apply_mutant(source: str, mutant: Mutant) -> str:
    """The module's source with this one mutant applied."""
    tree = ast.parse(source)
    for index, (node, parent) in enumerate(_walk(tree)):
        if index != mutant.node_index:
            continue
        changes = list(_changes(node, parent))
        replacement = changes[mutant.variant].replacement(copy.deepcopy(node))
        assert replacement is not None
        mutated = _Replacer(node, replacement).visit(tree)
        return ast.unparse(ast.fix_missing_locations(mutated))
    raise LookupError(f"no node {mutant.node_index} in this source")


def unparsed(source: str) -> str:
    """The module as the mutants are written, without a change (the baseline run uses it)."""
    return ast.unparse(ast.parse(source))
