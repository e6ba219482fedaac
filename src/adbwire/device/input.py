"""Touches, keys and text through Android's ``input`` command.

Text passes two parsers on the device, and both are handled here:

1. the device's shell: every argument is quoted (``adbwire.wire.shell_quote``), so ``;``,
   ``$(...)``, backticks, quotes and newlines are data, never a second command;
2. ``input text`` itself: it turns ``%s`` into a space and nothing else, so spaces are sent as
   ``%s``, and a literal ``%`` followed by ``s`` is split across two ``input text`` calls
   (each call starts afresh) so it is typed as the two characters it is.

``input text`` types through the virtual keyboard's key map, which has keys for printable
ASCII only: anything else (accents, emoji, CJK) is refused before the device is touched.
A newline is sent as the Enter key and a tab as the Tab key. Long text is cut into chunks
(a long ``input text`` is slow and can drop characters on some devices), several chunks per
shell command line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from adbwire.device import commands
from adbwire.errors import CommandFailedError, UsageError
from adbwire.wire import shell_quote
from adbwire.wire.client import AdbClient

CHUNK_CHARS = 64
MAX_LINE_CHARS = 2000
MAX_TEXT = 10_000
INPUT_TIMEOUT = 60.0
KEYS_PER_CALL = 50

# Named keys an agent may press (lower case); any KEYCODE_* name is also accepted.
KEYS: dict[str, str] = {
    "back": "KEYCODE_BACK",
    "home": "KEYCODE_HOME",
    "enter": "KEYCODE_ENTER",
    "tab": "KEYCODE_TAB",
    "delete": "KEYCODE_DEL",
    "backspace": "KEYCODE_DEL",
    "forward_delete": "KEYCODE_FORWARD_DEL",
    "escape": "KEYCODE_ESCAPE",
    "space": "KEYCODE_SPACE",
    "app_switch": "KEYCODE_APP_SWITCH",
    "recents": "KEYCODE_APP_SWITCH",
    "menu": "KEYCODE_MENU",
    "search": "KEYCODE_SEARCH",
    "dpad_up": "KEYCODE_DPAD_UP",
    "dpad_down": "KEYCODE_DPAD_DOWN",
    "dpad_left": "KEYCODE_DPAD_LEFT",
    "dpad_right": "KEYCODE_DPAD_RIGHT",
    "dpad_center": "KEYCODE_DPAD_CENTER",
    "volume_up": "KEYCODE_VOLUME_UP",
    "volume_down": "KEYCODE_VOLUME_DOWN",
    "volume_mute": "KEYCODE_VOLUME_MUTE",
    "power": "KEYCODE_POWER",
    "wakeup": "KEYCODE_WAKEUP",
    "sleep": "KEYCODE_SLEEP",
    "page_up": "KEYCODE_PAGE_UP",
    "page_down": "KEYCODE_PAGE_DOWN",
    "move_home": "KEYCODE_MOVE_HOME",
    "move_end": "KEYCODE_MOVE_END",
    "camera": "KEYCODE_CAMERA",
    "notification": "KEYCODE_NOTIFICATION",
    "settings": "KEYCODE_SETTINGS",
    "media_play_pause": "KEYCODE_MEDIA_PLAY_PAUSE",
}
_KEYCODE = re.compile(r"^KEYCODE_[A-Z0-9_]{1,40}$")
_SPECIAL_KEYS = {"\n": "KEYCODE_ENTER", "\t": "KEYCODE_TAB"}


def keycode(name: str) -> str:
    """``back`` / ``KEYCODE_BACK`` -> ``KEYCODE_BACK``; anything else is refused."""
    if _KEYCODE.match(name):
        return name
    found = KEYS.get(name.strip().lower().replace("-", "_").replace(" ", "_"))
    if found is None:
        raise UsageError(
            f"unknown key {name[:40]!r}: use one of {', '.join(KEYS)} or a KEYCODE_* name"
        )
    return found


def _coordinate(value: int, what: str) -> str:
    if not 0 <= value <= 100_000:
        raise UsageError(f"{what} {value} is outside the screen")
    return str(value)


def tap(client: AdbClient, x: int, y: int) -> None:
    commands.text(
        client, ["input", "tap", _coordinate(x, "x"), _coordinate(y, "y")], timeout=INPUT_TIMEOUT
    )


def swipe(client: AdbClient, x1: int, y1: int, x2: int, y2: int, *, duration_ms: int = 300) -> None:
    if not 0 <= duration_ms <= 60_000:
        raise UsageError("a swipe lasts 0..60000 ms")
    points = [_coordinate(v, "coordinate") for v in (x1, y1, x2, y2)]
    argv = ["input", "swipe", *points, str(duration_ms)]
    commands.text(client, argv, timeout=INPUT_TIMEOUT + duration_ms / 1000)


def long_press(client: AdbClient, x: int, y: int, *, duration_ms: int = 800) -> None:
    """A touch held in place (a swipe that does not move)."""
    swipe(client, x, y, x, y, duration_ms=duration_ms)


def press_keys(client: AdbClient, *names: str) -> list[str]:
    """Press keys in order (one ``input keyevent`` call); returns the keycodes pressed."""
    codes = [keycode(name) for name in names]
    for start in range(0, len(codes), KEYS_PER_CALL):  # keeps each command line short
        batch = codes[start : start + KEYS_PER_CALL]
        commands.text(client, ["input", "keyevent", *batch], timeout=INPUT_TIMEOUT)
    return codes


def check_typeable(text: str) -> str:
    """The text with CRLF made LF, or a UsageError naming the first character that
    ``input text`` cannot type, and why."""
    if len(text) > MAX_TEXT:
        raise UsageError(f"text is limited to {MAX_TEXT} characters per call")
    text = text.replace("\r\n", "\n")
    for position, char in enumerate(text):
        if char in _SPECIAL_KEYS or " " <= char <= "~":
            continue
        raise UsageError(
            f"cannot type {char!r} (U+{ord(char):04X}) at position {position}: Android's "
            "`input text` only has keys for printable ASCII (plus newline and tab), and would "
            "fail or type something else; set such text another way (paste, an app-specific "
            "intent, or the on-screen keyboard)"
        )
    return text


@dataclass(frozen=True)
class Typed:
    characters: int
    commands: int
    """``input`` invocations used (text chunks and key presses)."""


def input_text_steps(text: str, chunk_chars: int = CHUNK_CHARS) -> Iterator[list[str]]:
    """The ``input`` argument lists that type ``text`` exactly (see the module docstring)."""
    text = check_typeable(text)
    chunk = ""
    for char in text:
        if char in _SPECIAL_KEYS:
            if chunk:
                yield ["input", "text", _encode(chunk)]
                chunk = ""
            yield ["input", "keyevent", _SPECIAL_KEYS[char]]
            continue
        if len(chunk) >= chunk_chars or (char == "s" and chunk.endswith("%")):
            yield ["input", "text", _encode(chunk)]
            chunk = ""
        chunk += char
    if chunk:
        yield ["input", "text", _encode(chunk)]


def _encode(chunk: str) -> str:
    # Only spaces need input's own escape; a chunk never holds "%s" (split above).
    return chunk.replace(" ", "%s")


def type_text(client: AdbClient, text: str, *, chunk_chars: int = CHUNK_CHARS) -> Typed:
    """Type ``text`` into the focused field, literally (see the module docstring)."""
    steps = list(input_text_steps(text, chunk_chars))
    line: list[str] = []
    for argv in steps:
        command = shell_quote.join(argv)
        if line and len(" && ".join([*line, command])) > MAX_LINE_CHARS:
            _run_line(client, line)
            line = []
        line.append(command)
    if line:
        _run_line(client, line)
    return Typed(characters=len(text), commands=len(steps))


def _run_line(client: AdbClient, line: list[str]) -> None:
    command_line = " && ".join(line)
    result = commands.run_line(client, command_line, timeout=INPUT_TIMEOUT * len(line))
    if result.exit_code != 0:
        said = commands.decode(result.stderr or result.stdout).strip()
        raise CommandFailedError("input text", result.exit_code or 1, said[-300:])
