"""Tokeniser for the POSIX shell command language, as Android's /system/bin/sh reads it.

A word is kept as a list of parts that remember whether they were quoted, because quoting
decides later whether an expansion is split into fields and whether `*` globs. Command
substitutions keep their source text: the simulator's interpreter parses and *runs* them when
the word is expanded, exactly when a real shell would; the run_shell guard parses them to
see what they would run.
"""

from __future__ import annotations

from dataclasses import dataclass


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
    name: str
    quoted: bool
    default: str | None = None  # ${name:-default}
    length: bool = False  # ${#name}


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


Token = Word | Op

REDIRECT_OPS = (">>", ">&", "<&", ">|", "<>", "<<", ">", "<")
CONTROL_OPS = ("&&", "||", ";;", ";", "&", "|", "(", ")")
_SPECIAL_PARAMS = "?$#@*!-0123456789"
_DOUBLE_QUOTE_ESCAPABLE = '$`"\\\n'
_METACHARS = " \t\n;&|()<>"


def tokenize(source: str) -> list[Token]:
    return _Lexer(source).run()


class _Lexer:
    def __init__(self, source: str) -> None:
        self.src = source
        self.pos = 0
        self.tokens: list[Token] = []

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
            elif self._operator():
                pass
            else:
                self._word()
        return self.tokens

    def _operator(self, io_number: int | None = None) -> bool:
        for op in (*REDIRECT_OPS, *CONTROL_OPS):
            if self.src.startswith(op, self.pos):
                if op == "<<":
                    raise ShellSyntaxError("here documents are not supported")
                if op == ";;":
                    raise ShellSyntaxError("';;' unexpected")
                self.tokens.append(Op(op, io_number))
                self.pos += len(op)
                return True
        return False

    def _word(self) -> None:
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
            elif ch == "'":
                end = src.find("'", self.pos + 1)
                if end < 0:
                    raise ShellSyntaxError("no closing quote", incomplete=True)
                flush()
                parts.append(Lit(src[self.pos + 1 : end], True))
                self.pos = end + 1
            elif ch == '"':
                flush()
                self.pos += 1
                parts.extend(self._double_quoted())
            elif ch in "$`":
                flush()
                parts.append(self._dollar(quoted=False))
            else:
                buf.append(ch)
                self.pos += 1
        flush()
        text = src[start : self.pos]
        if text.isdigit() and self.pos < len(src) and src[self.pos] in "<>":
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
        if nxt == "(":
            if src.startswith("$((", self.pos):
                arith = self._arithmetic(quoted)
                if arith is not None:
                    return arith
            body_start = self.pos + 2
            end = find_closing_paren(src, body_start)
            self.pos = end + 1
            return CmdSub(src[body_start:end], quoted)
        if nxt == "{":
            end = src.find("}", self.pos + 2)
            if end < 0:
                raise ShellSyntaxError("missing '}'", incomplete=True)
            inner = src[self.pos + 2 : end]
            self.pos = end + 1
            return _braced_param(inner, quoted)
        if nxt and nxt in _SPECIAL_PARAMS:
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

    def expression_parts(self) -> list[Part]:
        """The whole source read as the inside of double quotes (an arithmetic expression)."""
        parts: list[Part] = []
        buf: list[str] = []
        src = self.src
        while self.pos < len(src):
            ch = src[self.pos]
            if ch == "\\" and src[self.pos + 1 : self.pos + 2] in ("$", "`", '"', "\\"):
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
        if buf:
            parts.append(Lit("".join(buf), True))
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


def _braced_param(inner: str, quoted: bool) -> Param:
    if inner.startswith("#") and len(inner) > 1:
        return Param(inner[1:], quoted, length=True)
    if ":-" in inner:
        name, default = inner.split(":-", 1)
        return Param(name, quoted, default=default)
    if not inner or not (inner in _SPECIAL_PARAMS or inner.replace("_", "a").isalnum()):
        raise ShellSyntaxError(f"${{{inner}}}: bad substitution")
    return Param(inner, quoted)


def find_closing_paren(src: str, start: int) -> int:
    """Index of the `)` that closes a `$(` whose body starts at `start`."""
    depth = 1
    i = start
    while i < len(src):
        ch = src[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "'":
            end = src.find("'", i + 1)
            if end < 0:
                break
            i = end + 1
            continue
        if ch == '"':
            i = _skip_double(src, i + 1)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ShellSyntaxError("missing ')'", incomplete=True)


def _skip_double(src: str, i: int) -> int:
    while i < len(src):
        ch = src[i]
        if ch == "\\":
            i += 2
        elif ch == '"':
            return i + 1
        elif src.startswith("$(", i):
            i = find_closing_paren(src, i + 2) + 1
        else:
            i += 1
    raise ShellSyntaxError("no closing quote", incomplete=True)
