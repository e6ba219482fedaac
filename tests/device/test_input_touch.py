"""Taps, swipes, long presses and named keys, as the simulated device receives them."""

from __future__ import annotations

import pytest

from adbwire.device import input as device_input
from adbwire.errors import UsageError
from tests.device.ui_sim import simulated


def test_tap_and_swipe_reach_the_device_as_integers() -> None:
    with simulated("launcher") as sim:
        device_input.tap(sim.client, 150, 1636)
        assert sim.userland.screen() == "notes_list"
        device_input.swipe(sim.client, 540, 1800, 540, 700, duration_ms=250)
        assert sim.userland.screen() == "notes_list_scrolled"
        assert sim.userland.commands_named("input") == [
            ["input", "tap", "150", "1636"],
            ["input", "swipe", "540", "1800", "540", "700", "250"],
        ]


def test_long_press_is_a_swipe_that_stays() -> None:
    with simulated("notes_list") as sim:
        device_input.long_press(sim.client, 100, 500, duration_ms=900)
        assert sim.userland.commands_named("input") == [
            ["input", "swipe", "100", "500", "100", "500", "900"]
        ]


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("back", "KEYCODE_BACK"),
        ("Home", "KEYCODE_HOME"),
        ("enter", "KEYCODE_ENTER"),
        ("app-switch", "KEYCODE_APP_SWITCH"),
        ("volume up", "KEYCODE_VOLUME_UP"),
        ("delete", "KEYCODE_DEL"),
        ("dpad_center", "KEYCODE_DPAD_CENTER"),
        ("KEYCODE_MEDIA_NEXT", "KEYCODE_MEDIA_NEXT"),
    ],
)
def test_key_names(name: str, code: str) -> None:
    assert device_input.keycode(name) == code


@pytest.mark.parametrize("name", ["", "explode", "KEYCODE_back; reboot", "keycode_back", "4"])
def test_unknown_keys_are_refused_with_the_list(name: str) -> None:
    with pytest.raises(UsageError, match="back, home"):
        device_input.keycode(name)


def test_keys_move_the_screen() -> None:
    with simulated("note_editor") as sim:
        assert device_input.press_keys(sim.client, "back") == ["KEYCODE_BACK"]
        assert sim.userland.screen() == "note_editor"  # the first BACK hides the keyboard
        device_input.press_keys(sim.client, "back")
        assert sim.userland.screen() != "note_editor"
        device_input.press_keys(sim.client, "home")
        assert sim.userland.screen() == "launcher"


@pytest.mark.parametrize(("x", "y"), [(-1, 5), (5, 100_001)])
def test_coordinates_off_any_screen_are_refused(x: int, y: int) -> None:
    with simulated() as sim:
        with pytest.raises(UsageError):
            device_input.tap(sim.client, x, y)
        with pytest.raises(UsageError):
            device_input.swipe(sim.client, 0, 0, x, y)
        assert sim.userland.calls == []


def test_many_keys_go_in_short_command_lines() -> None:
    with simulated("note_editor") as sim:
        pressed = device_input.press_keys(sim.client, *["delete"] * 120)
        assert pressed == ["KEYCODE_DEL"] * 120
        calls = sim.userland.commands_named("input")
        assert [len(call) - 2 for call in calls] == [50, 50, 20]
