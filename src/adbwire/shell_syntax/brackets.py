"""Finding where a `${…}`, a `$(…)` or a double-quoted string ends, past nested quotes
and expansions, without tokenising what is inside."""

from __future__ import annotations

from adbwire.shell_syntax.words import ShellSyntaxError

__all__ = ["find_closing_brace", "find_closing_paren"]


def find_closing_brace(src: str, start: int) -> int:
    """Index of the `}` that closes a `${` whose inside starts at `start`."""
    i = start
    while i < len(src):
        ch = src[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "'":
            end = src.find("'", i + 1)
            if end < 0:
                break
            i = end + 1
            continue
        if ch == '"':
            i = _skip_double(src, i + 1)
            continue
        if src.startswith("${", i):
            i = find_closing_brace(src, i + 2) + 1
            continue
        if src.startswith("$(", i):
            i = find_closing_paren(src, i + 2) + 1
            continue
        if ch == "}":
            return i
        i += 1
    raise ShellSyntaxError("missing '}'", incomplete=True)


def find_closing_paren(src: str, start: int) -> int:
    """Index of the `)` that closes a `$(` whose body starts at `start`."""
    depth = 1
    i = start
    while i < len(src):
        ch = src[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "'":
            end = src.find("'", i + 1)
            if end < 0:
                break
            i = end + 1
            continue
        if ch == '"':
            i = _skip_double(src, i + 1)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ShellSyntaxError("missing ')'", incomplete=True)


def _skip_double(src: str, i: int) -> int:
    while i < len(src):
        ch = src[i]
        if ch == "\\":
            i += 2
        elif ch == '"':
            return i + 1
        elif src.startswith("$(", i):
            i = find_closing_paren(src, i + 2) + 1
        else:
            i += 1
    raise ShellSyntaxError("no closing quote", incomplete=True)
