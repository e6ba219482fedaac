"""Parser: tokens to a small syntax tree (lists, and/or lists, pipelines, commands).

Supported: simple commands with assignments and redirections, `;` `&` newlines, `&&` `||`,
`|` pipelines with `!`, `( … )` subshells, `{ …; }` groups, `if/elif/else/fi`,
`while`/`until … do … done` and `for NAME [in WORDS]; do … done`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from adbwire.shell_syntax.lexer import (
    REDIRECT_OPS,
    Lit,
    Op,
    ShellSyntaxError,
    Token,
    Word,
    tokenize,
)


@dataclass(frozen=True)
class Redirect:
    fd: int
    op: str  # ">", ">>", "<", ">&", "<&", ">|", "<>"
    target: Word


@dataclass
class Simple:
    assigns: list[tuple[str, Word]] = field(default_factory=list)
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
    var: str
    items: list[Word] | None
    body: Script
    redirects: list[Redirect] = field(default_factory=list)


Command = Simple | Group | If | Loop | For


@dataclass
class Pipeline:
    negate: bool
    commands: list[Command]


@dataclass
class AndOr:
    first: Pipeline
    rest: list[tuple[str, Pipeline]]
    background: bool = False
    """Ended by `&`: run asynchronously."""


Script = list[AndOr]

_RESERVED = {
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "do",
    "done",
    "while",
    "until",
    "for",
    "in",
    "{",
    "}",
    "!",
}
_TERMINATORS = {"then", "else", "elif", "fi", "do", "done", "}"}


def parse(source: str) -> Script:
    """Parse a whole command line; raises ShellSyntaxError (mksh's wording) when invalid."""
    return _Parser(tokenize(source)).parse_all()


def _describe(tok: Token | None) -> str:
    if tok is None:
        return "unexpected EOF"
    if isinstance(tok, Op):
        return "newline unexpected" if tok.text == "\n" else f"'{tok.text}' unexpected"
    return f"'{tok.literal() or 'word'}' unexpected"


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.toks = tokens
        self.i = 0

    # -- helpers ---------------------------------------------------------------------------
    def peek(self) -> Token | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def peek_op(self, *texts: str) -> bool:
        tok = self.peek()
        return isinstance(tok, Op) and tok.io_number is None and tok.text in texts

    def peek_keyword(self, *words: str) -> bool:
        tok = self.peek()
        return isinstance(tok, Word) and tok.literal() in words

    def fail(self) -> ShellSyntaxError:
        tok = self.peek()
        return ShellSyntaxError(_describe(tok), incomplete=tok is None)

    def expect_keyword(self, word: str) -> None:
        if not self.peek_keyword(word):
            raise self.fail()
        self.i += 1

    def skip_newlines(self) -> None:
        while self.peek_op("\n"):
            self.i += 1

    # -- grammar ---------------------------------------------------------------------------
    def parse_all(self) -> Script:
        script = self.script()
        if self.peek() is not None:
            raise self.fail()
        return script

    def script(self) -> Script:
        items: Script = []
        while True:
            while self.peek_op("\n", ";"):
                if self.peek_op(";") and not items:
                    raise self.fail()
                self.i += 1
            tok = self.peek()
            if tok is None or self.peek_op(")") or self.peek_keyword(*_TERMINATORS):
                return items
            items.append(self.and_or())
            if self.peek_op("&"):
                items[-1].background = True
            if self.peek_op(";", "&", "\n"):
                self.i += 1
            elif not (self.peek() is None or self.peek_op(")") or self.peek_keyword(*_TERMINATORS)):
                raise self.fail()

    def and_or(self) -> AndOr:
        first = self.pipeline()
        rest: list[tuple[str, Pipeline]] = []
        while self.peek_op("&&", "||"):
            tok = self.peek()
            assert isinstance(tok, Op)
            self.i += 1
            self.skip_newlines()
            rest.append((tok.text, self.pipeline()))
        return AndOr(first, rest)

    def pipeline(self) -> Pipeline:
        negate = False
        if self.peek_keyword("!"):
            negate = True
            self.i += 1
        commands = [self.command()]
        while self.peek_op("|"):
            self.i += 1
            self.skip_newlines()
            commands.append(self.command())
        return Pipeline(negate, commands)

    def command(self) -> Command:
        command: Command
        if self.peek_op("("):
            self.i += 1
            body = self.script()
            if not self.peek_op(")"):
                raise self.fail()
            self.i += 1
            command = Group(body, subshell=True)
        elif self.peek_keyword("{"):
            self.i += 1
            body = self.script()
            self.expect_keyword("}")
            command = Group(body, subshell=False)
        elif self.peek_keyword("if"):
            command = self.if_clause()
        elif self.peek_keyword("while", "until"):
            until = self.peek_keyword("until")
            self.i += 1
            cond = self.script()
            self.expect_keyword("do")
            body = self.script()
            self.expect_keyword("done")
            command = Loop(cond, body, until)
        elif self.peek_keyword("for"):
            command = self.for_clause()
        else:
            return self.simple()
        command.redirects.extend(self.redirects())
        return command

    def if_clause(self) -> If:
        branches: list[tuple[Script, Script]] = []
        orelse: Script | None = None
        self.i += 1  # "if"
        while True:
            cond = self.script()
            self.expect_keyword("then")
            branches.append((cond, self.script()))
            if self.peek_keyword("elif"):
                self.i += 1
                continue
            if self.peek_keyword("else"):
                self.i += 1
                orelse = self.script()
            self.expect_keyword("fi")
            return If(branches, orelse)

    def for_clause(self) -> For:
        self.i += 1  # "for"
        tok = self.peek()
        name = tok.literal() if isinstance(tok, Word) else None
        if not name or not name.replace("_", "a").isalnum() or name[0].isdigit():
            raise self.fail()
        self.i += 1
        items: list[Word] | None = None
        self.skip_newlines()
        if self.peek_keyword("in"):
            self.i += 1
            items = []
            while isinstance(self.peek(), Word) and not self.peek_keyword("do"):
                word = self.peek()
                assert isinstance(word, Word)
                items.append(word)
                self.i += 1
        if self.peek_op(";", "\n"):
            self.i += 1
        self.skip_newlines()
        self.expect_keyword("do")
        body = self.script()
        self.expect_keyword("done")
        return For(name, items, body)

    def redirects(self) -> list[Redirect]:
        found: list[Redirect] = []
        while True:
            redirect = self.redirect()
            if redirect is None:
                return found
            found.append(redirect)

    def redirect(self) -> Redirect | None:
        tok = self.peek()
        if not (isinstance(tok, Op) and tok.text in REDIRECT_OPS):
            return None
        self.i += 1
        target = self.peek()
        if not isinstance(target, Word):
            raise self.fail()
        self.i += 1
        default_fd = 0 if tok.text.startswith("<") else 1
        fd = default_fd if tok.io_number is None else tok.io_number
        return Redirect(fd, tok.text, target)

    def simple(self) -> Simple:
        cmd = Simple()
        while True:
            redirect = self.redirect()
            if redirect is not None:
                cmd.redirects.append(redirect)
                continue
            tok = self.peek()
            if not isinstance(tok, Word):
                break
            if not cmd.words and _assignment(tok) is not None:
                assign = _assignment(tok)
                assert assign is not None
                cmd.assigns.append(assign)
            elif not cmd.words and not cmd.assigns and tok.literal() in _RESERVED:
                raise self.fail()
            else:
                cmd.words.append(tok)
            self.i += 1
        if not (cmd.words or cmd.assigns or cmd.redirects):
            raise self.fail()
        return cmd


def _assignment(word: Word) -> tuple[str, Word] | None:
    first = word.parts[0] if word.parts else None
    if not isinstance(first, Lit) or first.quoted or "=" not in first.text:
        return None
    name, value = first.text.split("=", 1)
    if not name or name[0].isdigit() or not name.replace("_", "a").isalnum():
        return None
    rest = word.parts[1:]
    parts = ((Lit(value, False),) if value else ()) + rest
    return name, Word(parts)
