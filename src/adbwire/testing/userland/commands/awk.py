"""A small awk: enough for the one-liners scripts pipe device output through.

Supported: `awk [-F SEP] [-v NAME=VALUE] 'PROGRAM' [FILE…]`; rules `BEGIN {…}`,
`END {…}`, `PATTERN {…}`, `PATTERN` alone and `{…}`; patterns are expressions or /RE/;
statements print (with `,` for OFS and `>` not supported), printf, NAME = / += / -= EXPR,
NAME++ / NAME--, next, `if (…) … else …`; expressions use $N, NF, NR, FS, OFS, variables,
numbers, "strings", /RE/, ( ), + - * / %, string concatenation, comparisons, ~ !~, ! && ||,
and length(), substr(), tolower(), toupper(), int(). Not supported: arrays, loops,
user functions, getline, output redirection.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from adbwire.testing.userland.commands.basic import format_printf
from adbwire.testing.userland.commands.textedit import read_inputs
from adbwire.testing.userland.shell.interp import CommandFn, Invocation

Value = str | float
_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<str>\"(?:[^\"\\]|\\.)*\")|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<regex>/(?:[^/\\\n]|\\.)*/)"
    r"|(?P<op>\+\+|--|\+=|-=|\*=|/=|==|!=|<=|>=|&&|\|\||!~|[-+*/%<>=!~$(){};,\n]))"
)


_KEYWORDS = frozenset({"in", "else", "if", "print", "printf", "next", "BEGIN", "END"})


class AwkError(Exception):
    pass


class _Next(Exception):
    pass


@dataclass
class _Record:
    fields: list[str] = field(default_factory=list)
    line: str = ""


def _tokens(source: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    source = re.sub(r"#[^\n]*", "", source)
    while pos < len(source):
        if source[pos:].strip(" \t") == "":
            break
        match = _TOKEN.match(source, pos)
        if match is None:
            raise AwkError(f"syntax error at '{source[pos : pos + 10].strip()}'")
        kind = match.lastgroup or ""
        text = match.group(kind)
        # a slash after a value is division, not a regex
        if kind == "regex" and tokens and (tokens[-1][0] in ("num", "str", "name")
                                           or tokens[-1][1] == ")"):  # fmt: skip
            kind, text = "op", "/"
            match = re.compile(r"\s*/").match(source, pos)
            assert match is not None
        tokens.append((kind, text))
        pos = match.end()
    return tokens


def _number(value: Value) -> float:
    if isinstance(value, float):
        return value
    match = re.match(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", value)
    return float(match.group(0)) if match else 0.0


def _text(value: Value) -> str:
    if isinstance(value, str):
        return value
    return str(int(value)) if value == int(value) else f"{value:.6g}"


def _looks_numeric(value: Value) -> bool:
    return (
        isinstance(value, float) or re.fullmatch(r"\s*[-+]?(\d+\.?\d*|\.\d+)\s*", value) is not None
    )


class _Program:
    """Parses the tokens into closures over the interpreter's state."""

    def __init__(self, tokens: list[tuple[str, str]], run: _Run) -> None:
        self.tokens = tokens
        self.pos = 0
        self.run = run

    def peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.tokens[index][1] if index < len(self.tokens) else ""

    def kind(self) -> str:
        return self.tokens[self.pos][0] if self.pos < len(self.tokens) else ""

    def take(self, expected: str | None = None) -> str:
        if self.pos >= len(self.tokens):
            raise AwkError("unexpected end of program")
        text = self.tokens[self.pos][1]
        if expected is not None and text != expected:
            raise AwkError(f"syntax error: expected '{expected}' near '{text}'")
        self.pos += 1
        return text

    def skip_newlines(self) -> None:
        while self.peek() in ("\n", ";"):
            self.pos += 1

    def rules(self) -> None:
        self.skip_newlines()
        while self.pos < len(self.tokens):
            if self.peek() in ("BEGIN", "END"):
                where = self.take()
                body = self.block()
                (self.run.begin if where == "BEGIN" else self.run.end).append(body)
            else:
                pattern = None if self.peek() == "{" else self.expression()
                body = self.block() if self.peek() == "{" else self._print_record
                self.run.rules.append((pattern, body))
            self.skip_newlines()

    def _print_record(self) -> None:
        self.run.out(self.run.record.line + _text(self.run.vars["ORS"]))

    def block(self) -> Callable[[], None]:
        self.take("{")
        statements: list[Callable[[], None]] = []
        self.skip_newlines()
        while self.peek() != "}":
            statements.append(self.statement())
            self.skip_newlines()
        self.take("}")

        def run_all() -> None:
            for statement in statements:
                statement()

        return run_all

    def statement(self) -> Callable[[], None]:
        word = self.peek()
        if word == "{":
            return self.block()
        if word in ("print", "printf"):
            self.take()
            args: list[Callable[[], Value]] = []
            parens = self.peek() == "(" and word == "printf"
            if parens:
                self.take("(")
            while self.peek() not in ("", ";", "\n", "}", ")"):
                args.append(self.expression())
                if self.peek() == ",":
                    self.take()
            if parens:
                self.take(")")
            return self.run.printer(word, args)
        if word == "next":
            self.take()

            def stop() -> None:
                raise _Next

            return stop
        if word == "if":
            self.take()
            self.take("(")
            condition = self.expression()
            self.take(")")
            self.skip_newlines()
            then = self.statement()
            save = self.pos
            self.skip_newlines()
            otherwise: Callable[[], None] | None = None
            if self.peek() == "else":
                self.take()
                self.skip_newlines()
                otherwise = self.statement()
            else:
                self.pos = save

            def branch() -> None:
                if _truth(condition()):
                    then()
                elif otherwise is not None:
                    otherwise()

            return branch
        expr = self.expression()
        return lambda: (expr(), None)[1]

    # expressions, lowest precedence first
    def expression(self) -> Callable[[], Value]:
        if self.kind() == "name" and self.peek(1) in ("=", "+=", "-=", "*=", "/="):
            name = self.take()
            op = self.take()
            value = self.expression()
            return self.run.assign(name, op, value)
        return self._or()

    def _or(self) -> Callable[[], Value]:
        left = self._and()
        while self.peek() == "||":
            self.take()
            left = _logic(left, self._and(), either=True)
        return left

    def _and(self) -> Callable[[], Value]:
        left = self._match()
        while self.peek() == "&&":
            self.take()
            left = _logic(left, self._match(), either=False)
        return left

    def _match(self) -> Callable[[], Value]:
        left = self._compare()
        while self.peek() in ("~", "!~"):
            negate = self.take() == "!~"
            right = _constant(self.take()[1:-1]) if self.kind() == "regex" else self._compare()
            left = _matcher(left, right, negate=negate)
        return left

    def _compare(self) -> Callable[[], Value]:
        left = self._concat()
        if self.peek() in ("<", "<=", ">", ">=", "==", "!="):
            op = self.take()
            right = self._concat()
            return lambda: float(_compare(left(), op, right()))
        return left

    def _concat(self) -> Callable[[], Value]:
        parts = [self._additive()]
        while self.kind() in ("num", "str", "name", "regex") or self.peek() in ("$", "("):
            if self.peek() in _KEYWORDS:
                break
            parts.append(self._additive())
        if len(parts) == 1:
            return parts[0]
        return lambda: "".join(_text(part()) for part in parts)

    def _additive(self) -> Callable[[], Value]:
        left = self._term()
        while self.peek() in ("+", "-"):
            op, first, right = self.take(), left, self._term()
            left = _arith(op, first, right)
        return left

    def _term(self) -> Callable[[], Value]:
        left = self._unary()
        while self.peek() in ("*", "/", "%"):
            op, first, right = self.take(), left, self._unary()
            left = _arith(op, first, right)
        return left

    def _unary(self) -> Callable[[], Value]:
        if self.peek() == "!":
            self.take()
            inner = self._unary()
            return lambda: float(not _truth(inner()))
        if self.peek() == "-":
            self.take()
            inner = self._unary()
            return lambda: -_number(inner())
        return self._postfix()

    def _postfix(self) -> Callable[[], Value]:
        if self.kind() == "name" and self.peek(1) in ("++", "--"):
            name, op = self.take(), self.take()
            return self.run.increment(name, 1.0 if op == "++" else -1.0)
        return self._primary()

    def _primary(self) -> Callable[[], Value]:
        kind, text = self.tokens[self.pos] if self.pos < len(self.tokens) else ("", "")
        if not text:
            raise AwkError("unexpected end of program")
        self.pos += 1
        if kind == "num":
            number = float(text)
            return lambda: number
        if kind == "str":
            literal = text[1:-1].encode().decode("unicode_escape")
            return lambda: literal
        if kind == "regex":
            pattern = re.compile(text[1:-1])
            return lambda: float(pattern.search(self.run.record.line) is not None)
        if text == "$":
            index = self._primary()
            return lambda: self.run.field(int(_number(index())))
        if text == "(":
            inner = self.expression()
            self.take(")")
            return inner
        if kind == "name":
            if self.peek() == "(":
                return self._call(text)
            return lambda: self.run.get(text)
        raise AwkError(f"syntax error near '{text}'")

    def _call(self, name: str) -> Callable[[], Value]:
        self.take("(")
        args: list[Callable[[], Value]] = []
        while self.peek() != ")":
            args.append(self.expression())
            if self.peek() == ",":
                self.take()
        self.take(")")
        functions: dict[str, Callable[[list[Value]], Value]] = {
            "length": lambda a: float(len(_text(a[0]) if a else self.run.record.line)),
            "substr": _substr,
            "tolower": lambda a: _text(a[0]).lower(),
            "toupper": lambda a: _text(a[0]).upper(),
            "int": lambda a: float(int(_number(a[0]))),
        }
        if name not in functions:
            raise AwkError(f"function {name} not supported")
        function = functions[name]
        return lambda: function([arg() for arg in args])


