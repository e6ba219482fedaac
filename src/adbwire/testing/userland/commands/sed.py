"""Toybox sed, a useful subset: -n, -e, -f, -i[SUFFIX], -E/-r; commands s (flags g, p, N,
I), p, d, q, =, y; addresses N, $, /RE/ and ranges A,B, with `!`. Basic regular expressions
are translated to Python's (\\( \\) \\{ \\} \\+ \\? \\| special, their bare forms literal).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.commands.textedit import read_inputs
from adbwire.testing.userland.shell.interp import CommandFn, Invocation

_POSIX_CLASSES = {
    "[:digit:]": "0-9",
    "[:alpha:]": "a-zA-Z",
    "[:alnum:]": "a-zA-Z0-9",
    "[:upper:]": "A-Z",
    "[:lower:]": "a-z",
    "[:space:]": " \\t\\n\\r\\f\\v",
    "[:blank:]": " \\t",
    "[:xdigit:]": "0-9A-Fa-f",
    "[:punct:]": "!-/:-@\\[-`{-~",
}


class SedError(Exception):
    pass


def translate_regex(pattern: str, extended: bool) -> str:
    """A POSIX BRE (or ERE) as a Python regular expression."""
    for name, members in _POSIX_CLASSES.items():
        pattern = pattern.replace(name, members)
    if extended:
        return pattern
    out: list[str] = []
    i = 0
    in_bracket = False
    while i < len(pattern):
        char = pattern[i]
        if in_bracket:
            out.append(char)
            if char == "]":
                in_bracket = False
            i += 1
            continue
        if char == "[":
            in_bracket = True
            out.append(char)
            if pattern[i + 1 : i + 2] == "^":
                out.append("^")
                i += 1
            if pattern[i + 1 : i + 2] == "]":
                out.append("\\]")
                i += 1
            i += 1
            continue
        if char == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(nxt if nxt in "(){}+?|" else "\\" + nxt)
            i += 2
            continue
        out.append("\\" + char if char in "(){}+?|" else char)
        i += 1
    return "".join(out)


@dataclass
class _Address:
    line: int | None = None
    last: bool = False
    regex: re.Pattern[str] | None = None

    def matches(self, number: int, is_last: bool, text: str) -> bool:
        if self.last:
            return is_last
        if self.regex is not None:
            return self.regex.search(text) is not None
        return number == self.line


@dataclass
class _Command:
    start: _Address | None
    end: _Address | None
    negate: bool
    name: str
    regex: re.Pattern[str] | None = None
    replacement: str = ""
    count: int = 1
    every: bool = False
    print_after: bool = False
    source: str = ""
    dest: str = ""
    active: bool = False


class _ScriptParser:
    def __init__(self, text: str, extended: bool) -> None:
        self.text = text
        self.pos = 0
        self.extended = extended

    def parse(self) -> list[_Command]:
        commands: list[_Command] = []
        while True:
            self._skip(" \t\n;")
            if self.pos >= len(self.text):
                return commands
            commands.append(self._command())

    def _skip(self, chars: str) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in chars:
            self.pos += 1

    def _peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def _address(self) -> _Address | None:
        char = self._peek()
        if char.isdigit():
            start = self.pos
            while self._peek().isdigit():
                self.pos += 1
            return _Address(line=int(self.text[start : self.pos]))
        if char == "$":
            self.pos += 1
            return _Address(last=True)
        if char in ("/", "\\"):
            if char == "\\":
                self.pos += 1
            delimiter = self._peek()
            self.pos += 1
            return _Address(regex=self._regex(self._delimited(delimiter), ""))
        return None

    def _delimited(self, delimiter: str) -> str:
        out: list[str] = []
        while True:
            if self.pos >= len(self.text):
                raise SedError("unterminated expression")
            char = self.text[self.pos]
            self.pos += 1
            if char == delimiter:
                return "".join(out)
            if char == "\\" and self.pos < len(self.text):
                nxt = self.text[self.pos]
                self.pos += 1
                out.append(nxt if nxt == delimiter else ("\n" if nxt == "n" else "\\" + nxt))
                continue
            out.append(char)

    def _regex(self, pattern: str, flags: str) -> re.Pattern[str]:
        try:
            return re.compile(
                translate_regex(pattern, self.extended), re.IGNORECASE if "I" in flags else 0
            )
        except re.error as exc:
            raise SedError(f"bad regex '{pattern}': {exc}") from exc

    def _command(self) -> _Command:
        start = self._address()
        end = None
        if start is not None and self._peek() == ",":
            self.pos += 1
            end = self._address()
            if end is None:
                raise SedError("unexpected ','")
        self._skip(" \t")
        negate = self._peek() == "!"
        if negate:
            self.pos += 1
            self._skip(" \t")
        name = self._peek()
        self.pos += 1
        command = _Command(start, end, negate, name)
        if name == "s":
            delimiter = self._peek()
            self.pos += 1
            pattern = self._delimited(delimiter)
            command.replacement = self._delimited(delimiter)
            flags = ""
            while self._peek() and self._peek() not in ";\n}":
                flags += self._peek()
                self.pos += 1
            flags = flags.strip()
            command.regex = self._regex(pattern, flags)
            command.every = "g" in flags
            command.print_after = "p" in flags
            digits = "".join(c for c in flags if c.isdigit())
            command.count = int(digits) if digits else 1
        elif name == "y":
            delimiter = self._peek()
            self.pos += 1
            command.source = self._delimited(delimiter)
            command.dest = self._delimited(delimiter)
            if len(command.source) != len(command.dest):
                raise SedError("y: strings differ in length")
        elif name not in ("p", "d", "q", "=", "P", "Q"):
            raise SedError(f"Unknown command '{name}'" if name else "no command")
        return command


def _expand_replacement(template: str, match: re.Match[str]) -> str:
    out: list[str] = []
    i = 0
    while i < len(template):
        char = template[i]
        if char == "\\" and i + 1 < len(template):
            nxt = template[i + 1]
            if nxt.isdigit():
                out.append(match.group(int(nxt)) or "")
            else:
                out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            i += 2
            continue
        out.append(match.group(0) if char == "&" else char)
        i += 1
    return "".join(out)


def _substitute(command: _Command, text: str) -> tuple[str, bool]:
    assert command.regex is not None
    seen = 0
    changed = False

    def one(match: re.Match[str]) -> str:
        nonlocal seen, changed
        seen += 1
        if seen == command.count or (command.every and seen >= command.count):
            changed = True
            return _expand_replacement(command.replacement, match)
        return match.group(0)

    return command.regex.sub(one, text), changed


def _selects(command: _Command, number: int, is_last: bool, text: str) -> bool:
    if command.start is None:
        return not command.negate
    if command.end is None:
        hit = command.start.matches(number, is_last, text)
    elif command.active:
        hit = True
        end = command.end
        if (end.line is not None and number >= end.line) or end.matches(number, is_last, text):
            command.active = False
    else:
        hit = command.start.matches(number, is_last, text)
        if hit:
            end = command.end
            ended = end.line is not None and end.line <= number
            command.active = not ended
    return hit != command.negate


def run_script(commands: list[_Command], text: str, quiet: bool) -> tuple[str, bool]:
    """Run the script over text; returns the output and whether `q` stopped it."""
    lines = text.split("\n")
    trailing_newline = text.endswith("\n")
    if trailing_newline:
        lines.pop()
    out: list[str] = []
    for index, original in enumerate(lines):
        line = original
        number, is_last = index + 1, index == len(lines) - 1
        deleted = False
        for command in commands:
            if not _selects(command, number, is_last, line):
                continue
            if command.name == "s":
                line, changed = _substitute(command, line)
                if changed and command.print_after:
                    out.append(line)
            elif command.name in ("p", "P"):
                out.append(line)
            elif command.name == "=":
                out.append(str(number))
            elif command.name == "y":
                line = line.translate(str.maketrans(command.source, command.dest))
            elif command.name == "d":
                deleted = True
                break
            elif command.name in ("q", "Q"):
                if not quiet and command.name == "q":
                    out.append(line)
                return "".join(item + "\n" for item in out), True
        if not deleted and not quiet:
            out.append(line)
    return "".join(item + "\n" for item in out), False


def sed(inv: Invocation) -> int:
    args = list(inv.args)
    scripts: list[str] = []
    quiet = extended = False
    in_place: str | None = None
    operands: list[str] = []
    while args:
        arg = args.pop(0)
        if arg in ("-e", "--expression") and args:
            scripts.append(args.pop(0))
        elif arg == "-f" and args:
            try:
                scripts.append(inv.device.files.read_bytes(inv.path(args.pop(0))).decode())
            except FsError as exc:
                return inv.fail(f"{exc.path}: {exc.message}")
        elif arg.startswith("-i"):
            in_place = arg[2:]
        elif arg in ("-n", "--quiet", "--silent"):
            quiet = True
        elif arg in ("-E", "-r", "--regexp-extended"):
            extended = True
        elif re.fullmatch(r"-[nEr]+", arg):
            quiet = quiet or "n" in arg
            extended = extended or "E" in arg or "r" in arg
        else:
            operands.append(arg)
    if not scripts:
        if not operands:
            return inv.fail("Need 1 argument")
        scripts.append(operands.pop(0))
    try:
        commands = _ScriptParser("\n".join(scripts), extended).parse()
    except SedError as exc:
        return inv.fail(str(exc))
    if in_place is not None:
        return _in_place(inv, commands, operands, quiet, in_place)
    data, status = read_inputs(inv, operands)
    output, _ = run_script(commands, data.decode("utf-8", "surrogateescape"), quiet)
    inv.out(output.encode("utf-8", "surrogateescape"))
    return status


def _in_place(
    inv: Invocation, commands: list[_Command], operands: list[str], quiet: bool, suffix: str
) -> int:
    files = inv.device.files
    status = 0
    for operand in operands:
        path = inv.path(operand)
        try:
            data = files.read_bytes(path)
            mode = files.stat(path).mode
            if suffix:
                files.write_file(path + suffix, data, mode)
            output, _ = run_script(commands, data.decode("utf-8", "surrogateescape"), quiet)
            files.write_file(path, output.encode("utf-8", "surrogateescape"), mode)
        except FsError as exc:
            inv.err(f"sed: {operand}: {exc.message}\n")
            status = 1
    return status


COMMANDS: dict[str, CommandFn] = {"sed": sed}
