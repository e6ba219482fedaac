"""Word expansion: parameters, command substitution, field splitting, globbing, quote removal.

The order and the rules are POSIX's: only *unquoted* results of an expansion are split on
IFS whitespace and globbed; quoted text is always one field, taken literally. That is what
makes `echo '$(reboot)'` print `$(reboot)` while `echo $(id)` runs `id`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Protocol

from adbwire.shell_syntax.lexer import (
    Arith,
    CmdSub,
    Lit,
    Param,
    Part,
    ShellSyntaxError,
    Word,
    expression,
)
from adbwire.testing.device_files import FsError
from adbwire.testing.userland.shell.arith import ArithmeticFailure, evaluate

Segment = tuple[str, bool]  # (text, literal): literal text never splits and never globs
IFS_WHITESPACE = " \t\n"
_GLOB_CHARS = "*?["


class UnsetParameter(ArithmeticFailure):
    """`set -u` and a parameter that is not set: an expansion error, as mksh's
    `sh: NAME: parameter not set` (it ends a non-interactive shell, like $((1/0)))."""


class ExpansionHost(Protocol):
    """What expansion needs from the shell that runs it."""

    options: set[str]

    def get_var(self, name: str) -> str | None: ...

    def set_var(self, name: str, value: str) -> None: ...

    def special_param(self, name: str) -> str | None: ...

    @property
    def positional(self) -> Sequence[str]: ...

    def substitute(self, source: str) -> str: ...

    def element(self, name: str, index: int) -> str | None: ...

    def set_element(self, name: str, index: int, value: str) -> None: ...

    def elements(self, name: str) -> list[str]: ...

    def indexes(self, name: str) -> list[int]: ...

    def expand_subscript(self, text: str) -> str: ...


def expand_words(
    host: ExpansionHost, words: Sequence[Word], listdir: Callable[[str], list[str]] | None, cwd: str
) -> list[str]:
    """Expand command words into argv: split, glob (when `listdir` is given) and unquote."""
    argv: list[str] = []
    for word in words:
        for segments in _fields(host, word, split=True):
            if listdir is not None and _has_glob(segments):
                matches = glob(segments, listdir, cwd)
                if matches:
                    argv.extend(matches)
                    continue
            argv.append("".join(text for text, _ in segments))
    return argv


def expand_single(host: ExpansionHost, word: Word) -> str:
    """Expand a word that must stay one string (assignment values, redirection targets)."""
    fields = _fields(host, word, split=False)
    return "".join(text for segments in fields for text, _ in segments)


def expand_subscript(host: ExpansionHost, text: str) -> str:
    """An array subscript met while evaluating arithmetic, read as the inside of double
    quotes (quotes stay) and expanded, as mksh does before evaluating it."""
    try:
        parts = expression(text)
    except ShellSyntaxError as exc:
        raise ArithmeticFailure(f"{text}: {exc}") from None
    return expand_single(host, Word(parts))


def _lookup(host: ExpansionHost, name: str) -> str | None:
    value = host.special_param(name)
    return host.get_var(name) if value is None else value


def _whole_array(part: Param) -> bool:
    """`${a[@]}` or `${a[*]}`: every element."""
    return part.subscript is not None and part.subscript in ((Lit("@", False),), (Lit("*", False),))


def _param(host: ExpansionHost, part: Param) -> str | None:
    """The value a parameter stands for: a variable, an element, or (`${a[*]}`) the
    elements joined with IFS's first character."""
    if part.subscript is None:
        return _lookup(host, part.name)
    if _whole_array(part):
        items = [str(i) for i in host.indexes(part.name)] if part.keys else host.elements(part.name)
        if not items:
            return None
        ifs = host.get_var("IFS")
        return (" " if ifs is None else ifs[:1]).join(items)
    index = evaluate(expand_single(host, Word(part.subscript)) or "0", host)
    return host.element(part.name, index)