def _logic(
    left: Callable[[], Value], right: Callable[[], Value], *, either: bool
) -> Callable[[], Value]:
    if either:
        return lambda: float(_truth(left()) or _truth(right()))
    return lambda: float(_truth(left()) and _truth(right()))


def _constant(value: Value) -> Callable[[], Value]:
    return lambda: value


def _matcher(
    left: Callable[[], Value], right: Callable[[], Value], *, negate: bool
) -> Callable[[], Value]:
    def test() -> Value:
        found = re.search(_text(right()), _text(left())) is not None
        return float(found != negate)

    return test


def _substr(args: list[Value]) -> Value:
    text = _text(args[0])
    start = int(_number(args[1])) if len(args) > 1 else 1
    length = int(_number(args[2])) if len(args) > 2 else len(text)
    begin = max(start, 1)
    end = start + length
    return text[begin - 1 : max(end - 1, begin - 1)]


def _truth(value: Value) -> bool:
    return value != 0.0 if isinstance(value, float) else value != ""


def _compare(left: Value, op: str, right: Value) -> bool:
    pair: tuple[float, float] | tuple[str, str]
    if _looks_numeric(left) and _looks_numeric(right):
        pair = (_number(left), _number(right))
    else:
        pair = (_text(left), _text(right))
    a, b = pair
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[op]  # type: ignore[operator]


