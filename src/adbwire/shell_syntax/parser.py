"""Parser: tokens to a small syntax tree (lists, and/or lists, pipelines, commands).

Supported: simple commands with assignments and redirections (here-documents included),
`;` `&` newlines, `&&` `||`, `|` pipelines with `!`, `( … )` subshells, `{ …; }` groups,
`if/elif/else/fi`, `while`/`until … do … done`, `for NAME [in WORDS]; do … done`,
`case WORD in PATTERN) …;; esac`, `[[ … ]]` and function definitions (`NAME() BODY`,
`function NAME BODY`).
"""

from __future__ import annotations

from adbwire.shell_syntax.clauses import CASE_ENDS, RESERVED, TERMINATORS, Clauses
from adbwire.shell_syntax.lexer import (
    REDIRECT_OPS,
    HereDoc,
    Lit,
    Op,
    ShellSyntaxError,
    Word,
    tokenize,
)
from adbwire.shell_syntax.tree import (
    AndOr,
    Case,
    Command,
    Conditional,
    For,
    FunctionDef,
    Group,
    If,
    Loop,
    Pipeline,
    Redirect,
    Script,
    Simple,
)

__all__ = [
    "AndOr",
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
    "parse",
]


def parse(source: str) -> Script:
    """Parse a whole command line; raises ShellSyntaxError (mksh's wording) when invalid,
    or when it nests deeper than Python's stack allows (`((((…))))` thousands deep)."""
    tokens = tokenize(source)
    try:
        return _Parser(tokens).parse_all()
    except RecursionError:
        raise ShellSyntaxError("commands nested too deeply") from None


class _Parser(Clauses):
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
            if self.at_end_of_list():
                return items
            items.append(self.and_or())
            if self.peek_op("&"):
                items[-1].background = True
            if self.peek_op(";", "&", "\n"):
                self.i += 1
            elif not (
                self.peek() is None
                or self.peek_op(")", *CASE_ENDS)
                or self.peek_keyword(*TERMINATORS)
            ):
                raise self.fail()

    def at_end_of_list(self) -> bool:
        return (
            self.peek() is None or self.peek_op(")", *CASE_ENDS) or self.peek_keyword(*TERMINATORS)
        )

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
        elif self.peek_keyword("case"):
            command = self.case_clause()
        elif self.peek_keyword("[["):
            command = self.double_bracket()
        elif self.peek_keyword("function") or self.function_name() is not None:
            return self.function_definition()
        else:
            return self.simple()
        command.redirects.extend(self.redirects())
        return command

    def redirects(self) -> list[Redirect]:
        found: list[Redirect] = []
        while True:
            redirect = self.redirect()
            if redirect is None:
                return found
            found.append(redirect)

    def redirect(self) -> Redirect | None:
        tok = self.peek()
        if isinstance(tok, HereDoc):
            self.i += 1
            fd = 0 if tok.io_number is None else tok.io_number
            return Redirect(fd, "<<", Word(tok.body), tok)
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
            elif not cmd.words and not cmd.assigns and tok.literal() in RESERVED:
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
