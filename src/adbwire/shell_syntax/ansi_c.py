"""mksh's `$'…'` strings: single-quoted text with C's backslash escapes (R59's rules).

`\\xHH…` takes every hex digit after it, `\\uHHHH` up to 4 and `\\UHHHHHHHH` up to 8, octal
`\\NNN` up to 3; a value up to 0xFF from `\\x` or octal is one byte (kept here as the
character of that code), a larger one a character (past U+FFFF, U+FFFD as mksh's BMP-only
UTF-8 writes it); `\\cX` is control-X (`\\c?` DEL); an unknown escape is the character
itself; a NUL ends the string (the rest up to the quote is read and dropped).
"""

from __future__ import annotations

from adbwire.shell_syntax.words import ShellSyntaxError

__all__ = ["ansi_c_string"]

_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
_HEX = "0123456789abcdefABCDEF"
_OCTAL = "01234567"
_DIGITS_AFTER = {"x": None, "u": 4, "U": 8}  # None: as many as there are


def ansi_c_string(src: str, quote: int) -> tuple[str, int]:
    """The text of the `$'…'` whose opening quote is at `quote`, and the index after its
    closing quote."""
    out: list[str] = []
    ended = False
    i = quote + 1
    while True:
        if i >= len(src):
            raise ShellSyntaxError("no closing quote", incomplete=True)
        ch = src[i]
        if ch == "'":
            return "".join(out), i + 1
        if ch != "\\" or i + 1 >= len(src):
            text, i = ch, i + 1
        else:
            text, i = _escape(src, i + 1)
        if "\0" in text:
            ended = True
        if not ended:
            out.append(text)


def _escape(src: str, at: int) -> tuple[str, int]:
    """The character(s) the escape whose letter is at `at` stands for, and where it ends."""
    letter = src[at]
    if letter in _SIMPLE:
        return _SIMPLE[letter], at + 1
    if letter in _DIGITS_AFTER:
        limit = _DIGITS_AFTER[letter]
        end = at + 1
        while end < len(src) and src[end] in _HEX and (limit is None or end - at <= limit):
            end += 1
        if end == at + 1:
            return letter, end
        return _character(int(src[at + 1 : end], 16), byte=letter == "x"), end
    if letter in _OCTAL:
        end = at
        while end < len(src) and src[end] in _OCTAL and end - at < 3:
            end += 1
        return _character(int(src[at:end], 8) & 0xFF, byte=True), end
    if letter == "c" and at + 1 < len(src):
        control = src[at + 1]
        return ("\x7f" if control == "?" else chr(ord(control) & 0x1F)), at + 2
    return letter, at + 1


def _character(value: int, *, byte: bool) -> str:
    if byte and value <= 0xFF:
        return chr(value)
    if value > 0xFFFF or 0xD800 <= value <= 0xDFFF:
        return "\ufffd"
    return chr(value)
