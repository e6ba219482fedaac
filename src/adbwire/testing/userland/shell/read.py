"""`read`: one line of input split on $IFS into names, mksh's options and statuses."""

from __future__ import annotations

import functools
import re
import time
from typing import TYPE_CHECKING

from adbwire.testing.userland.process import Reader, Streams
from adbwire.testing.userland.shell import variables
from adbwire.testing.userland.shell.builtins import SHELL_PATH

if TYPE_CHECKING:
    from adbwire.testing.userland.shell.interp import Shell

__all__ = ["MAX_READ_LINE", "read_builtin"]

MAX_READ_LINE = 1 << 20
"""Bytes `read` takes for one line; the rest of a longer line is left unread."""
_TIMEOUT = re.compile(r"[0-9]*(?:\.[0-9]*)?")
_MAX_TIMEOUT = (1 << 63) - 1
_LONGEST_WAIT = 86400.0
"""`read -t`: what mksh accepts, its largest, and the longest the simulator waits."""


def read_builtin(shell: Shell, argv: list[str], streams: Streams) -> int:
    """`read [-r] [-d DELIM] [-n N|-N N] [-t SECONDS] [-u FD] [NAME…]`: one line (up to
    DELIM; at most N bytes, or exactly N with -N) split on $IFS, the last name taking the
    rest. Without -r a backslash keeps the next character (a blank does not split there)
    and a backslash-newline joins the next line. -t gives up after SECONDS with status 142
    (SIGALRM's), keeping what was read (on a pipe, a pty or the host's input);
    -u is accepted, not applied."""
    raw, values_of, names = _options(argv[1:])
    try:
        deadline = _deadline(values_of.get("t"))
    except ValueError as exc:
        text = values_of.get("t", "")
        streams.stderr.write(f"{SHELL_PATH}: read: syntax error: {exc} '{text}'\n".encode())
        return 2
    delimiter = (values_of.get("d", "\n") or "\0").encode()[:1]
    exact = "N" in values_of
    limit_text = values_of.get("N", values_of.get("n", ""))
    limit = int(limit_text) if limit_text.isdigit() else MAX_READ_LINE
    chars: list[tuple[str, bool]] = []  # (character, escaped)
    data = bytearray()
    ended = timed_out = False
    read = functools.partial(_read_byte, streams.stdin, deadline)
    while len(data) + len(chars) < min(limit, MAX_READ_LINE):
        byte = read()
        if byte is None:
            timed_out = True
            break
        if not byte:
            break
        if byte == b"\\" and not raw:
            escaped = read()
            if escaped == b"\n" or not escaped:
                timed_out = escaped is None
                continue
            chars.extend(_decoded(data))
            data.clear()
            chars.append((escaped.decode("latin-1"), True))
            continue
        if byte == delimiter and not exact:
            ended = True
            break
        data += byte
    chars.extend(_decoded(data))
    ended = ended or (limit < MAX_READ_LINE and bool(chars))  # -n/-N: any bytes read
    values = _split_fields(chars, len(names), shell.get_var("IFS"))
    for index, name in enumerate(names):
        try:
            variables.assign(shell, name, values[index] if index < len(values) else "")
        except variables.ReadOnlyError as exc:
            streams.stderr.write(f"{SHELL_PATH}: read: {exc}\n".encode())
            return 2
    if timed_out:
        return 128 + 14
    return 0 if ended else 1


def _options(args: list[str]) -> tuple[bool, dict[str, str], list[str]]:
    """-r, the options with a value (d n N t u), and the names (REPLY when none)."""
    raw = False
    values_of: dict[str, str] = {}
    while args and args[0].startswith("-") and len(args[0]) > 1 and args[0] != "--":
        flags = args.pop(0)[1:]
        for index, letter in enumerate(flags):
            if letter in "dnNtu":  # the rest of the word, or the next word, is its value
                values_of[letter] = flags[index + 1 :] or (args.pop(0) if args else "")
                break
            raw = raw or letter == "r"
    if args[:1] == ["--"]:
        args = args[1:]
    return raw, values_of, args or ["REPLY"]


def _deadline(text: str | None) -> float | None:
    """When `read -t` gives up (None: never). mksh reads only DIGITS[.DIGITS] (".5", "1."
    and "" too) up to 2^63-1 seconds; ValueError with its reason for anything else. The
    wait is clamped to a day: no test outlives that, and the shell's streams end sooner."""
    if text is None:
        return None
    if _TIMEOUT.fullmatch(text) is None:
        raise ValueError("Invalid argument")
    whole = text.partition(".")[0].lstrip("0")
    if len(whole) > len(str(_MAX_TIMEOUT)) or int(whole or "0") > _MAX_TIMEOUT:
        raise ValueError("Value too large for defined data type")
    seconds = min(float("0" + text), _LONGEST_WAIT)
    return time.monotonic() + seconds


def _read_byte(stdin: Reader, deadline: float | None) -> bytes | None:
    """One byte, b"" at the end, None once the deadline passed with nothing to read."""
    if deadline is None:
        return stdin.read(1)
    read_within = getattr(stdin, "read_within", None)
    if read_within is None:
        return stdin.read(1)
    chunk: bytes | None = read_within(1, max(deadline - time.monotonic(), 0.0))
    return chunk


def _decoded(data: bytearray) -> list[tuple[str, bool]]:
    return [(ch, False) for ch in data.decode("utf-8", "replace")]


def _split_fields(chars: list[tuple[str, bool]], count: int, ifs: str | None) -> list[str]:
    """Split on unescaped IFS delimiters into at most `count` fields; the last keeps the
    rest of the line (delimiters inside it included, trailing IFS blanks dropped)."""
    separators = " \t\n" if ifs is None else ifs
    blanks = "".join(ch for ch in separators if ch in " \t\n")

    def at(index: int, kinds: str) -> bool:
        return index < len(chars) and chars[index][0] in kinds and not chars[index][1]

    fields: list[str] = []
    index = 0
    while at(index, blanks):
        index += 1
    while index < len(chars):
        if len(fields) == count - 1:
            rest = chars[index:]
            while rest and rest[-1][0] in blanks and not rest[-1][1]:
                rest.pop()
            fields.append("".join(ch for ch, _ in rest))
            break
        start = index
        while index < len(chars) and not at(index, separators):
            index += 1
        fields.append("".join(ch for ch, _ in chars[start:index]))
        while at(index, blanks):
            index += 1
        if at(index, separators):
            index += 1
            while at(index, blanks):
                index += 1
    return fields
