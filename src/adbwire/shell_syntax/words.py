"""The lexer's output: words made of parts that remember their quoting, operators,
here-documents, and the syntax error both the lexer and the parser raise."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Arith",
    "CmdSub",
    "HereDoc",
    "Lit",
    "Op",
    "Param",
    "Part",
    "ShellSyntaxError",
    "Token",
    "Word",
]


class ShellSyntaxError(Exception):
    """The command line is not valid shell; `incomplete` means more input could finish it."""

    def __init__(self, message: str, *, incomplete: bool = False) -> None:
        super().__init__(message)
        self.incomplete = incomplete


@dataclass(frozen=True)
class Lit:
    text: str
    quoted: bool


@dataclass(frozen=True)
class Param:
    """`$name` or `${name…}`: `op` is one of PARAM_OPS (`${name:-word}`, `${name%word}`…),
    a pattern substitution (`/`, `//`, `/#`, `/%`) or a substring (`:`, `::`), and `word` its
    operand's own parts; `length` is `${#name}`."""

    name: str
    quoted: bool
    op: str = ""
    word: tuple[Part, ...] = ()
    length: bool = False
    alt: tuple[Part, ...] = ()
    """The second operand: the replacement of `${name/pattern/replacement}`, the length
    of `${name:offset:length}` (op `::`; op `:` has no length)."""
    subscript: tuple[Part, ...] | None = None
    """`${name[SUBSCRIPT]}`: an array element (an arithmetic expression's parts), or all of
    them when it is `@` or `*` (one unquoted Lit); None for a plain parameter."""
    keys: bool = False
    """`${!name[@]}`: the indexes the array has set."""


@dataclass(frozen=True)
class CmdSub:
    source: str
    quoted: bool


@dataclass(frozen=True)
class Arith:
    """`$((expression))`: the expression's own expansions, evaluated when the word is."""

    parts: tuple[Part, ...]
    quoted: bool


Part = Lit | Param | CmdSub | Arith


@dataclass(frozen=True)
class Word:
    parts: tuple[Part, ...]

    def literal(self) -> str | None:
        """The word's text if it is one unquoted literal (keywords, assignments)."""
        if len(self.parts) == 1 and isinstance(self.parts[0], Lit) and not self.parts[0].quoted:
            return self.parts[0].text
        return None


@dataclass(frozen=True)
class Op:
    text: str  # ";", "&&", "||", "|", "&", "(", ")", "\n", or a redirection operator
    io_number: int | None = None


@dataclass(eq=False)
class HereDoc:
    """`<<WORD` or `<<-WORD`: its body is read from the lines after the command's line, so
    it is filled in when the lexer reaches that newline. A quoted delimiter keeps the body
    literal; otherwise `$`, backquotes and backslash work in it as inside double quotes."""

    io_number: int | None
    strip_tabs: bool
    delimiter: str
    literal: bool
    body: tuple[Part, ...] = ()
    text: str = ""
    """The body as written (the run_shell guard reads what a shell would be fed)."""


Token = Word | Op | HereDoc
