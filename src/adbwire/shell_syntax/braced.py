"""The inside of `${…}`: a name (an array's subscript), then an operator and its operands
(`${x:-word}`, `${x#pattern}`, `${x/pattern/replacement}`, `${x:offset:length}`), or a
length (`${#x}`) or an array's indexes (`${!a[@]}`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from adbwire.shell_syntax.brackets import split_operand
from adbwire.shell_syntax.words import Lit, Param, Part, ShellSyntaxError

if TYPE_CHECKING:
    from adbwire.shell_syntax.lexer import _Lexer

__all__ = ["PARAM_OPS", "SPECIAL_PARAMS", "braced_param"]

PARAM_OPS = (":-", ":=", ":+", ":?", "-", "=", "+", "?", "##", "#", "%%", "%")
SPECIAL_PARAMS = "?$#@*!-0123456789"


def _lexer(text: str) -> _Lexer:
    from adbwire.shell_syntax.lexer import _Lexer  # noqa: PLC0415 (the lexer uses this module)

    return _Lexer(text)


def _with_subscript(param: Param, subscript: tuple[Part, ...]) -> Param:
    return Param(param.name, param.quoted, param.op, param.word, param.length, param.alt,
                 subscript)  # fmt: skip


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[" + re.escape(SPECIAL_PARAMS) + "]")


def _subscript(inner: str, start: int) -> tuple[tuple[Part, ...] | None, int]:
    """The `[SUBSCRIPT]` of `${name[…]}` at `start` (None when there is none) and where the
    rest of the expansion starts."""
    if not inner.startswith("[", start):
        return None, start
    depth, i = 0, start
    while i < len(inner):
        if inner[i] == "[":
            depth += 1
        elif inner[i] == "]":
            depth -= 1
            if depth == 0:
                break
        i += 1
    else:
        raise ShellSyntaxError(f"${{{inner}}}: bad substitution")
    text = inner[start + 1 : i]
    if text in ("@", "*"):
        return (Lit(text, False),), i + 1
    return tuple(_lexer(text).expression_parts()), i + 1


def braced_param(inner: str, quoted: bool) -> Param:
    """The inside of `${…}`: a name (with an array subscript), then nothing or an operator
    and its word."""
    if inner[:1] in ("#", "!") and len(inner) > 1:
        name = _NAME.match(inner, 1)
        subscript, end = _subscript(inner, name.end()) if name is not None else (None, 0)
        keys = inner[0] == "!"
        if name is None or end != len(inner) or (keys and subscript is None):
            raise ShellSyntaxError(f"${{{inner}}}: bad substitution")
        return Param(name.group(), quoted, length=not keys, subscript=subscript, keys=keys)
    name = _NAME.match(inner)
    subscript, end = _subscript(inner, name.end()) if name is not None else (None, 0)
    if subscript is not None and name is not None:
        return _with_subscript(braced_param(name.group() + inner[end:], quoted), subscript)
    rest = inner[name.end() :] if name is not None else inner
    if name is not None and rest.startswith("/"):
        op = next(op for op in ("//", "/#", "/%", "/") if rest.startswith(op))
        pattern, _, replacement = split_operand(rest[len(op) :], "/")
        return Param(
            name.group(),
            quoted,
            op,
            tuple(_lexer(pattern).param_word_parts(False)),  # a pattern even inside "…"
            alt=tuple(_lexer(replacement).param_word_parts(quoted)),
        )
    if name is not None and rest.startswith(":") and rest[1:2] not in ("-", "=", "+", "?"):
        offset, colon, length = split_operand(rest[1:], ":")
        return Param(
            name.group(),
            quoted,
            "::" if colon else ":",
            tuple(_lexer(offset).expression_parts()),
            alt=tuple(_lexer(length).expression_parts()),
        )
    op = next((op for op in PARAM_OPS if rest.startswith(op)), "")
    if name is None or (rest and not op):
        raise ShellSyntaxError(f"${{{inner}}}: bad substitution")
    is_pattern = op in ("#", "##", "%", "%%")  # its word is a pattern even inside "…"
    word = _lexer(rest[len(op) :]).param_word_parts(quoted and not is_pattern) if op else []
    return Param(name.group(), quoted, op, tuple(word))
