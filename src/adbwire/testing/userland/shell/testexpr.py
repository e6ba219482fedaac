"""`test` and `[`, mksh's built-ins, and `[[ … ]]`: unary file and string tests, binary comparisons,
`!`, `-a`, `-o` and parentheses, with mksh's precedence (`!` over `-a` over `-o`) and
its errors (exit 2): `[: missing ]`, `test: X: unexpected operator/operand`,
`test: -gt: missing second argument`, `test: missing )`.

`[[ … ]]` takes `&&`, `||` for `-a`, `-o`, expands its words without splitting or globbing,
and matches the right side of `==`/`=`/`!=` as a pattern (its quoted parts literally).
Numeric operands are arithmetic expressions, as mksh reads them (`[ 2 -eq 1+1 ]`).
`-r` and `-w` are true for any file that exists (the simulated device checks no
permission for reading); `-t FD` is true only in a session with a terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from adbwire.shell_syntax.words import Word
from adbwire.testing.device_files import FsError
from adbwire.testing.userland.process import Streams
from adbwire.testing.userland.shell.arith import ArithmeticFailure, evaluate
from adbwire.testing.userland.shell.builtins import SHELL_PATH
from adbwire.testing.userland.shell.expand import expand_single, matches

if TYPE_CHECKING:
    from adbwire.testing.device_files import FileStat
    from adbwire.testing.userland.shell.interp import Shell

__all__ = ["double_bracket", "test"]

_FILE_TYPE = 0o170000
_TYPES = {
    "-f": 0o100000,
    "-d": 0o040000,
    "-L": 0o120000,
    "-h": 0o120000,
    "-b": 0o060000,
    "-c": 0o020000,
    "-p": 0o010000,
    "-S": 0o140000,
}
_MODE_BITS = {"-u": 0o4000, "-g": 0o2000, "-k": 0o1000, "-x": 0o111}
_UNARY = frozenset({*_TYPES, *_MODE_BITS, "-e", "-s", "-r", "-w", "-O", "-G", "-z", "-n", "-t"})
_NUMERIC: dict[str, Callable[[int, int], bool]] = {
    "-eq": int.__eq__,
    "-ne": int.__ne__,
    "-lt": int.__lt__,
    "-le": int.__le__,
    "-gt": int.__gt__,
    "-ge": int.__ge__,
}
_BINARY = frozenset({"=", "==", "!=", "<", ">", "-nt", "-ot", "-ef", *_NUMERIC})


class _TestError(Exception):
    """A malformed expression; the message follows `test: `."""


def test(shell: Shell, argv: list[str], streams: Streams) -> int:
    name = argv[0].rsplit("/", 1)[-1]
    args = argv[1:]
    if name == "[":
        if not args or args[-1] != "]":
            streams.stderr.write(f"{SHELL_PATH}: [: missing ]\n".encode())
            return 2
        args = args[:-1]
    try:
        return 0 if _Evaluator(shell, args).run() else 1
    except _TestError as exc:
        streams.stderr.write(f"{SHELL_PATH}: {name}: {exc}\n".encode())
    except _BadNumber as exc:
        streams.stderr.write(f"{SHELL_PATH}: {exc}: bad number: Invalid argument\n".encode())
    return 2


class _BadNumber(Exception):
    pass


class _Evaluator:
    def __init__(self, shell: Shell, args: list[str]) -> None:
        self.shell = shell
        self.args = args
        self.i = 0

    def run(self) -> bool:
        if not self.args:
            return False
        value = self.disjunction()
        if self.i < len(self.args):
            raise _TestError(f"{self.args[self.i]}: unexpected operator/operand")
        return value

    def peek(self, offset: int = 0) -> str | None:
        index = self.i + offset
        return self.args[index] if index < len(self.args) else None

    def disjunction(self) -> bool:
        value = self.conjunction()
        while self.peek() == "-o" and self.peek(1) is not None:
            self.i += 1
            value = self.conjunction() or value
        return value

    def conjunction(self) -> bool:
        value = self.negation()
        while self.peek() == "-a" and self.peek(1) is not None:
            self.i += 1
            value = self.negation() and value
        return value

    def negation(self) -> bool:
        if self.peek() == "!" and self.peek(1) is not None:
            self.i += 1
            return not self.negation()
        return self.primary()

    def primary(self) -> bool:
        word = self.peek()
        assert word is not None
        following = self.peek(1)
        if word == "(" and following is not None and following not in _BINARY:
            self.i += 1
            value = self.disjunction()
            if self.peek() != ")":
                raise _TestError("missing )")
            self.i += 1
            return value
        if following in _BINARY:
            right = self.peek(2)
            if right is None:
                raise _TestError(f"{following}: missing second argument")
            self.i += 3
            return self.binary(word, following, right)
        if word in _UNARY and following is not None:
            self.i += 2
            return self.unary(word, following)
        if following is not None and following not in ("-a", "-o", ")"):
            raise _TestError(f"{following}: unexpected operator/operand")
        self.i += 1
        return word != ""

    def unary(self, op: str, operand: str) -> bool:
        if op in ("-z", "-n"):
            return (operand == "") == (op == "-z")
        if op == "-t":
            return operand.strip() in ("0", "1", "2") and self.shell.pty
        found = self.stat(operand, follow=op not in ("-L", "-h"))
        if found is None:
            return False
        if op in _TYPES:
            return found.mode & _FILE_TYPE == _TYPES[op]
        if op in _MODE_BITS:
            return bool(found.mode & _MODE_BITS[op])
        if op == "-s":
            return found.size > 0
        if op == "-O":
            return found.uid == self.shell.host.user_id()
        if op == "-G":
            return found.gid == self.shell.host.user_id()
        return True  # -e, -r, -w

    def binary(self, left: str, op: str, right: str) -> bool:
        if op in ("=", "=="):
            return left == right
        if op == "!=":
            return left != right
        if op == "<":
            return left < right
        if op == ">":
            return left > right
        if op in _NUMERIC:
            return _NUMERIC[op](self.number(left), self.number(right))
        first, second = self.stat(left), self.stat(right)
        if op == "-ef":
            return (
                first is not None
                and second is not None
                and (first.dev, first.ino) == (second.dev, second.ino)
            )
        if op == "-nt":
            return first is not None and (second is None or first.mtime > second.mtime)
        return second is not None and (first is None or first.mtime < second.mtime)  # -ot

    def number(self, text: str) -> int:
        try:
            return evaluate(text, self.shell) if text.strip() else 0
        except ArithmeticFailure as exc:
            raise _BadNumber(text) from exc

    def stat(self, path: str, *, follow: bool = True) -> FileStat | None:
        from adbwire.testing.userland.special_files import stat_path  # noqa: PLC0415

        if not path:
            return None
        try:
            return stat_path(self.shell, self.shell.file_path(path), follow=follow)
        except FsError:
            return None


def double_bracket(shell: Shell, items: list[Word | str], streams: Streams) -> int:
    try:
        return 0 if _DoubleBracket(shell, items).run() else 1
    except _TestError as exc:
        streams.stderr.write(f"{SHELL_PATH}: [[: {exc}\n".encode())
    except _BadNumber as exc:
        streams.stderr.write(f"{SHELL_PATH}: {exc}: bad number: Invalid argument\n".encode())
    return 2


class _DoubleBracket:
    """`[[ … ]]`: the same tests, with `&&`/`||` and patterns on the right of `==`."""

    def __init__(self, shell: Shell, items: list[Word | str]) -> None:
        self.tests = _Evaluator(shell, [])
        self.shell = shell
        self.items = items
        self.i = 0

    def run(self) -> bool:
        value = self.disjunction()
        if self.i < len(self.items):
            raise _TestError(f"{self.text(self.i)}: unexpected operator/operand")
        return value

    def text(self, index: int) -> str | None:
        """An operator's text, or a word's literal text (operators are unquoted words)."""
        if index >= len(self.items):
            return None
        item = self.items[index]
        return item if isinstance(item, str) else item.literal()

    def value(self, index: int) -> str:
        item = self.items[index]
        return item if isinstance(item, str) else expand_single(self.shell, item)

    def disjunction(self) -> bool:
        value = self.conjunction()
        while self.text(self.i) in ("||", "-o"):
            self.i += 1
            value = self.conjunction() or value
        return value

    def conjunction(self) -> bool:
        value = self.negation()
        while self.text(self.i) in ("&&", "-a"):
            self.i += 1
            value = self.negation() and value
        return value

    def negation(self) -> bool:
        if self.text(self.i) == "!":
            self.i += 1
            return not self.negation()
        return self.primary()

    def primary(self) -> bool:
        word = self.text(self.i)
        if self.i >= len(self.items):
            raise _TestError("missing expression")
        if word == "(":
            self.i += 1
            value = self.disjunction()
            if self.text(self.i) != ")":
                raise _TestError("missing )")
            self.i += 1
            return value
        operator = self.text(self.i + 1)
        if operator in _BINARY and self.i + 2 < len(self.items):
            left = self.value(self.i)
            right = self.items[self.i + 2]
            self.i += 3
            if operator in ("=", "==", "!=") and isinstance(right, Word):
                return matches(self.shell, right, left) == (operator != "!=")
            return self.tests.binary(left, operator, self.value(self.i - 1))
        if word in _UNARY and self.i + 1 < len(self.items):
            self.i += 2
            return self.tests.unary(word, self.value(self.i - 1))
        self.i += 1
        return self.value(self.i - 1) != ""
