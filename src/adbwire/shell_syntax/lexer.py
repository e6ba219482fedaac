"""Tokeniser for the POSIX shell command language, as Android's /system/bin/sh reads it.

A word is kept as a list of parts that remember whether they were quoted, because quoting
decides later whether an expansion is split into fields and whether `*` globs. Command
substitutions keep their source text: the simulator's interpreter parses and *runs* them when
the word is expanded, exactly when a real shell would; the run_shell guard parses them to
see what they would run.
"""

from __future__ import annotations

import re

from adbwire.shell_syntax.ansi_c import ansi_c_string
from adbwire.shell_syntax.braced import PARAM_OPS, SPECIAL_PARAMS, braced_param
from adbwire.shell_syntax.brackets import (
    command_substitution_end,
    find_closing_brace,
    find_closing_paren,
)
from adbwire.shell_syntax.words import (
    Arith,
    CmdSub,
    HereDoc,
    Lit,
    Op,
    Param,
    Part,
    ShellSyntaxError,
    Token,
    Word,
)

__all__ = [
    "CONTROL_OPS",
    "PARAM_OPS",
    "REDIRECT_OPS",
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
    "expression",
    "find_closing_paren",
    "tokenize",
]

REDIRECT_OPS = ("<<<", "&>", ">>", ">&", "<&", ">|", "<>", ">", "<")
"""`&>FILE` is mksh's `>FILE 2>&1`."""
CONTROL_OPS = ("&&", "||", ";;", ";&", ";|", ";", "&", "|", "(", ")")
_DOUBLE_QUOTE_ESCAPABLE = '$`"\\\n'
_METACHARS = " \t\n;&|()<>"
_COMMAND_STARTERS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "{", "!",
                               "time"})  # fmt: skip
_ARRAY_START = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_QUOTE_OR_EXPANSION = "'\"$`"


def tokenize(source: str) -> list[Token]:
    return _Lexer(source).run()


def expression(text: str) -> tuple[Part, ...]:
    """Text read as an arithmetic expression's source (the inside of double quotes): what
    mksh substitutes in an array subscript it meets while evaluating a variable's value."""
    return tuple(_Lexer(text).expression_parts())


