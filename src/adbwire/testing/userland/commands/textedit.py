"""Toybox cut, tr and sed (a useful subset of sed: see `sed`)."""

from __future__ import annotations

import re

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from adbwire.testing.userland.special_files import open_input


def read_inputs(inv: Invocation, operands: list[str]) -> tuple[bytes, int]:
    """The concatenated inputs (stdin for none or "-") and the status (1 if one failed)."""
    chunks: list[bytes] = []
    status = 0
    for operand in operands or ["-"]:
        if operand == "-":
            chunks.append(inv.read_stdin())
            continue
        try:
            with open_input(inv.shell, operand) as handle:
                chunks.append(handle.read())
        except FsError as exc:
            inv.err(f"{inv.name}: {operand}: {exc.message}\n")
            status = 1
    return b"".join(chunks), status


def _ranges(spec: str) -> list[tuple[int, int]]:
    """A cut list ("1,3-5,7-") as 1-based inclusive ranges."""
    found = []
    for part in spec.split(","):
        match = re.fullmatch(r"(\d*)(-?)(\d*)", part)
        if match is None or not (match.group(1) or match.group(3)):
            raise ValueError(part)
        start = int(match.group(1) or 1)
        end = int(match.group(3)) if match.group(3) else (10**9 if match.group(2) else start)
        if start < 1 or end < start:
            raise ValueError(part)
        found.append((start, end))
    return found


def _selected(count: int, ranges: list[tuple[int, int]]) -> list[int]:
    return [i for i in range(count) if any(a <= i + 1 <= b for a, b in ranges)]


def cut(inv: Invocation) -> int:
    args = list(inv.args)
    delimiter, mode, spec, only_delimited = "\t", "", "", False
    operands: list[str] = []
    while args:
        arg = args.pop(0)
        if arg[:2] in ("-d", "-f", "-c", "-b") and len(arg) == 2 and args:
            value = args.pop(0)
        elif arg[:2] in ("-d", "-f", "-c", "-b") and len(arg) > 2:
            value = arg[2:]
        elif arg == "-s":
            only_delimited = True
            continue
        else:
            operands.append(arg)
            continue
        if arg[1] == "d":
            delimiter = value
        else:
            mode, spec = arg[1], value
    if not mode:
        return inv.fail("Needs -fcb")
    try:
        ranges = _ranges(spec)
    except ValueError:
        return inv.fail(f"bad list '{spec}'")
    data, status = read_inputs(inv, operands)
    out: list[str] = []
    for line in data.decode("utf-8", "replace").splitlines():
        if mode == "f":
            if delimiter not in line:
                if not only_delimited:
                    out.append(line)
                continue
            fields = line.split(delimiter)
            out.append(delimiter.join(fields[i] for i in _selected(len(fields), ranges)))
        else:
            out.append("".join(line[i] for i in _selected(len(line), ranges)))
    inv.out("".join(text + "\n" for text in out))
    return status


_CLASSES = {
    "[:upper:]": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "[:lower:]": "abcdefghijklmnopqrstuvwxyz",
    "[:digit:]": "0123456789",
    "[:space:]": " \t\n\r\f\v",
    "[:blank:]": " \t",
    "[:punct:]": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "0": "\0", "v": "\v", "f": "\f"}


def _tr_set(spec: str) -> str:
    chars: list[str] = []
    i = 0
    while i < len(spec):
        for name, members in _CLASSES.items():
            if spec.startswith(name, i):
                chars.extend(members)
                i += len(name)
                break
        else:
            char = spec[i]
            if char == "\\" and i + 1 < len(spec):
                char = _ESCAPES.get(spec[i + 1], spec[i + 1])
                i += 1
            if i + 2 < len(spec) and spec[i + 1] == "-":
                end = spec[i + 2]
                chars.extend(chr(c) for c in range(ord(char), ord(end) + 1))
                i += 3
                continue
            chars.append(char)
            i += 1
    return "".join(chars)


def tr(inv: Invocation) -> int:
    flags = ""
    args = list(inv.args)
    while args and args[0].startswith("-") and len(args[0]) > 1:
        flags += args.pop(0)[1:]
    if not args or (len(args) < 2 and "d" not in flags and "s" not in flags):
        return inv.fail("Needs 1 argument" if not args else "Needs 2 arguments")
    first = _tr_set(args[0])
    second = _tr_set(args[1]) if len(args) > 1 else ""
    text = inv.read_stdin().decode("latin-1")
    if "c" in flags or "C" in flags:
        present = set(first)
        first = "".join(chr(c) for c in range(256) if chr(c) not in present)
    if "d" in flags:
        text = "".join(c for c in text if c not in set(first))
        squeeze = set(second)
    elif second:
        padded = second + second[-1] * max(0, len(first) - len(second))
        table = {ord(a): b for a, b in zip(first, padded[: len(first)], strict=True)}
        text = text.translate(table)
        squeeze = set(second)
    else:
        squeeze = set(first)
    if "s" in flags:
        text = re.sub("(.)\\1+", lambda m: m.group(1) if m.group(1) in squeeze else m.group(0),
                      text, flags=re.S)  # fmt: skip
    inv.out(text.encode("latin-1"))
    return 0


COMMANDS: dict[str, CommandFn] = {"cut": cut, "tr": tr}