def _fields_of(host: ExpansionHost, part: Param) -> list[str] | None:
    """The separate fields of a quoted `"$@"`, `"${a[@]}"` or `"${!a[@]}"`; None for
    any other parameter."""
    if not part.quoted or part.length:
        return None
    if part.subscript is None:  # "${@…}" keeps its fields whatever the operator
        return list(host.positional) if part.name == "@" else None
    if part.subscript != (Lit("@", False),) or part.op:
        return None
    if part.keys:
        return [str(index) for index in host.indexes(part.name)]
    return host.elements(part.name)


_WHOLE_ARRAY_OPS = ("", "-", ":-", "+", ":+", "?", ":?")


def _check_whole_array(part: Param) -> None:
    """mksh takes only the `-`, `+` and `?` forms on `${a[@]}`: `${a[@]#x}` is an error."""
    if _whole_array(part) and part.op not in _WHOLE_ARRAY_OPS:
        index = "".join(p.text for p in part.subscript or () if isinstance(p, Lit))
        word = "".join(p.text for p in part.word if isinstance(p, Lit))
        alt = "".join(p.text for p in part.alt if isinstance(p, Lit))
        if part.op.startswith("/") or part.op == "::":
            word += ("/" if part.op.startswith("/") else ":") + alt
        raise ArithmeticFailure(f"${{{part.name}[{index}]{part.op}{word}}}: bad substitution")


def _selected_word(host: ExpansionHost, part: Param) -> tuple[Part, ...] | None:
    """The operand word a `${name-word}`-style expansion stands for, or None when it
    stands for the parameter's value (which `:=`/`=` may have just assigned)."""
    _check_whole_array(part)
    if part.op not in ("-", ":-", "+", ":+", "=", ":=", "?", ":?"):
        return None
    value = _param(host, part)
    unset = value is None or (part.op.startswith(":") and not value)
    if part.op in ("+", ":+"):
        return () if unset else part.word
    if not unset:
        return None
    if part.op in ("-", ":-"):
        return part.word
    if part.op in ("=", ":="):
        host.set_var(part.name, expand_single(host, Word(part.word)))
        return None
    message = expand_single(host, Word(part.word)) or "parameter null or not set"
    raise UnsetParameter(f"{part.name}: {message}")  # `${name:?message}`


def _value(host: ExpansionHost, part: Param | CmdSub | Arith) -> str:
    if isinstance(part, CmdSub):
        return host.substitute(part.source)
    if isinstance(part, Arith):
        expression = "".join(p.text if isinstance(p, Lit) else _value(host, p) for p in part.parts)
        return str(evaluate(expression, host))
    if part.length and _whole_array(part):  # ${#a[@]}: how many elements are set
        return str(len(host.indexes(part.name)))
    value = _param(host, part)
    if value is None and not part.op and "nounset" in host.options:
        raise UnsetParameter(f"{part.name}: parameter not set")
    if part.length:  # ${#@} and ${#*} count the positional parameters
        return str(len(host.positional) if part.name in "@*" else len(value or ""))
    if part.op in ("#", "##", "%", "%%"):
        return _trim(value or "", part.op, _pattern_pieces(host, part.word))
    if part.op.startswith("/"):
        return _replace(host, value or "", part)
    if part.op in (":", "::"):
        return _substring(host, value or "", part)
    return value or ""


def _replace(host: ExpansionHost, value: str, part: Param) -> str:
    """`${v/p/r}` the first (longest) match of glob p, `//` every one, `/#` a prefix,
    `/%` a suffix, replaced by r."""
    pattern = _pattern(host, part.word).pattern
    if not pattern:
        return value
    anchored = {"/#": "^(?:" + pattern + ")", "/%": "(?:" + pattern + ")$"}
    regex = re.compile(anchored.get(part.op, pattern), re.DOTALL)
    replacement = expand_single(host, Word(part.alt))
    return regex.sub(lambda _: replacement, value, count=0 if part.op == "//" else 1)


