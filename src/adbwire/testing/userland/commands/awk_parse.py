"""awk's lexer and parser: the program's text into closures over a `Run` (awk_runtime)."""

from __future__ import annotations

import re
from collections.abc import Callable

from adbwire.testing.userland.commands.awk_runtime import (
    AwkError,
    NextRecord,
    Run,
    Value,
    arith,
    compare,
    constant,
    logic,
    matcher,
    substr,
    to_number,
    to_text,
    truth,
)

TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<str>\"(?:[^\"\\]|\\.)*\")|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<regex>/(?:[^/\\\n]|\\.)*/)"
    r"|(?P<op>\+\+|--|\+=|-=|\*=|/=|==|!=|<=|>=|&&|\|\||!~|[-+*/%<>=!~$(){};,\n]))"
)


KEYWORDS = frozenset({"in", "else", "if", "print", "printf", "next", "BEGIN", "END"})


def tokenize(source: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    source = re.sub(r"#[^\n]*", "", source)
    while pos < len(source):
        if source[pos:].strip(" \t") == "":
            break
        match = TOKEN.match(source, pos)
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


class Program:
    """Parses the tokens into closures over the interpreter's state."""

    def __init__(self, tokens: list[tuple[str, str]], run: Run) -> None:
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
        self.run.out(self.run.record.line + to_text(self.run.vars["ORS"]))

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
                raise NextRecord

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
                if truth(condition()):
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
            left = logic(left, self._and(), either=True)
        return left

    def _and(self) -> Callable[[], Value]:
        left = self._match()
        while self.peek() == "&&":
            self.take()
            left = logic(left, self._match(), either=False)
        return left

    def _match(self) -> Callable[[], Value]:
        left = self._compare()
        while self.peek() in ("~", "!~"):
            negate = self.take() == "!~"
            right = constant(self.take()[1:-1]) if self.kind() == "regex" else self._compare()
            left = matcher(left, right, negate=negate)
        return left

    def _compare(self) -> Callable[[], Value]:
        left = self._concat()
        if self.peek() in ("<", "<=", ">", ">=", "==", "!="):
            op = self.take()
            right = self._concat()
            return lambda: float(compare(left(), op, right()))
        return left

    def _concat(self) -> Callable[[], Value]:
        parts = [self._additive()]
        while self.kind() in ("num", "str", "name", "regex") or self.peek() in ("$", "("):
            if self.peek() in KEYWORDS:
                break
            parts.append(self._additive())
        if len(parts) == 1:
            return parts[0]
        return lambda: "".join(to_text(part()) for part in parts)

    def _additive(self) -> Callable[[], Value]:
        left = self._term()
        while self.peek() in ("+", "-"):
            op, first, right = self.take(), left, self._term()
            left = arith(op, first, right)
        return left

    def _term(self) -> Callable[[], Value]:
        left = self._unary()
        while self.peek() in ("*", "/", "%"):
            op, first, right = self.take(), left, self._unary()
            left = arith(op, first, right)
        return left

    def _unary(self) -> Callable[[], Value]:
        if self.peek() == "!":
            self.take()
            inner = self._unary()
            return lambda: float(not truth(inner()))
        if self.peek() == "-":
            self.take()
            inner = self._unary()
            return lambda: -to_number(inner())
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
            return lambda: self.run.field(int(to_number(index())))
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
            "length": lambda a: float(len(to_text(a[0]) if a else self.run.record.line)),
            "substr": substr,
            "tolower": lambda a: to_text(a[0]).lower(),
            "toupper": lambda a: to_text(a[0]).upper(),
            "int": lambda a: float(int(to_number(a[0]))),
        }
        if name not in functions:
            raise AwkError(f"function {name} not supported")
        function = functions[name]
        return lambda: function([arg() for arg in args])
