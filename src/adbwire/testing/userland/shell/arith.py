"""Arithmetic expansion `$((…))` as mksh evaluates it: 32-bit signed integers, C operators.

The expression has already had its `$var` and `$(…)` expansions done; bare names are shell
variables whose values are themselves evaluated as expressions (unset or empty is 0).
Numbers are decimal, `0x` hex or `base#digits` (mksh does not read a leading 0 as octal).
`&&`, `||` and `?:` skip the side effects and errors of the branch they do not take.
Errors read as mksh words them after `sh: `: `1/0: zero divisor`, `1+: unexpected 'end of
expression'`, `2a: bad number '2a'`.
"""

from __future__ import annotations

import re
from typing import Final, Protocol

__all__ = ["ArithmeticFailure", "VariableHost", "evaluate"]


class ArithmeticFailure(Exception):
    """The expression cannot be evaluated; the message is what mksh prints after `sh: `."""


class VariableHost(Protocol):
    def get_var(self, name: str) -> str | None: ...

    def set_var(self, name: str, value: str) -> None: ...

    def element(self, name: str, index: int) -> str | None: ...

    def set_element(self, name: str, index: int, value: str) -> None: ...

    def expand_subscript(self, text: str) -> str:
        """`$…` and backquote expansions done in the text (the inside of double quotes)."""
        ...


_TOKEN = re.compile(
    r"\s*(?:(?P<num>[0-9][0-9A-Za-z_#]*)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>"
    r"<<=|>>=|&&|\|\||==|!=|<=|>=|<<|>>|\+\+|--|[-+*/%&^|]=|[-+*/%()!~<>&^|?:=,]))"
)
_BINARY: Final = (  # loosest first; each level is left-associative
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<", "<=", ">", ">="),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
)
_ASSIGNMENTS: Final = ("=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|=")
_MAX_DEPTH: Final = 64


def _closing_bracket(text: str, start: int) -> int:
    """Index of the `]` closing the `[` at `start`, or -1."""
    depth = 0
    for index in range(start, len(text)):
        depth += (text[index] == "[") - (text[index] == "]")
        if depth == 0:
            return index
    return -1


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def evaluate(expression: str, variables: VariableHost) -> int:
    """The value of `expression`; raises ArithmeticFailure with mksh's message."""
    return _Evaluator(expression, variables, frozenset()).run()


