"""Lines of a result's text block: a summary line, a JSON line, then the payload's lines,
separated by ``"\\n"``.

A client may split them with any line splitter, and Python's ``str.splitlines`` (like some
others) also breaks at ``\\v``, ``\\f``, ``\\x1c``-``\\x1e``, ``\\x85``, U+2028 and U+2029. Device
text (a log message, a file or process name, a model name in a summary) can hold any of
them, so a line meant as one line must hold none: free text has them turned into spaces
(`one_line`), JSON has them escaped (`json_line`: the same value, parsed back).
"""

from __future__ import annotations

import json
from typing import Any

LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_AS_SPACES = str.maketrans(dict.fromkeys(LINE_BREAKS, " "))
_LEFT_RAW_BY_JSON = ("\x85", "\u2028", "\u2029")
"""The line breaks json.dumps(ensure_ascii=False) writes unescaped (it escapes < 0x20)."""


def one_line(text: str) -> str:
    """`text` with every line break a space."""
    return text.translate(_AS_SPACES)


def json_line(value: Any) -> str:
    """`value` as compact JSON on one line, whatever splitter reads it."""
    packed = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for char in _LEFT_RAW_BY_JSON:
        if char in packed:  # only inside strings, where the escape means the same
            packed = packed.replace(char, f"\\u{ord(char):04x}")
    return packed