def _arith(op: str, left: Callable[[], Value], right: Callable[[], Value]) -> Callable[[], Value]:
    def compute() -> Value:
        a, b = _number(left()), _number(right())
        if op in ("/", "%") and b == 0:
            raise AwkError("division by zero")
        return {"+": a + b, "-": a - b, "*": a * b}.get(op, a / b if op == "/" else a % b)

    return compute


class _Run:
    def __init__(self, inv: Invocation, separator: str | None) -> None:
        self.inv = inv
        self.vars: dict[str, Value] = {"OFS": " ", "ORS": "\n", "FS": separator or " "}
        self.record = _Record()
        self.nr = 0
        self.begin: list[Callable[[], None]] = []
        self.end: list[Callable[[], None]] = []
        self.rules: list[tuple[Callable[[], Value] | None, Callable[[], None]]] = []

    def out(self, text: str) -> None:
        self.inv.out(text)

    def get(self, name: str) -> Value:
        if name == "NR":
            return float(self.nr)
        if name == "NF":
            return float(len(self.record.fields))
        return self.vars.get(name, "")

    def field(self, index: int) -> Value:
        if index == 0:
            return self.record.line
        fields = self.record.fields
        return fields[index - 1] if 0 < index <= len(fields) else ""

    def assign(self, name: str, op: str, value: Callable[[], Value]) -> Callable[[], Value]:
        def store() -> Value:
            new = value()
            if op != "=":
                new = _arith(op[0], lambda: self.get(name), lambda: new)()
            self.vars[name] = new
            return new

        return store

    def increment(self, name: str, step: float) -> Callable[[], Value]:
        def bump() -> Value:
            old = _number(self.get(name))
            self.vars[name] = old + step
            return old

        return bump

    def printer(self, word: str, args: list[Callable[[], Value]]) -> Callable[[], None]:
        def emit() -> None:
            values = [arg() for arg in args]
            if word == "printf":
                if values:
                    self.out(format_printf(_text(values[0]), [_text(v) for v in values[1:]]))
                return
            text = (
                _text(self.vars["OFS"]).join(_text(v) for v in values)
                if values
                else (self.record.line)
            )
            self.out(text + _text(self.vars["ORS"]))

        return emit

    def split(self, line: str) -> None:
        separator = _text(self.vars["FS"])
        if separator == " ":
            fields = line.split()
        elif len(separator) == 1:
            fields = line.split(separator)
        else:
            fields = re.split(separator, line)
        self.record = _Record(fields, line)


def awk(inv: Invocation) -> int:
    args = list(inv.args)
    separator: str | None = None
    assigns: list[tuple[str, str]] = []
    while args and args[0].startswith("-") and len(args[0]) > 1:
        arg = args.pop(0)
        if arg == "--":
            break
        if arg.startswith("-F"):
            separator = arg[2:] or (args.pop(0) if args else " ")
            separator = "\t" if separator == "\\t" else separator
        elif arg.startswith("-v"):
            name, _, value = (arg[2:] or (args.pop(0) if args else "")).partition("=")
            assigns.append((name, value))
        else:
            return inv.fail(f"Unknown option '{arg}'")
    if not args:
        return inv.fail("Need 1 argument")
    run = _Run(inv, separator)
    run.vars.update(assigns)
    try:
        _Program(_tokens(args[0]), run).rules()
        for block in run.begin:
            block()
        status = 0
        if run.rules or run.end:
            data, status = read_inputs(inv, args[1:])
            for line in data.decode("utf-8", "replace").splitlines():
                run.nr += 1
                run.split(line)
                try:
                    for pattern, body in run.rules:
                        if pattern is None or _truth(pattern()):
                            body()
                except _Next:
                    continue
        for block in run.end:
            block()
    except AwkError as exc:
        inv.err(f"awk: {exc}\n")
        return 2
    return status


COMMANDS: dict[str, CommandFn] = {"awk": awk}
