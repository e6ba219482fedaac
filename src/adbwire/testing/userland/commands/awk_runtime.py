"""awk's values and its interpreter state: conversions, operators, records, variables.

`awk_parse` builds closures over a `Run`; `awk` (the command) drives it line by line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from adbwire.testing.userland.commands.basic import format_printf
from adbwire.testing.userland.shell.interp import Invocation

Value = str | float


class AwkError(Exception):
    pass


class NextRecord(Exception):
    pass


@dataclass
class Record:
    fields: list[str] = field(default_factory=list)
    line: str = ""


def to_number(value: Value) -> float:
    if isinstance(value, float):
        return value
    match = re.match(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", value)
    return float(match.group(0)) if match else 0.0


def to_text(value: Value) -> str:
    if isinstance(value, str):
        return value
    return str(int(value)) if value == int(value) else f"{value:.6g}"


def looks_numeric(value: Value) -> bool:
    return (
        isinstance(value, float) or re.fullmatch(r"\s*[-+]?(\d+\.?\d*|\.\d+)\s*", value) is not None
    )


def logic(
    left: Callable[[], Value], right: Callable[[], Value], *, either: bool
) -> Callable[[], Value]:
    if either:
        return lambda: float(truth(left()) or truth(right()))
    return lambda: float(truth(left()) and truth(right()))


def constant(value: Value) -> Callable[[], Value]:
    return lambda: value


def matcher(
    left: Callable[[], Value], right: Callable[[], Value], *, negate: bool
) -> Callable[[], Value]:
    def test() -> Value:
        found = re.search(to_text(right()), to_text(left())) is not None
        return float(found != negate)

    return test


def substr(args: list[Value]) -> Value:
    text = to_text(args[0])
    start = int(to_number(args[1])) if len(args) > 1 else 1
    length = int(to_number(args[2])) if len(args) > 2 else len(text)
    begin = max(start, 1)
    end = start + length
    return text[begin - 1 : max(end - 1, begin - 1)]


def truth(value: Value) -> bool:
    return value != 0.0 if isinstance(value, float) else value != ""


def compare(left: Value, op: str, right: Value) -> bool:
    pair: tuple[float, float] | tuple[str, str]
    if looks_numeric(left) and looks_numeric(right):
        pair = (to_number(left), to_number(right))
    else:
        pair = (to_text(left), to_text(right))
    a, b = pair
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[op]  # type: ignore[operator]


def arith(op: str, left: Callable[[], Value], right: Callable[[], Value]) -> Callable[[], Value]:
    def compute() -> Value:
        a, b = to_number(left()), to_number(right())
        if op in ("/", "%") and b == 0:
            raise AwkError("division by zero")
        return {"+": a + b, "-": a - b, "*": a * b}.get(op, a / b if op == "/" else a % b)

    return compute


class Run:
    def __init__(self, inv: Invocation, separator: str | None) -> None:
        self.inv = inv
        self.vars: dict[str, Value] = {"OFS": " ", "ORS": "\n", "FS": separator or " "}
        self.record = Record()
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
                new = arith(op[0], lambda: self.get(name), lambda: new)()
            self.vars[name] = new
            return new

        return store

    def increment(self, name: str, step: float) -> Callable[[], Value]:
        def bump() -> Value:
            old = to_number(self.get(name))
            self.vars[name] = old + step
            return old

        return bump

    def printer(self, word: str, args: list[Callable[[], Value]]) -> Callable[[], None]:
        def emit() -> None:
            values = [arg() for arg in args]
            if word == "printf":
                if values:
                    self.out(format_printf(to_text(values[0]), [to_text(v) for v in values[1:]]))
                return
            text = (
                to_text(self.vars["OFS"]).join(to_text(v) for v in values)
                if values
                else (self.record.line)
            )
            self.out(text + to_text(self.vars["ORS"]))

        return emit

    def split(self, line: str) -> None:
        separator = to_text(self.vars["FS"])
        if separator == " ":
            fields = line.split()
        elif len(separator) == 1:
            fields = line.split(separator)
        else:
            fields = re.split(separator, line)
        self.record = Record(fields, line)
