"""The parser's cursor over the tokens and its compound clauses: if, for, case, [[ ]] and
function definitions (parser.py has lists, pipelines, simple commands and redirections)."""

from __future__ import annotations

from collections.abc import Mapping

from adbwire.shell_syntax.lexer import HereDoc, Op, ShellSyntaxError, Token, Word, tokenize
from adbwire.shell_syntax.tree import Case, Command, Conditional, For, FunctionDef, If, Script

RESERVED = {
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
    "select",
    "time",
}
CASE_ENDS = (";;", ";&", ";|")
TEST_OPS = ("&&", "||", "(", ")", "<", ">")
TERMINATORS = {"then", "else", "elif", "fi", "do", "done", "}", "esac"}


def _describe(tok: Token | None) -> str:
    if tok is None:
        return "unexpected EOF"
    if isinstance(tok, HereDoc):
        return "'<<' unexpected"
    if isinstance(tok, Op):
        return "newline unexpected" if tok.text == "\n" else f"'{tok.text}' unexpected"
    return f"'{tok.literal() or 'word'}' unexpected"


class Cursor:
    """The tokens and the position in them, with the look-ahead the grammar uses."""

    def __init__(self, tokens: list[Token], aliases: Mapping[str, str] | None = None) -> None:
        self.toks = list(tokens)  # alias expansion splices tokens in
        self.i = 0
        self.aliases: Mapping[str, str] = {} if aliases is None else aliases
        self.alias_next = -1
        """The token after an alias whose value ends in a blank: checked for one too."""
        self._expanded: dict[int, set[str]] = {}
        """Aliases already expanded at a position: `alias ls='ls -F'` expands once."""

    def expand_alias(self) -> bool:
        """Replace the word here by its alias's tokens (again while the new first word is
        another alias not yet expanded here); whether anything was replaced."""
        expanded = False
        while self.aliases:
            tok = self.peek()
            name = tok.literal() if isinstance(tok, Word) else None
            seen = self._expanded.setdefault(self.i, set())
            if name is None or name not in self.aliases or name in seen:
                break
            seen.add(name)
            value = self.aliases[name]
            tokens = tokenize(value)
            self.toks[self.i : self.i + 1] = tokens
            self.alias_next = self.i + len(tokens) if value[-1:] in (" ", "\t") else -1
            expanded = True
        return expanded

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


class Clauses(Cursor):
    """Compound clauses; `script` and `command` are the parser's."""

    def script(self) -> Script:
        raise NotImplementedError

    def command(self) -> Command:
        raise NotImplementedError

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
            and name not in RESERVED
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
            if not name or name in RESERVED:
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
            elif isinstance(tok, Op) and tok.io_number is None and tok.text in TEST_OPS:
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
            if isinstance(end, Op) and self.peek_op(*CASE_ENDS):
                ends.append(end.text)
                self.i += 1
            elif self.peek_keyword("esac"):
                ends.append(";;")
            else:
                raise self.fail()

    def for_clause(self) -> For:
        select = self.peek_keyword("select")
        self.i += 1  # "for" or "select"
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
        return For(name, items, body, select=select)
