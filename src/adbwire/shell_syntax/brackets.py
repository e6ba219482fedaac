"""Finding where a `${…}`, a `$(…)` or a double-quoted string ends, and where an operand
of `${name/…/…}` or `${name:…:…}` stops, past nested quotes and expansions."""

from __future__ import annotations

from adbwire.shell_syntax.ansi_c import ansi_c_string
from adbwire.shell_syntax.words import ShellSyntaxError

__all__ = [
    "command_substitution_end",
    "find_closing_brace",
    "find_closing_paren",
    "split_operand",
]


def find_closing_brace(src: str, start: int) -> int:
    """Index of the `}` that closes a `${` whose inside starts at `start`."""
    i = start
    while i < len(src):
        skipped = _skip_escape_or_quote(src, i, nested=True)
        if skipped is not None:
            i = skipped
        elif src[i] == "}":
            return i
        else:
            i += 1
    raise ShellSyntaxError("missing '}'", incomplete=True)


def find_closing_paren(src: str, start: int) -> int:
    """Index of the `)` that closes a `$(` whose body starts at `start`."""
    depth = 1
    i = start
    while i < len(src):
        skipped = _skip_escape_or_quote(src, i, nested=False)
        if skipped is not None:
            i = skipped
            continue
        ch = src[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ShellSyntaxError("missing ')'", incomplete=True)


def _skip_escape_or_quote(src: str, i: int, *, nested: bool) -> int | None:
    """Past what starts at `i` if it is a backslash escape or a quoted string (and, when
    `nested`, a `${…}` or `$(…)`); None when it is none of those. An unclosed single
    quote is skipped to the end: the caller then reports its own missing bracket."""
    ch = src[i]
    if ch == "\\":
        return i + 2
    if src.startswith("$'", i):  # `\'` does not end it
        try:
            return ansi_c_string(src, i + 1)[1]
        except ShellSyntaxError:
            return len(src)
    if ch == "'":
        end = src.find("'", i + 1)
        return len(src) if end < 0 else end + 1
    if ch == '"':
        return _skip_double(src, i + 1)
    if nested and src.startswith("${", i):
        return find_closing_brace(src, i + 2) + 1
    if nested and src.startswith("$(", i):
        return find_closing_paren(src, i + 2) + 1
    return None


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


def command_substitution_end(src: str, start: int) -> int:
    """The `)` that ends `$(…)`: the first one past balanced parentheses, unless the body
    holds a `case` whose `PATTERN)` that `)` is (the body up to it is then unfinished)."""
    from adbwire.shell_syntax.parser import parse  # noqa: PLC0415 (the parser uses the lexer)

    end = find_closing_paren(src, start)
    if "case" not in src[start:end]:
        return end
    candidate = end
    while True:
        try:
            parse(src[start:candidate])
        except ShellSyntaxError as exc:
            if exc.incomplete:
                try:
                    candidate = find_closing_paren(src, candidate + 1)
                except ShellSyntaxError:
                    return end
                continue
        return candidate


def split_operand(text: str, separator: str) -> tuple[str, str, str]:
    """`text` split at the first `separator` outside quotes, escapes and expansions."""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
        elif ch == "'":
            end = text.find("'", i + 1)
            i = len(text) if end < 0 else end + 1
        elif ch == '"':
            i = _skip_quoted(text, i + 1)
        elif text.startswith("${", i):
            i = find_closing_brace(text, i + 2) + 1
        elif text.startswith("$(", i):
            i = find_closing_paren(text, i + 2) + 1
        elif ch == separator:
            return text[:i], separator, text[i + 1 :]
        else:
            i += 1
    return text, "", ""


def _skip_quoted(text: str, i: int) -> int:
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i + 1
