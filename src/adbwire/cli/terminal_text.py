"""Device-provided text made safe to show on a terminal.

A device chooses its banner (model, product), its file and package names and the text of
its error messages. Printed raw, an escape sequence in one of them can clear the screen, set
the window title, move the cursor over earlier lines or, on some terminals, answer back as
if typed. Every line of human-readable CLI output that carries such text goes through
:func:`visible`.

The rule: a character Python's ``str.isprintable()`` rejects is shown as its Python escape
(``\\x1b``, ``\\r``, ``\\x9b``, ``\\u202e``, ``\\udcff``). That covers the C0 controls, DEL,
the C1 controls (U+0080..U+009F, which some terminals obey as 8-bit CSI/OSC), Unicode format
characters (bidi overrides and isolates, zero-width characters, the BOM), line and paragraph
separators, spaces other than U+0020, private-use and unassigned code points, and the lone
surrogates that stand for undecodable bytes in file names. Everything else, non-ASCII
letters included, is shown as is. A backslash is not doubled, so the rendering is for
reading, not for round trips: ``--json`` output keeps the exact text (JSON-escaped).

What the device sends as data (``adbwire shell`` and its stdout/stderr, exec output, pulled
file contents) never goes through here: it stays byte-exact.
"""

from __future__ import annotations

_KEPT_IN_MESSAGES = frozenset("\n\t")


def visible(text: str, *, multiline: bool = False) -> str:
    """``text`` with every non-printable character shown as an escape.

    ``multiline`` keeps newlines and tabs (a device's multi-line error message); ``\\r`` is
    escaped even then, since it lets a line overwrite what came before it.
    """
    if text.isprintable():  # the common case, checked at C speed
        return text
    kept = _KEPT_IN_MESSAGES if multiline else frozenset()
    return "".join(char if char.isprintable() or char in kept else _escape(char) for char in text)


def _escape(char: str) -> str:
    # repr's own escapes: \t \n \r by name, \xNN up to U+00FF, \uNNNN, \UNNNNNNNN beyond.
    return repr(char)[1:-1]