class _Lexer:
    def __init__(self, source: str) -> None:
        self.src = source
        self.pos = 0
        self.tokens: list[Token] = []
        self.pending: list[HereDoc] = []
        """Here-documents whose bodies start after the current line."""

    def run(self) -> list[Token]:
        src = self.src
        while self.pos < len(src):
            ch = src[self.pos]
            if ch in " \t":
                self.pos += 1
            elif ch == "\\" and src.startswith("\\\n", self.pos):
                self.pos += 2
            elif ch == "#":
                end = src.find("\n", self.pos)
                self.pos = len(src) if end < 0 else end
            elif ch == "\n":
                self.tokens.append(Op("\n"))
                self.pos += 1
                self._heredoc_bodies()
            elif self._operator():
                pass
            else:
                self._word()
        if self.pending:
            raise ShellSyntaxError(
                f"here document '{self.pending[0].delimiter}' unclosed", incomplete=True
            )
        return self.tokens

    def _heredoc(self, io_number: int | None) -> None:
        strip = self.src.startswith("<<-", self.pos)
        self.pos += 3 if strip else 2
        while self.src[self.pos : self.pos + 1] in (" ", "\t"):
            self.pos += 1
        if self.pos >= len(self.src) or self.src[self.pos] in _METACHARS:
            raise ShellSyntaxError("<< without a delimiter", incomplete=self.pos >= len(self.src))
        start = len(self.tokens)
        self._word(io_number=False)  # `<<2>x`: the delimiter is 2
        word = self.tokens.pop(start)
        assert isinstance(word, Word)
        delimiter = "".join(p.text for p in word.parts if isinstance(p, Lit))
        literal = any(p.quoted for p in word.parts if isinstance(p, Lit))
        doc = HereDoc(io_number, strip, delimiter, literal)
        self.tokens.append(doc)
        self.pending.append(doc)

    def _heredoc_bodies(self) -> None:
        """Read the bodies of the line's here-documents, each up to its delimiter line."""
        src = self.src
        for doc in self.pending:
            lines: list[str] = []
            while True:
                if self.pos >= len(src):
                    raise ShellSyntaxError(
                        f"here document '{doc.delimiter}' unclosed", incomplete=True
                    )
                end = src.find("\n", self.pos)
                line = src[self.pos : len(src) if end < 0 else end]
                self.pos = len(src) if end < 0 else end + 1
                if doc.strip_tabs:
                    line = line.lstrip("\t")
                if line == doc.delimiter:
                    break
                lines.append(line + "\n")
            doc.text = "".join(lines)
            if doc.literal:
                doc.body = (Lit(doc.text, True),)
            else:
                doc.body = tuple(_Lexer(doc.text).expression_parts(escapable="$`\\\n"))
        self.pending = []

    def _operator(self, io_number: int | None = None) -> bool:
        if self.src.startswith("<<<", self.pos):  # a here-string: the word, then a newline
            self.tokens.append(Op("<<<", io_number))
            self.pos += 3
            return True
        if self.src.startswith("<<", self.pos):
            self._heredoc(io_number)
            return True
        if io_number is None and self.src.startswith("((", self.pos) and self._arith_command():
            return True
        for op in (*REDIRECT_OPS, *CONTROL_OPS):
            if self.src.startswith(op, self.pos):
                self.tokens.append(Op(op, io_number))
                self.pos += len(op)
                return True
        return False

    def _arith_command(self) -> bool:
        """mksh's `((EXPRESSION))` where a command starts: the tokens of `let
        "EXPRESSION"`, which it is. False when the parentheses are subshells instead
        (`((cd /; ls); pwd)`)."""
        last = self.tokens[-1] if self.tokens else None
        if isinstance(last, Word) and last.literal() not in _COMMAND_STARTERS:
            return False
        if isinstance(last, (Op, HereDoc)) and (
            not isinstance(last, Op) or last.io_number is not None or last.text in REDIRECT_OPS
        ):
            return False
        try:
            end = find_closing_paren(self.src, self.pos + 2)
        except ShellSyntaxError:
            return False
        if not self.src.startswith(")", end + 1):
            return False
        expression = _Lexer(self.src[self.pos + 2 : end]).expression_parts()
        self.tokens.append(Word((Lit("let", True),)))
        self.tokens.append(Word(tuple(expression) or (Lit("", True),)))
        self.pos = end + 2
        return True

    def _word(self, *, io_number: bool = True) -> None:
        parts: list[Part] = []
        buf: list[str] = []
        src = self.src

        def flush(quoted: bool = False) -> None:
            if buf:
                parts.append(Lit("".join(buf), quoted))
                buf.clear()

        start = self.pos
        while self.pos < len(src):
            ch = src[self.pos]
            if ch == "(" and not parts and _ARRAY_START.fullmatch("".join(buf)):
                flush()  # `NAME=(…)`: mksh's array assignment; the parser reads the rest
                self.tokens.append(Word(tuple(parts)))
                self.tokens.append(Op("=("))
                self.pos += 1
                return
            if ch in _METACHARS:
                break
            if ch == "\\":
                if self.pos + 1 >= len(src):
                    self.pos += 1
                    continue
                nxt = src[self.pos + 1]
                self.pos += 2
                if nxt == "\n":
                    continue
                flush()
                parts.append(Lit(nxt, True))
            elif ch in _QUOTE_OR_EXPANSION:
                flush()
                parts.extend(self._quote_or_expansion(ch))
            else:
                buf.append(ch)
                self.pos += 1
        flush()
        text = src[start : self.pos]
        if io_number and text.isdigit() and self.pos < len(src) and src[self.pos] in "<>":
            self._operator(io_number=int(text))
            return
        self.tokens.append(Word(tuple(parts)))

    def _double_quoted(self) -> list[Part]:
        parts: list[Part] = []
        buf: list[str] = []
        src = self.src
        while True:
            if self.pos >= len(src):
                raise ShellSyntaxError("no closing quote", incomplete=True)
            ch = src[self.pos]
            if ch == '"':
                self.pos += 1
                break
            if (
                ch == "\\"
                and self.pos + 1 < len(src)
                and src[self.pos + 1] in _DOUBLE_QUOTE_ESCAPABLE
            ):
                if src[self.pos + 1] != "\n":
                    buf.append(src[self.pos + 1])
                self.pos += 2
            elif ch in "$`":
                if buf:
                    parts.append(Lit("".join(buf), True))
                    buf.clear()
                parts.append(self._dollar(quoted=True))
            else:
                buf.append(ch)
                self.pos += 1
        # An empty "" still makes a (quoted, empty) field.
        parts.append(Lit("".join(buf), True))
        return parts

    def _dollar(self, *, quoted: bool) -> Part:
        src = self.src
        if src[self.pos] == "`":
            return self._backquote(quoted)
        nxt = src[self.pos + 1] if self.pos + 1 < len(src) else ""
        if nxt == "'" and not quoted:  # `$'…'`: C escapes (`"$'x'"` is plain text)
            text, self.pos = ansi_c_string(src, self.pos + 1)
            return Lit(text, True)
        if nxt == "(":
            if src.startswith("$((", self.pos):
                arith = self._arithmetic(quoted)
                if arith is not None:
                    return arith
            body_start = self.pos + 2
            end = command_substitution_end(src, body_start)
            self.pos = end + 1
            return CmdSub(src[body_start:end], quoted)
        if nxt == "{":
            end = find_closing_brace(src, self.pos + 2)
            inner = src[self.pos + 2 : end]
            self.pos = end + 1
            return braced_param(inner, quoted)
        if nxt and nxt in SPECIAL_PARAMS:
            self.pos += 2
            return Param(nxt, quoted)
        if nxt and (nxt.isalpha() or nxt == "_"):
            end = self.pos + 1
            while end < len(src) and (src[end].isalnum() or src[end] == "_"):
                end += 1
            name = src[self.pos + 1 : end]
            self.pos = end
            return Param(name, quoted)
        self.pos += 1
        return Lit("$", quoted)

    def _arithmetic(self, quoted: bool) -> Arith | None:
        """`$((…))`, or None when the parentheses say `$( (…) … )`, a subshell inside `$(`."""
        inner_end = find_closing_paren(self.src, self.pos + 3)
        if not self.src.startswith(")", inner_end + 1):
            return None
        body = _Lexer(self.src[self.pos + 3 : inner_end])
        self.pos = inner_end + 2
        return Arith(tuple(body.expression_parts()), quoted)

    def expression_parts(self, escapable: str = '$`"\\', drop: str = "") -> list[Part]:
        """The whole source read as the inside of double quotes (an arithmetic expression,
        an unquoted here-document's body): a backslash escapes only `escapable`."""
        parts: list[Part] = []
        buf: list[str] = []
        src = self.src
        while self.pos < len(src):
            ch = src[self.pos]
            nxt = src[self.pos + 1 : self.pos + 2]
            if ch == "\\" and nxt and nxt in escapable:
                if nxt != "\n":
                    buf.append(nxt)
                self.pos += 2
            elif ch in drop:
                self.pos += 1
            elif ch in "$`":
                if buf:
                    parts.append(Lit("".join(buf), True))
                    buf.clear()
                parts.append(self._dollar(quoted=True))
            else:
                buf.append(ch)
                self.pos += 1
        if buf:
            parts.append(Lit("".join(buf), True))
        return parts

    def _quote_or_expansion(self, ch: str) -> list[Part]:
        """At `ch` (one of _QUOTE_OR_EXPANSION) in a word: a single- or double-quoted
        string, or a `$`/backquote expansion, read whole."""
        src = self.src
        if ch == "'":
            end = src.find("'", self.pos + 1)
            if end < 0:
                raise ShellSyntaxError("no closing quote", incomplete=True)
            text = src[self.pos + 1 : end]
            self.pos = end + 1
            return [Lit(text, True)]
        if ch == '"':
            self.pos += 1
            return self._double_quoted()
        return [self._dollar(quoted=False)]

    def param_word_parts(self, quoted: bool) -> list[Part]:
        """The word of `${name OP word}`: inside double quotes, read as their inside;
        otherwise quotes, backslashes and expansions as in a word, blanks kept."""
        if quoted:  # a `"` inside only toggles quoting, which is on anyway
            return self.expression_parts(escapable='$`"\\}', drop='"')
        parts: list[Part] = []
        buf: list[str] = []
        src = self.src

        def flush() -> None:
            if buf:
                parts.append(Lit("".join(buf), False))
                buf.clear()

        while self.pos < len(src):
            ch = src[self.pos]
            if ch == "\\" and self.pos + 1 < len(src):
                flush()
                parts.append(Lit(src[self.pos + 1], True))
                self.pos += 2
            elif ch in _QUOTE_OR_EXPANSION:
                flush()
                parts.extend(self._quote_or_expansion(ch))
            else:
                buf.append(ch)
                self.pos += 1
        flush()
        return parts

    def _backquote(self, quoted: bool) -> Part:
        src = self.src
        out: list[str] = []
        i = self.pos + 1
        while True:
            if i >= len(src):
                raise ShellSyntaxError("no closing quote", incomplete=True)
            ch = src[i]
            if ch == "`":
                break
            if ch == "\\" and i + 1 < len(src) and src[i + 1] in "$`\\":
                out.append(src[i + 1])
                i += 2
                continue
            out.append(ch)
            i += 1
        self.pos = i + 1
        return CmdSub("".join(out), quoted)
