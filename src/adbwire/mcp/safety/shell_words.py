"""What the run_shell guard can know about one shell word before the device's shell runs it.

A word whose value depends on the run (a variable, `$(…)`, backticks, `$((…))`, a brace
expansion, `~user`) is *unknowable*: `read_word` answers None. Otherwise the word is text,
and each character remembers whether it was quoted, because only unquoted `*?[` glob.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from adbwire.shell_syntax import Arith, CmdSub, Lit, Param, Word

GLOB_CHARS = "*?["
DEVICE_NAMES = Word((Param("<names the device supplies>", quoted=True),))
"""Stands for the words find -exec and xargs add to a command: unknowable."""


@dataclass(frozen=True)
class Component:
    """One path component: its text, and the fnmatch pattern when it globs."""

    text: str
    pattern: str | None = None


@dataclass(frozen=True)
class Text:
    """A word the guard can read: its characters, each marked True when unquoted."""

    chars: tuple[tuple[str, bool], ...]

    @property
    def text(self) -> str:
        return "".join(ch for ch, _ in self.chars)

    @property
    def globs(self) -> bool:
        return _globs(self.chars)

    @property
    def tilde(self) -> bool:
        """`~` or `~/…` unquoted: the home directory."""
        return bool(self.chars) and self.chars[0] == ("~", True)

    def components(self) -> list[Component]:
        """The word split at `/` (quoted or not); empty components are kept."""
        found: list[Component] = []
        current: list[tuple[str, bool]] = []
        for ch, bare in (*self.chars, ("/", False)):
            if ch == "/":
                found.append(_component(current))
                current = []
            else:
                current.append((ch, bare))
        return found


def _globs(chars: Sequence[tuple[str, bool]]) -> bool:
    """An unquoted `*` or `?`, or an unquoted `[` with a `]` after it: without one the shell
    reads `[` literally (`[ -f x ]`, a file named `a[`)."""
    for index, (ch, bare) in enumerate(chars):
        if bare and ch in "*?":
            return True
        if bare and ch == "[" and any(c == "]" for c, _ in chars[index + 1 :]):
            return True
    return False


def _component(chars: list[tuple[str, bool]]) -> Component:
    text = "".join(ch for ch, _ in chars)
    if not _globs(chars):
        return Component(text)
    # Quoted glob characters are literal: fnmatch reads "[*]" as a plain "*".
    pattern = "".join(ch if bare or ch not in "*?[" else f"[{ch}]" for ch, bare in chars)
    return Component(text, pattern)


def read_word(word: Word) -> Text | None:
    """The word as text, or None when only the run can tell its value."""
    chars: list[tuple[str, bool]] = []
    for part in word.parts:
        if not isinstance(part, Lit):
            return None
        chars.extend((ch, not part.quoted) for ch in part.text)
    text = Text(tuple(chars))
    if _brace_expansion(text.chars):
        return None
    if text.tilde and text.text != "~" and not text.text.startswith("~/"):
        return None  # ~user: another user's home
    return text


def _brace_expansion(chars: tuple[tuple[str, bool], ...]) -> bool:
    """An unquoted `{…,…}`: mksh expands it into several words."""
    opened = comma = False
    for ch, bare in chars:
        if not bare:
            continue
        if ch == "{":
            opened, comma = True, False
        elif ch == "," and opened:
            comma = True
        elif ch == "}" and comma:
            return True
    return False


def literal(word: Word) -> str | None:
    """The word's text when it is knowable and does not glob (a command name, an option)."""
    text = read_word(word)
    return None if text is None or text.globs else text.text


def show(word: Word) -> str:
    """The word roughly as written, for messages."""
    out: list[str] = []
    for part in word.parts:
        if isinstance(part, Lit):
            out.append(part.text)
        elif isinstance(part, Param):
            index = ""
            if part.subscript is not None:
                first = part.subscript[0] if len(part.subscript) == 1 else None
                index = f"[{first.text}]" if isinstance(first, Lit) else "[…]"
            out.append(part.name if part.name.startswith("<") else "${" + part.name + index + "}")
        elif isinstance(part, CmdSub):
            out.append(f"$({part.source})")
        else:
            out.append("$((…))")
    return "".join(out)


def substitutions(word: Word) -> Iterator[str]:
    """The source of every command substitution inside the word, however nested."""
    yield from _in_parts(word.parts)


def _in_parts(parts: tuple[Lit | Param | CmdSub | Arith, ...]) -> Iterator[str]:
    for part in parts:
        if isinstance(part, CmdSub):
            yield part.source
        elif isinstance(part, Arith):
            yield from _in_parts(part.parts)
        elif isinstance(part, Param):  # `${x:-$(…)}`, `${x/$(…)/$(…)}`, `${a[$(…)]}`
            yield from _in_parts(part.word)
            yield from _in_parts(part.alt)
            yield from _in_parts(part.subscript or ())


_HIDDEN_MARKERS = ("$(", "`", "${")


def arithmetic_texts(word: Word) -> Iterator[tuple[str, bool]]:
    """Quoted text of the word that still holds `$(`, a backquote or `${`, and whether it
    holds a subscript too (`[`, or the text sits in one): mksh expands an array subscript
    met in a variable's value wherever it needs that value as a number, so
    `x='a[$(cmd)]'; ((x))` runs cmd. At each level of nesting, the literal parts are
    joined as if the expansions between them were empty."""
    yield from _arithmetic_texts(word.parts, subscript=False)


def _arithmetic_texts(
    parts: tuple[Lit | Param | CmdSub | Arith, ...], *, subscript: bool
) -> Iterator[tuple[str, bool]]:
    text = "".join(part.text for part in parts if isinstance(part, Lit))
    if any(marker in text for marker in _HIDDEN_MARKERS):
        yield text, subscript or "[" in text
    for part in parts:
        if isinstance(part, Arith):
            yield from _arithmetic_texts(part.parts, subscript=True)
        elif isinstance(part, Param):
            yield from _arithmetic_texts(part.word, subscript=subscript)
            yield from _arithmetic_texts(part.alt, subscript=subscript)
            yield from _arithmetic_texts(part.subscript or (), subscript=True)
