"""Parser: tokens to a small syntax tree (lists, and/or lists, pipelines, commands).

Supported: simple commands with assignments and redirections (here-documents included),
`;` `&` newlines, `&&` `||`, `|` pipelines with `!`, `( … )` subshells, `{ …; }` groups,
`if/elif/else/fi`, `while`/`until … do … done`, `for NAME [in WORDS]; do … done`,
`case WORD in PATTERN) …;; esac`, `[[ … ]]` and function definitions (`NAME() BODY`,
`function NAME BODY`).
"""

from __future__ import annotations

from adbwire.shell_syntax.lexer import (
    REDIRECT_OPS,
    HereDoc,
    Lit,
    Op,
    ShellSyntaxError,
    Token,
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
    "case",
    "esac",
    "[[",
    "function",
    "in",
    "{",
    "}",
    "!",
}
_CASE_ENDS = (";;", ";&", ";|")
_TEST_OPS = ("&&", "||", "(", ")", "<", ">")
_TERMINATORS = {"then", "else", "elif", "fi", "do", "done", "}", "esac"}


def parse(source: str) -> Script:
    """Parse a whole command line; raises ShellSyntaxError (mksh's wording) when invalid."""
    return _Parser(tokenize(source)).parse_all()


def _describe(tok: Token | None) -> str:
    if tok is None:
        return "unexpected EOF"
    if isinstance(tok, HereDoc):
        return "'<<' unexpected"
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
            if self.at_end_of_list():
                return items
            items.append(self.and_or())
            if self.peek_op("&"):
                items[-1].background = True
            if self.peek_op(";", "&", "\n"):
                self.i += 1
            elif not (
                self.peek() is None
                or self.peek_op(")", *_CASE_ENDS)
                or self.peek_keyword(*_TERMINATORS)
            ):
                raise self.fail()

    def at_end_of_list(self) -> bool:
        return (
            self.peek() is None
            or self.peek_op(")", *_CASE_ENDS)
            or self.peek_keyword(*_TERMINATORS)
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

    def function_name(self) -> str | None:
        """The NAME of `NAME ( )` when the tokens here start a function definition."""
        tok = self.peek()
        name = tok.literal() if isinstance(tok, Word) else None
        after = self.toks[self.i + 1 : self.i + 3]
        if (
            name
            and name not in _RESERVED
            and "=" not in name
            and len(after) == 2
            and all(isinstance(t, Op) and t.io_number is None for t in after)
            and [t.text for t in after if isinstance(t, Op)] == ["(", ")"]
        ):
            return name
        return None

    def function_definition(self) -> FunctionDef:
        if self.peek_keyword("function"):
            self.i += 1
            tok = self.peek()
            name = tok.literal() if isinstance(tok, Word) else None
            if not name or name in _RESERVED:
                raise self.fail()
            self.i += 1
            if self.peek_op("("):  # `function f() …`, as mksh also reads it
                self.i += 1
                if not self.peek_op(")"):
                    raise self.fail()
                self.i += 1
        else:
            name = self.function_name()
            assert name is not None
            self.i += 3
        self.skip_newlines()
        if self.peek() is None:
            raise self.fail()
        return FunctionDef(name, self.command())

    def double_bracket(self) -> Conditional:
        self.i += 1  # "[["
        items: list[Word | str] = []
        while not self.peek_keyword("]]"):
            tok = self.peek()
            if isinstance(tok, Word):
                items.append(tok)
            elif isinstance(tok, Op) and tok.io_number is None and tok.text in _TEST_OPS:
                items.append(tok.text)
            else:
                raise self.fail()
            self.i += 1
        self.i += 1
        if not items:
            raise ShellSyntaxError("']]' unexpected")
        return Conditional(items)

    def case_clause(self) -> Case:
        self.i += 1  # "case"
        word = self.peek()
        if not isinstance(word, Word):
            raise self.fail()
        self.i += 1
        self.skip_newlines()
        self.expect_keyword("in")
        items: list[tuple[list[Word], Script]] = []
        ends: list[str] = []
        while True:
            self.skip_newlines()
            if self.peek_keyword("esac"):
                self.i += 1
                return Case(word, items, ends)
            if self.peek_op("("):
                self.i += 1
            patterns: list[Word] = []
            while True:
                pattern = self.peek()
                if not isinstance(pattern, Word):
                    raise self.fail()
                patterns.append(pattern)
                self.i += 1
                if not self.peek_op("|"):
                    break
                self.i += 1
            if not self.peek_op(")"):
                raise self.fail()
            self.i += 1
            body = self.script()
            items.append((patterns, body))
            end = self.peek()
            if isinstance(end, Op) and self.peek_op(*_CASE_ENDS):
                ends.append(end.text)
                self.i += 1
            elif self.peek_keyword("esac"):
                ends.append(";;")
            else:
                raise self.fail()

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