def _substring(host: ExpansionHost, value: str, part: Param) -> str:
    """`${v:offset}` and `${v:offset:length}`, arithmetic operands; a negative offset
    counts from the end."""
    offset = evaluate(expand_single(host, Word(part.word)) or "0", host)
    start = max(len(value) + offset, 0) if offset < 0 else offset
    if part.op == ":":
        return value[start:]
    length = evaluate(expand_single(host, Word(part.alt)) or "0", host)
    return value[start:] if length < 0 else value[start : start + length]


def matches(host: ExpansionHost, pattern: Word, value: str) -> bool:
    """Whether `value` matches a `case` pattern: unquoted `*?[…]` glob, quoted text is literal."""
    return _pattern(host, pattern.parts).fullmatch(value) is not None


def _pattern(host: ExpansionHost, word: tuple[Part, ...]) -> re.Pattern[str]:
    return _joined(_pattern_pieces(host, word))


def _pattern_pieces(host: ExpansionHost, word: tuple[Part, ...]) -> list[str]:
    segments = [seg for field in _fields(host, Word(word), split=False) for seg in field]
    return _glob_pieces([(ch, literal) for text, literal in segments for ch in text])


def _trim(value: str, op: str, pieces: list[str]) -> str:
    """`${v#p}` `${v##p}`: the shortest/longest matching prefix removed; `%`, `%%`: suffix.
    One regular-expression match, lazy for the shortest, greedy for the longest; a suffix
    is matched as a prefix of the reversed value by the reversed pattern."""
    suffix = op.startswith("%")
    text = value[::-1] if suffix else value
    ordered = pieces[::-1] if suffix else pieces
    found = _joined(ordered, ".*?" if len(op) == 1 else ".*").match(text)
    if found is None:
        return value
    cut = found.end()
    return value[: len(value) - cut] if suffix else value[cut:]


def _fields(host: ExpansionHost, word: Word, *, split: bool) -> list[list[Segment]]:
    fields: list[list[Segment]] = []
    current: list[Segment] | None = None
    pending: list[tuple[Part, bool]] = [(part, False) for part in word.parts]
    while pending:
        part, from_operand = pending.pop(0)
        if isinstance(part, Param) and part.op:
            selected = _selected_word(host, part)
            if selected is not None:  # the operand word, expanded in the parameter's place
                inner = [_quote(p) for p in selected] if part.quoted else selected
                pending[:0] = [(p, True) for p in inner]
                if not selected and part.quoted:
                    pending.insert(0, (Lit("", True), True))
                continue
        if isinstance(part, Lit) and not (from_operand and not part.quoted and split):
            current = current if current is not None else []
            current.append((part.text, part.quoted))
            continue
        params = _fields_of(host, part) if isinstance(part, Param) else None
        if params is not None:
            for index, param in enumerate(params):
                if index > 0:
                    fields.append(current or [])
                    current = None
                current = current if current is not None else []
                current.append((param, True))
            continue
        value = part.text if isinstance(part, Lit) else _value(host, part)
        if part.quoted or not split:  # unquoted, it stays a pattern (`case x in $p)`)
            current = current if current is not None else []
            current.append((value, part.quoted))
            continue
        pieces, leading, trailing = split_ifs(value, host.get_var("IFS"))
        if leading and current:
            fields.append(current)
            current = None
            if pieces and not pieces[0] and value[:1] not in IFS_WHITESPACE:
                pieces = pieces[1:]  # that delimiter ended the text before it
        for index, piece in enumerate(pieces):
            if index > 0 and current is not None:
                fields.append(current)
                current = None
            current = current if current is not None else []
            current.append((piece, False))
        if pieces and trailing and current is not None:
            fields.append(current)
            current = None
    if current is not None:
        fields.append(current)
    return fields


