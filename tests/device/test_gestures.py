"""Double tap, long press and drag: the injection chosen per release, and their effect on the
simulated device."""

from __future__ import annotations

import pytest

from adbwire.device import gestures
from adbwire.errors import UsageError
from tests.device.ui_sim import simulated

NOTES_ICON = (150, 1636)  # the launcher's "Notes" shortcut


def test_hold_uses_motionevent_from_android_11_only() -> None:
    assert gestures.drag_line((10, 20), (30, 40), 400, 0, 34)[0] == "swipe"
    assert gestures.drag_line((10, 20), (30, 40), 400, 500, 29)[0] == "swipe"
    method, line = gestures.drag_line((10, 20), (30, 40), 400, 500, 30)
    assert method == "motionevent"
    steps = line.split(" && ")
    assert steps[:2] == ["input motionevent DOWN 10 20", "sleep 0.5"]
    assert steps[-1] == "input motionevent UP 30 40"
    assert "input motionevent MOVE 30 40" in steps


def test_swipe_carries_the_duration() -> None:
    assert gestures.drag_line((1, 2), (3, 4), 250, 0, None) == ("swipe", "input swipe 1 2 3 4 250")


@pytest.mark.parametrize(
    ("start", "duration", "hold"), [((-1, 0), 100, 0), ((0, 0), 20_000, 0), ((0, 0), 100, -5)]
)
def test_out_of_range_is_refused(start: tuple[int, int], duration: int, hold: int) -> None:
    with pytest.raises(UsageError):
        gestures.drag_line(start, (5, 5), duration, hold, 34)


def test_double_tap_starts_both_taps_in_one_line() -> None:
    line = gestures.double_tap_line(5, 6)
    assert line == "input tap 5 6 & sleep 0.08; input tap 5 6; wait"


def test_gestures_on_the_simulated_device() -> None:
    with simulated("launcher") as sim:
        done = gestures.double_tap(sim.client, *NOTES_ICON)
        assert done.method == "parallel_taps"
        assert sim.userland.screen() == "notes_list"
        assert len(sim.userland.commands_named("input")) == 2

        held = gestures.drag(sim.client, (540, 1800), (540, 600), duration_ms=100, hold_ms=200)
        assert held.method == "motionevent" and held.note is None
        assert sim.userland.screen() == "notes_list_scrolled"  # the list moved up
        assert sim.userland.state.pointer is None  # the finger came up

        gestures.drag(sim.client, (540, 600), (540, 1800), duration_ms=100)
        assert sim.userland.screen() == "notes_list"

        sim.show("launcher")
        pressed = gestures.long_press(sim.client, *NOTES_ICON, duration_ms=600)
        assert pressed.command == "input swipe 150 1636 150 1636 600"


def test_a_failed_step_still_lifts_the_finger() -> None:
    with simulated("notes_list") as sim:

        def refuse_moves(inv, command):  # type: ignore[no-untyped-def]
            if inv.args[:2] == ["motionevent", "MOVE"]:
                inv.err("Error: injection failed\n")
                return 1
            return command(inv)

        sim.userland.hooks["input"] = refuse_moves
        with pytest.raises(Exception, match="drag"):
            gestures.drag(sim.client, (540, 1800), (540, 600), duration_ms=0, hold_ms=100)
        assert sim.userland.state.pointer is None
        assert sim.userland.commands_named("input")[-1] == [
            "input",
            "motionevent",
            "UP",
            "540",
            "600",
        ]
