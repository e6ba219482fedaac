"""``dumpsys input_method``: is the soft keyboard on screen?"""

from __future__ import annotations

import re

from adbwire.device.parsers._text import normalize_newlines

# In order of authority: the system service's own flag, then the keyboard app's view state
# (printed by InputMethodService under both names), then the IME window visibility bits.
_SHOWN_FLAGS = (
    re.compile(r"(?<![\w])mInputShown=(true|false)\b"),
    re.compile(r"(?<![\w])mIsInputViewShown=(true|false)\b"),
    re.compile(r"(?<![\w])isInputViewShown=(true|false)\b"),
)
_WINDOW_VISIBILITY = re.compile(r"(?<![\w])mImeWindowVis=(?:0x)?([0-9a-fA-F]+)\b")
_IME_VISIBLE_BIT = 0x2  # InputMethodService.IME_VISIBLE


def parse_keyboard_shown(text: str) -> bool | None:
    """Whether the soft keyboard is shown, or ``None`` when the dump does not say."""
    text = normalize_newlines(text)
    for flag in _SHOWN_FLAGS:
        match = flag.search(text)
        if match is not None:
            return match.group(1) == "true"
    visibility = _WINDOW_VISIBILITY.search(text)
    if visibility is not None:
        return bool(int(visibility.group(1), 16) & _IME_VISIBLE_BIT)
    return None
