"""The syntax tree the parser builds: commands, pipelines, and/or lists, scripts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from adbwire.shell_syntax.lexer import HereDoc, Word

__all__ = [
    "AndOr",
    "Assign",
    "Case",
    "Command",
    "Conditional",
    "For",
    "FunctionDef",
    "Group",
    "If",
    "Loop",
    "Pipeline",
    "Redirect",
    "Script",
    "Simple",
]


@dataclass(frozen=True)
class Redirect:
    fd: int
    op: str  # ">", ">>", "<", ">&", "<&", ">|", "<>", "&>" (>X 2>&1), "<<" (target: the
    # body), "<<<" (a here-string: the word and a newline are the input)
    target: Word
    heredoc: HereDoc | None = None


class Assign(NamedTuple):
    """`NAME=VALUE`, `NAME+=VALUE` (append), `NAME[SUBSCRIPT]=VALUE` (an array element;
    the subscript is an arithmetic expression, its expansions kept as parts) or
    `NAME=(WORD…)`."""

    name: str
    value: Word
    subscript: Word | None = None
    append: bool = False
    items: tuple[Word, ...] | None = None
    """`NAME=(WORD…)`: the array's new elements (appended with `+=`)."""


@dataclass
class Simple:
    assigns: list[Assign] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Group:
    body: Script
    subshell: bool
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class If:
    branches: list[tuple[Script, Script]]
    orelse: Script | None
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Loop:
    cond: Script
    body: Script
    until: bool
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class For:
    """`for NAME [in WORDS]; do BODY; done`, or with `select` mksh's menu loop: the words
    listed on stderr, each line read picks one (NAME) and runs BODY, until EOF or break."""

    var: str
    items: list[Word] | None
    body: Script
    redirects: list[Redirect] = field(default_factory=list)
    select: bool = False


@dataclass
class Case:
    word: Word
    items: list[tuple[list[Word], Script]]
    ends: list[str] = field(default_factory=list)
    """How each item ends: `;;`, `;&` (run the next body too) or `;|` (test the next)."""
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class FunctionDef:
    """`NAME() BODY` or `function NAME BODY`: defining runs nothing; calling runs BODY."""

    name: str
    body: Command
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Conditional:
    """`[[ … ]]`: operand words (expanded without splitting or globbing) and operators
    (`&&`, `||`, `(`, `)`, `<`, `>`, kept as plain strings)."""

    items: list[Word | str]
    redirects: list[Redirect] = field(default_factory=list)


Command = Simple | Group | If | Loop | For | Case | FunctionDef | Conditional


@dataclass
class Pipeline:
    negate: bool
    commands: list[Command]
    timed: bool = False
    """After mksh's `time` keyword: the real, user and system time go to stderr once it
    ran (`time` alone: the shell's own); `posix_time` is `time -p`'s format."""
    posix_time: bool = False


@dataclass
class AndOr:
    first: Pipeline
    rest: list[tuple[str, Pipeline]]
    background: bool = False
    """Ended by `&`: run asynchronously."""


Script = list[AndOr]
