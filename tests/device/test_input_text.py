"""`input text` escaping, proven against the simulated device's POSIX shell: every payload is
typed literally into the field and runs nothing."""

from __future__ import annotations

import pytest

from adbwire.device import input as device_input
from adbwire.device.input import check_typeable, input_text_steps
from adbwire.device.ui import read_ui
from adbwire.errors import UsageError
from tests.device.ui_sim import Sim, simulated

MARKER = "/data/local/tmp/pwned"
PAYLOADS = [
    "hello world",
    "100% sure",
    "50%s off",  # a literal %s must not become a space
    "%%s %s% s %",
    "it's \"quoted\" and 'single'",
    f"; touch {MARKER}",
    f"x && touch {MARKER} || reboot",
    f"$(touch {MARKER})",
    f"`touch {MARKER}`",
    f"'; touch {MARKER}; '",
    f'"; touch {MARKER}; "',
    f"x | touch {MARKER} > {MARKER}",
    f"$HOME ${{IFS}} \\n \\ {MARKER}",
    "'\\''; reboot; '",
    "  leading and trailing  ",
    "tab\\tsplit * ? [a] ~ # !",
]


def body_text(sim: Sim) -> str:
    field = read_ui(sim.client).hierarchy.elements[9]
    assert field.resource_id.endswith("note_body_input")
    return field.text


def focus_body(sim: Sim) -> None:
    device_input.tap(sim.client, 540, 917)  # the body field of the editor


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_is_typed_literally_and_runs_nothing(payload: str) -> None:
    with simulated("note_editor") as sim:
        focus_body(sim)
        typed = device_input.type_text(sim.client, payload)
        assert body_text(sim) == payload
        assert typed.characters == len(payload)
        assert not sim.device.files.host_path(MARKER).exists()
        assert sim.userland.screen() == "note_editor"  # not rebooted, not sent home
        ran = {call[0] for call in sim.userland.calls}
        assert ran <= {"input", "uiautomator", "dumpsys", "grep"}, ran


def test_newlines_are_enter_keys_and_start_no_command() -> None:
    steps = list(input_text_steps(f"first\ntouch {MARKER}\r\nlast"))
    assert steps == [
        ["input", "text", "first"],
        ["input", "keyevent", "KEYCODE_ENTER"],
        ["input", "text", f"touch%s{MARKER}"],
        ["input", "keyevent", "KEYCODE_ENTER"],
        ["input", "text", "last"],
    ]
    with simulated("note_editor") as sim:
        focus_body(sim)
        device_input.type_text(sim.client, f"a\n$(touch {MARKER})")
        assert not sim.device.files.host_path(MARKER).exists()
        keys = [c for c in sim.userland.commands_named("input") if c[1] == "keyevent"]
        assert keys == [["input", "keyevent", "KEYCODE_ENTER"]]


def test_percent_s_is_split_so_input_cannot_turn_it_into_a_space() -> None:
    steps = [argv[2] for argv in input_text_steps("50%s off") if argv[1] == "text"]
    assert steps == ["50%", "s%soff"]
    assert [argv[2] for argv in input_text_steps("% s")] == ["%%ss"]


def test_long_text_is_chunked_and_survives() -> None:
    text = "The quick brown fox jumps over the lazy dog. " * 8
    chunks = [argv for argv in input_text_steps(text) if argv[1] == "text"]
    assert len(chunks) > 1 and all(len(argv[2]) <= 2 * 64 for argv in chunks)
    with simulated("note_editor") as sim:
        focus_body(sim)
        device_input.type_text(sim.client, text)
        assert body_text(sim) == text
        texts = [c for c in sim.userland.commands_named("input") if c[1] == "text"]
        assert len(texts) == len(chunks)


@pytest.mark.parametrize(("text", "char"), [("café", "é"), ("hi 👋", "👋"), ("a\x07b", "\x07")])
def test_characters_input_cannot_type_are_refused_with_the_reason(text: str, char: str) -> None:
    with pytest.raises(UsageError) as caught:
        check_typeable(text)
    message = str(caught.value)
    assert repr(char) in message and f"U+{ord(char):04X}" in message
    assert "printable ASCII" in message
    with simulated("note_editor") as sim, pytest.raises(UsageError):
        device_input.type_text(sim.client, text)
    assert sim.userland.calls == []


def test_too_long_is_refused() -> None:
    with pytest.raises(UsageError, match="10000"):
        check_typeable("a" * 10_001)
