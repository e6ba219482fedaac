r"""toybox printf: the format is reused until the arguments are used up.

Escapes in the format: `\\ \a \b \e \f \n \r \t \v \" \'`, octal `\NNN` (1-3 digits),
hex `\xHH` (1-2 digits); `\c` ends all output. Conversions `%d %i %o %u %x %X` (numbers as
C's strtoll base 0 reads them: `0x1F`, `010` octal, `'A` a character's code), `%f %F %e
%E %g %G`, `%s`, `%c`, `%b` (the argument's escapes; octal there is `\0NNN`), `%%`, with
flags `-+ #0`, width and precision, `*` taking either from the arguments. An argument that
is not wholly a number prints what its start reads as and `printf: invalid arg 'X'`
(exit 1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from adbwire.testing.userland.shell.invocation import Invocation

__all__ = ["format_printf", "printf"]

_SPEC = re.compile(r"%([-+ #0']*)(\*|\d*)(?:\.(\*|\d*))?([diouxXfFeEgGscb%])?")
_SIMPLE = {
    "\\": "\\", "a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", '"': '"', "'": "'",
}  # fmt: skip
_INTEGER = re.compile(r"\s*[-+]?(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")
_FLOAT = re.compile(r"\s*[-+]?(\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf|nan)", re.I)


class _Stop(Exception):
    r"""`\c`: no further output (but `tail`, what came before it in a `%b` argument)."""

    def __init__(self, tail: str = "") -> None:
        super().__init__(tail)
        self.tail = tail


@dataclass
class _Run:
    args: list[str]
    errors: list[str] = field(default_factory=list)
    used: int = 0

    def next(self) -> str | None:
        if self.used >= len(self.args):
            return None
        self.used += 1
        return self.args[self.used - 1]


def _escape(text: str, i: int, out: list[str], *, in_argument: bool) -> int:
    """The escape after the backslash at text[i-1]; the index after it."""
    ch = text[i : i + 1]
    if ch == "c":
        raise _Stop
    if ch == "x":
        digits = re.match(r"[0-9a-fA-F]{1,2}", text[i + 1 :])
        if digits:
            out.append(chr(int(digits.group(), 16)))
            return i + 1 + len(digits.group())
    start = i + 1 if in_argument and ch == "0" else i
    digits = re.match(r"[0-7]{1,3}", text[start:])
    if digits:
        out.append(chr(int(digits.group(), 8) & 0xFF))
        return start + len(digits.group())
    if ch in _SIMPLE:
        out.append(_SIMPLE[ch])
        return i + 1
    out.append("\\")  # an unknown escape prints the backslash, then the character
    return i


def _unescaped(text: str) -> tuple[str, bool]:
    r"""A `%b` argument with its escapes; whether a `\c` ended it."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            try:
                i = _escape(text, i + 1, out, in_argument=True)
            except _Stop:
                return "".join(out), True
        else:
            out.append(text[i])
            i += 1
    return "".join(out), False


def _integer(run: _Run, text: str) -> int:
    if text[:1] in ("'", '"'):
        return ord(text[1]) if len(text) > 1 else 0
    match = _INTEGER.match(text)
    if match is None or match.end() != len(text):
        if text.strip():
            run.errors.append(f"invalid arg '{text}'")
        if match is None:
            return 0
    digits = match.group().strip()
    sign = -1 if digits.startswith("-") else 1
    digits = digits.lstrip("+-")
    if digits[:2].lower() == "0x":
        return sign * int(digits[2:], 16)
    return sign * (int(digits, 8) if digits.startswith("0") and len(digits) > 1 else int(digits))


def _float(run: _Run, text: str) -> float:
    match = _FLOAT.match(text)
    if match is None or match.end() != len(text):
        if text.strip():
            run.errors.append(f"invalid arg '{text}'")
        if match is None:
            return 0.0
    return float(match.group())


def _conversion(run: _Run, spec: re.Match[str]) -> str:
    flags, width, precision, conv = spec.groups()
    if conv == "%":
        return "%"
    flags = flags.replace("'", "")
    if width == "*":
        width = str(_integer(run, run.next() or ""))
    if precision == "*":
        precision = str(max(_integer(run, run.next() or ""), 0))
    if width.startswith("-"):
        flags, width = flags + "-", width[1:]
    head = "%" + flags + width + ("" if precision is None else "." + (precision or "0"))
    value = run.next()
    text = "" if value is None else value
    if conv == "b":
        unescaped, stopped = _unescaped(text)
        if stopped:
            raise _Stop((head + "s") % unescaped)
        return (head + "s") % unescaped
    if conv == "c":  # C's putchar of the first byte: a NUL for an empty argument
        return (head + "s") % (text[:1] or "\0")
    if conv == "s":
        return (head + "s") % text
    if conv in "fFeEgG":
        return (head + conv) % _float(run, text)
    number = _integer(run, text)
    if conv in "ouxX" and number < 0:
        number += 1 << 64
    if conv == "o" and "#" in flags:  # C's alternate octal is one leading 0, not 0o
        digits = ("%" + ("." + precision if precision else "") + "o") % number
        digits = digits if digits.startswith("0") else "0" + digits
        return ("%" + flags.replace("#", "").replace("0", "") + width + "s") % digits
    return (head + ("d" if conv in "iu" else conv)) % number


def _format(fmt: str, run: _Run, out: list[str]) -> None:
    i = 0
    while i < len(fmt):
        ch = fmt[i]
        if ch == "\\" and i + 1 < len(fmt):
            i = _escape(fmt, i + 1, out, in_argument=False)
        elif ch == "%":
            spec = _SPEC.match(fmt, i)
            if spec is None or spec.group(4) is None:
                raise ValueError(f"bad %{fmt[i + 1 : i + 2]}")
            out.append(_conversion(run, spec))
            i = spec.end()
        else:
            out.append(ch)
            i += 1


def _render(fmt: str, args: list[str]) -> tuple[str, list[str]]:
    out: list[str] = []
    run = _Run(args)
    try:
        while True:
            before = run.used
            _format(fmt, run, out)
            if run.used >= len(args) or run.used == before:
                break
    except _Stop as stop:
        out.append(stop.tail)
    return "".join(out), run.errors


def format_printf(fmt: str, args: list[str]) -> str:
    """printf(1)'s output for a format and its arguments (errors left out)."""
    try:
        return _render(fmt, args)[0]
    except ValueError:
        return ""


def printf(inv: Invocation) -> int:
    if not inv.args:
        return inv.fail("Need 1 argument")
    try:
        text, errors = _render(inv.args[0], inv.args[1:])
    except ValueError as exc:
        return inv.fail(str(exc))
    inv.out(text)
    for error in errors:
        inv.err(f"printf: {error}\n")
    return 1 if errors else 0
