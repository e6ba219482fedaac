"""Parser: tokens to a small syntax tree (lists, and/or lists, pipelines, commands).

Supported: simple commands with assignments and redirections (here-documents included),
`;` `&` newlines, `&&` `||`, `|` pipelines with `!`, `( … )` subshells, `{ …; }` groups,
`if/elif/else/fi`, `while`/`until … do … done`, `for NAME [in WORDS]; do … done`,
`case WORD in PATTERN) …;; esac`, `[[ … ]]`, function definitions (`NAME() BODY`,
`function NAME BODY`), mksh's `select` and `time`, array assignments (`a[i]=v`), `+=`,
and aliases: given a table, a command's first word that names one is replaced by its
value's tokens while parsing, as mksh does (so an alias applies to the lines read after
its definition ran: `parse_lines` parses one line at a time for that).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from adbwire.shell_syntax.clauses import CASE_ENDS, RESERVED, TERMINATORS, Clauses
from adbwire.shell_syntax.lexer import (
    REDIRECT_OPS,
    HereDoc,
    Lit,
    Op,
    Part,
    ShellSyntaxError,
    Token,
    Word,
    tokenize,
)
from adbwire.shell_syntax.tree import (
    AndOr,
    Assign,
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
    "parse",
    "parse_lines",
]


def parse(source: str, aliases: Mapping[str, str] | None = None) -> Script:
    """Parse a whole command line; raises ShellSyntaxError (mksh's wording) when invalid,
    or when it nests deeper than Python's stack allows (`((((…))))` thousands deep)."""
    tokens = tokenize(source)
    try:
        return _Parser(tokens, aliases).parse_all()
    except RecursionError:
        raise ShellSyntaxError("commands nested too deeply") from None


def parse_lines(
    tokens: list[Token],
    aliases: Mapping[str, str],
    *,
    skip: int = 0,
    skipped_with: Mapping[str, str] | None = None,
) -> Iterator[Script]:
    """The commands of each line in turn, each parsed only once the caller ran the lines
    before it, so the alias table it reads is the one they left (mksh's order). `skip`
    lines already run are passed over (parsed with `skipped_with`, the aliases of then)."""
    parser = _Parser(tokens, aliases if skipped_with is None else skipped_with)
    for _ in range(skip):
        parser.skip_newlines()
        parser.line()
    parser.aliases = aliases
    while True:
        parser.skip_newlines()
        if parser.peek() is None:
            return
        try:
            line = parser.line()
        except RecursionError:
            raise ShellSyntaxError("commands nested too deeply") from None
        yield line


class _Parser(Clauses):
    # -- grammar ---------------------------------------------------------------------------
    def parse_all(self) -> Script:
        script = self.script()
        if self.peek() is not None:
            raise self.fail()
        return script

    def line(self) -> Script:
        """The and/or lists up to the end of this line (or of the input)."""
        items: Script = []
        while self.peek() is not None and not self.peek_op("\n"):
            if self.peek_op(";") and not items:
                raise self.fail()
            if self.peek_op(";"):
                self.i += 1
                continue
            items.append(self.and_or())
            if self.peek_op("&"):
                items[-1].background = True
            if self.peek_op(";", "&"):
                self.i += 1
            elif not (self.peek() is None or self.peek_op("\n")):
                raise self.fail()
        return items

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
        negate = timed = posix = False
        self.expand_alias()
        if self.peek_keyword("time"):
            timed = True
            self.i += 1
            if self.peek_keyword("-p"):
                posix = True
                self.i += 1
            if self.at_end_of_list() or self.peek_op(";", "&", "\n", "&&", "||"):
                return Pipeline(False, [], timed, posix)  # `time` alone: the shell's times
            self.expand_alias()
        if self.peek_keyword("!"):
            negate = True
            self.i += 1
        commands = [self.command()]
        while self.peek_op("|"):
            self.i += 1
            self.skip_newlines()
            commands.append(self.command())
        return Pipeline(negate, commands, timed, posix)

    def command(self) -> Command:
        command: Command
        self.expand_alias()
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
        elif self.peek_keyword("for", "select"):
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

    def array_items(self) -> tuple[Word, ...]:
        """The words of `NAME=(…)`, from the assignment word to past the `)`."""
        self.i += 2
        items: list[Word] = []
        while not self.peek_op(")"):
            self.skip_newlines()
            tok = self.peek()
            if self.peek_op(")"):
                break
            if not isinstance(tok, Word):
                raise self.fail()
            items.append(tok)
            self.i += 1
        self.i += 1
        return tuple(items)

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
            assign = None if cmd.words else _assignment(tok)
            if assign is not None and self.toks[self.i + 1 : self.i + 2] == [Op("=(")]:
                cmd.assigns.append(assign._replace(items=self.array_items()))
                continue
            if assign is not None:
                cmd.assigns.append(assign)
            elif not cmd.words and cmd.assigns and self.expand_alias():
                continue  # `X=1 ll`: the alias still applies after the assignments
            elif not cmd.words and not cmd.assigns and tok.literal() in RESERVED:
                raise self.fail()
            else:
                cmd.words.append(tok)
                if self.i + 1 == self.alias_next:  # after an alias ending in a blank
                    self.i += 1
                    self.expand_alias()
                    continue
            self.i += 1
        if not (cmd.words or cmd.assigns or cmd.redirects):
            raise self.fail()
        return cmd


def _assignment(word: Word) -> Assign | None:
    """`NAME=…`, `NAME+=…` or `NAME[SUBSCRIPT]=…` (the subscript may hold expansions)."""
    first = word.parts[0] if word.parts else None
    if not isinstance(first, Lit) or first.quoted:
        return None
    name_end = len(first.text) - len(first.text.lstrip(_NAME_CHARS))
    name = first.text[:name_end]
    if not name or name[0].isdigit():
        return None
    subscript: Word | None = None
    parts = (Lit(first.text[name_end:], False), *word.parts[1:])
    if parts[0].text.startswith("[") if isinstance(parts[0], Lit) else False:
        found = _subscript_end(parts)
        if found is None:
            return None
        subscript, parts = found
    head = parts[0] if parts else None
    if not isinstance(head, Lit) or head.quoted:
        return None
    append = head.text.startswith("+=")
    if not (append or head.text.startswith("=")):
        return None
    value = head.text[2 if append else 1 :]
    rest = ((Lit(value, False),) if value else ()) + tuple(parts[1:])
    return Assign(name, Word(rest), subscript, append)


_NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"


def _subscript_end(parts: tuple[Lit | Part, ...]) -> tuple[Word, tuple[Part, ...]] | None:
    """Split `[SUBSCRIPT]REST` (parts starting with an unquoted `[`) at its `]`."""
    depth = 0
    inside: list[Part] = []
    for index, part in enumerate(parts):
        if not isinstance(part, Lit) or part.quoted:
            inside.append(part)
            continue
        for offset, ch in enumerate(part.text):
            depth += (ch == "[") - (ch == "]")
            if depth == 0:
                text = part.text[1 if index == 0 else 0 : offset]
                if index == 0:
                    inside = []
                if text:
                    inside.append(Lit(text, True))
                after = Lit(part.text[offset + 1 :], False)
                return Word(tuple(inside)), (after, *parts[index + 1 :])
        text = part.text[1:] if index == 0 else part.text
        if text:
            inside.append(Lit(text, True))
    return None