class _Evaluator:
    def __init__(self, expression: str, variables: VariableHost, active: frozenset[str]) -> None:
        self.expression = expression
        self.variables = variables
        self.active = active  # names being evaluated further up: x=x+1 must not loop
        self.tokens = self._tokenize()
        self.index = 0

    def _tokenize(self) -> list[tuple[str, str]]:
        tokens: list[tuple[str, str]] = []
        text = self.expression
        pos = len(text) - len(text.lstrip())
        while pos < len(text):
            match = _TOKEN.match(text, pos)
            if match is None:
                raise self.failure(f"unexpected '{text[pos]}'")
            kind = match.lastgroup or "op"
            text_of = match.group(kind)
            pos = match.end()
            if kind == "name" and text.startswith("[", pos):  # an array element: a[EXPR]
                end = _closing_bracket(text, pos)
                if end < 0:
                    raise self.failure("missing ]")
                text_of, pos = text[match.start(kind) : end + 1], end + 1
            tokens.append((kind, text_of))
            pos += len(text[pos:]) - len(text[pos:].lstrip())
        return tokens

    def failure(self, reason: str) -> ArithmeticFailure:
        return ArithmeticFailure(f"{self.expression}: {reason}")

    def run(self, *, live: bool = True) -> int:
        if not self.tokens:
            return 0
        value = self.comma(live=live)
        if self.index < len(self.tokens):
            raise self.unexpected()
        return value

    # -- token stream ------------------------------------------------------------------
    def peek(self) -> str | None:
        return self.tokens[self.index][1] if self.index < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        if self.index >= len(self.tokens):
            raise self.unexpected()
        token = self.tokens[self.index]
        self.index += 1
        return token

    def unexpected(self) -> ArithmeticFailure:
        if self.index >= len(self.tokens):
            return self.failure("unexpected 'end of expression'")
        return self.failure(f"unexpected '{self.tokens[self.index][1]}'")

    # -- grammar -----------------------------------------------------------------------
    def comma(self, *, live: bool) -> int:
        value = self.assignment(live=live)
        while self.peek() == ",":
            self.index += 1
            value = self.assignment(live=live)
        return value

    def assignment(self, *, live: bool) -> int:
        if (
            self.index + 1 < len(self.tokens)
            and self.tokens[self.index][0] == "name"
            and self.tokens[self.index + 1][1] in _ASSIGNMENTS
        ):
            name = self.take()[1]
            operator = self.take()[1]
            right = self.assignment(live=live)
            if operator != "=":
                right = self.apply(operator[:-1], self.variable(name, live=live), right, live=live)
            if live:
                self.store(name, right)
            return right
        return self.ternary(live=live)

    def ternary(self, *, live: bool) -> int:
        condition = self.binary(0, live=live)
        if self.peek() != "?":
            return condition
        self.index += 1
        if_true = self.assignment(live=live and condition != 0)
        if self.peek() != ":":
            raise self.failure("missing :")
        self.index += 1
        if_false = self.assignment(live=live and condition == 0)
        return if_true if condition else if_false

    def binary(self, level: int, *, live: bool) -> int:
        if level == len(_BINARY):
            return self.unary(live=live)
        left = self.binary(level + 1, live=live)
        while self.peek() in _BINARY[level]:
            operator = self.take()[1]
            if operator == "&&":
                right = self.binary(level + 1, live=live and left != 0)
                left = int(left != 0 and right != 0)
            elif operator == "||":
                right = self.binary(level + 1, live=live and left == 0)
                left = int(left != 0 or right != 0)
            else:
                left = self.apply(operator, left, self.binary(level + 1, live=live), live=live)
        return left

    def unary(self, *, live: bool) -> int:
        operator = self.peek()
        if operator in ("+", "-", "!", "~"):
            self.index += 1
            value = self.unary(live=live)
            results = {"+": value, "-": -value, "!": int(value == 0), "~": ~value}
            return _int32(results[operator])
        if operator in ("++", "--"):
            self.index += 1
            kind, name = self.take()
            if kind != "name":
                raise self.failure(f"{operator} requires lvalue")
            value = _int32(self.variable(name, live=live) + (1 if operator == "++" else -1))
            if live:
                self.store(name, value)
            return value
        return self.postfix(live=live)

    def postfix(self, *, live: bool) -> int:
        kind, text = self.take()
        if kind == "num":
            return self.number(text)
        if kind == "name":
            value = self.variable(text, live=live)
            if self.peek() in ("++", "--"):
                step = 1 if self.take()[1] == "++" else -1
                if live:
                    self.store(text, _int32(value + step))
            return value
        if text == "(":
            value = self.comma(live=live)
            if self.peek() != ")":
                raise self.failure("missing )")
            self.index += 1
            return value
        self.index -= 1
        raise self.unexpected()

    # -- values ------------------------------------------------------------------------
    def number(self, text: str) -> int:
        try:
            if "#" in text:
                base, digits = text.split("#", 1)
                return _int32(int(digits, int(base)))
            if text[:2].lower() == "0x":
                return _int32(int(text[2:], 16))
            return _int32(int(text, 10))
        except ValueError:
            reason = "bad number" if text == self.expression.strip() else f"bad number '{text}'"
            raise self.failure(reason) from None

    def _element(self, name: str, *, live: bool = True) -> tuple[str, int | None]:
        """`a[EXPR]` as the array's name and the index; a plain name and None. mksh expands
        the subscript first, even one met in a variable's value: `x='a[$(cmd)]'; ((x))`
        runs cmd (not in a branch `&&`, `||` or `?:` skips)."""
        if not name.endswith("]"):
            return name, None
        base, _, subscript = name[:-1].partition("[")
        if "$" in subscript or "`" in subscript:
            if not live:
                return base, 0
            subscript = self.variables.expand_subscript(subscript)
        return base, _Evaluator(subscript, self.variables, self.active).run()

    def store(self, name: str, value: int) -> None:
        base, index = self._element(name)
        if index is None:
            self.variables.set_var(base, str(value))
        else:
            self.variables.set_element(base, index, str(value))

    def variable(self, name: str, *, live: bool) -> int:
        base, index = self._element(name, live=live)
        raw = self.variables.get_var(base) if index is None else self.variables.element(base, index)
        value = (raw or "").strip()
        if not value:
            return 0
        if name in self.active or len(self.active) >= _MAX_DEPTH:
            raise self.failure(f"expression recurses on parameter '{name}'")
        return _Evaluator(value, self.variables, self.active | {name}).run(live=live)

    def apply(self, operator: str, left: int, right: int, *, live: bool) -> int:
        if operator in ("/", "%"):
            if right == 0:
                if live:
                    raise self.failure("zero divisor")
                return left
            quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)
            return _int32(quotient if operator == "/" else left - right * quotient)
        results = {
            "*": lambda: left * right,
            "+": lambda: left + right,
            "-": lambda: left - right,
            "<<": lambda: left << (right & 31),
            ">>": lambda: left >> (right & 31),
            "&": lambda: left & right,
            "^": lambda: left ^ right,
            "|": lambda: left | right,
            "==": lambda: int(left == right),
            "!=": lambda: int(left != right),
            "<": lambda: int(left < right),
            "<=": lambda: int(left <= right),
            ">": lambda: int(left > right),
            ">=": lambda: int(left >= right),
        }
        return _int32(results[operator]())