def split_ifs(value: str, ifs: str | None) -> tuple[list[str], bool, bool]:
    """POSIX field splitting of an expansion's value: the fields, and whether it began and
    ended with a delimiter. IFS whitespace collapses and is trimmed; each other IFS
    character ends one field (`a,,b` is three with IFS=,). IFS unset: blanks; empty: none."""
    separators = IFS_WHITESPACE if ifs is None else ifs
    if not value or not separators:
        return ([value] if value else []), False, False
    blanks = "".join(ch for ch in separators if ch in IFS_WHITESPACE)
    leading, trailing = value[0] in separators, value[-1] in separators
    text = value.strip(blanks) if blanks else value
    pieces: list[str] = []
    buf: list[str] = []
    i = 0
    while i < len(text):
        if text[i] not in separators:
            buf.append(text[i])
            i += 1
            continue
        # one delimiter: blanks, at most one other IFS character, blanks
        while i < len(text) and text[i] in blanks:
            i += 1
        if i < len(text) and text[i] in separators and text[i] not in blanks:
            i += 1
            while i < len(text) and text[i] in blanks:
                i += 1
        pieces.append("".join(buf))
        buf = []
    if buf:
        pieces.append("".join(buf))
    return pieces, leading, trailing


def _quote(part: Part) -> Part:
    """A part of a quoted `${name-word}`'s word: quoted too."""
    if isinstance(part, Lit):
        return Lit(part.text, True)
    return dataclasses.replace(part, quoted=True)


def _has_glob(segments: list[Segment]) -> bool:
    return any(not literal and any(c in text for c in _GLOB_CHARS) for text, literal in segments)


def _glob_pieces(chars: list[tuple[str, bool]]) -> list[str]:
    """A glob as regular-expression pieces, one per character, `?`, `*` (as `*`) or class."""
    out: list[str] = []
    i = 0
    while i < len(chars):
        ch, literal = chars[i]
        if literal:
            out.append(re.escape(ch))
        elif ch == "*":
            out.append("*")
        elif ch == "?":
            out.append(".")
        elif ch == "[":
            end = next((j for j in range(i + 2, len(chars)) if chars[j] == ("]", False)), -1)
            if end < 0:
                out.append(re.escape(ch))
            else:
                body = "".join(c for c, _ in chars[i + 1 : end])
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return out


def _joined(pieces: list[str], star: str = ".*") -> re.Pattern[str]:
    return re.compile("".join(star if piece == "*" else piece for piece in pieces), re.DOTALL)


def _component_regex(chars: list[tuple[str, bool]]) -> re.Pattern[str]:
    return _joined(_glob_pieces(chars))


def _names(listdir: Callable[[str], list[str]], directory: str) -> list[str]:
    try:
        return listdir(directory)
    except FsError:  # an unreadable directory simply matches nothing
        return []


def glob(segments: list[Segment], listdir: Callable[[str], list[str]], cwd: str) -> list[str]:
    """Match a pattern against the device's files; sorted, like a shell's pathname expansion."""
    chars = [(ch, literal) for text, literal in segments for ch in text]
    components: list[list[tuple[str, bool]]] = [[]]
    for ch, literal in chars:
        if ch == "/":
            components.append([])
        else:
            components[-1].append((ch, literal))
    absolute = not components[0]
    prefixes = ["/" if absolute else ""]
    globbed = False
    for component in components[1:] if absolute else components:
        text = "".join(c for c, _ in component)
        has_glob = any(not lit and c in _GLOB_CHARS for c, lit in component)
        following: list[str] = []
        for prefix in prefixes:
            if not has_glob and (not globbed or not text):
                following.append(prefix + text + "/")
                continue
            directory = prefix or cwd
            names = _names(listdir, directory)
            if not has_glob:
                if text in names:
                    following.append(prefix + text + "/")
                continue
            pattern = _component_regex(component)
            hidden_ok = text.startswith(".")
            for name in sorted(names):
                if name.startswith(".") and not hidden_ok:
                    continue
                if pattern.fullmatch(name):
                    following.append(prefix + name + "/")
        globbed = globbed or has_glob
        prefixes = following
    return [path[:-1] if path.endswith("/") and path != "/" else path for path in prefixes]
