"""Acting on elements against the simulated device: one match or nothing is touched; the
screen is read again and screen_changed / keyboard_shown tell the truth."""

from __future__ import annotations

import time

import pytest

from adbwire.device.ui import AmbiguousMatchError, NoMatchError, Selector, read_ui
from adbwire.device.ui import actions as ui_actions
from adbwire.device.ui.errors import StaleElementError
from adbwire.device.ui.observe import KEYBOARD_NOTE, observe_after
from adbwire.errors import DisconnectedError, UsageError
from tests.device.ui_sim import drop_link_at_next_dump, simulated

FAST = 0.3  # settle window: the simulator changes at once


def test_tap_by_label_reaches_the_clickable_row_and_changes_the_screen() -> None:
    with simulated("launcher") as sim:
        result = ui_actions.tap_element(sim.client, Selector("Notes"), settle=FAST)
        assert sim.userland.screen() == "notes_list"
        assert result.resolved.target.id == "e5"
        assert sim.userland.commands_named("input") == [["input", "tap", "150", "1636"]]
        seen = result.outcome
        assert seen.screen_changed is True and seen.keyboard_shown is False
        assert seen.after is not None and seen.after.focus is not None
        assert seen.after.focus.package == seen.package == "com.example.notes"
        assert seen.window == "com.example.notes/com.example.notes.NotesListActivity"
        assert seen.problem is None


def test_an_unchanged_screen_is_reported_as_unchanged() -> None:
    with simulated("notes_list") as sim:
        # the "Notes" title is not clickable and has no clickable ancestor: nothing happens
        result = ui_actions.tap_element(sim.client, Selector("Notes", by="text"), settle=FAST)
        assert result.outcome.screen_changed is False
        assert result.note is None and result.outcome.note is None
        assert sim.userland.screen() == "notes_list"


def test_unchanged_screen_with_the_keyboard_up_gets_a_note() -> None:
    with simulated("note_editor") as sim:
        result = ui_actions.tap_element(sim.client, Selector("New note"), settle=FAST)
        assert result.outcome.screen_changed is False
        assert result.outcome.keyboard_shown is True
        assert result.outcome.note == KEYBOARD_NOTE


def test_ambiguity_taps_nothing() -> None:
    with simulated("notes_list") as sim:
        with pytest.raises(AmbiguousMatchError) as caught:
            ui_actions.tap_element(sim.client, Selector("note_row", by="id"), settle=FAST)
        assert [e.id for e in caught.value.candidates] == ["e10", "e14", "e18"]
        assert sim.userland.commands_named("input") == []
        assert sim.userland.screen() == "notes_list"
        with pytest.raises(NoMatchError):
            ui_actions.long_press_element(sim.client, Selector("Shopping"), settle=FAST)
        assert sim.userland.commands_named("input") == []


def test_an_element_id_from_a_changed_screen_is_refused() -> None:
    with simulated("notes_list") as sim:
        seen = read_ui(sim.client).hierarchy
        sim.show("settings")
        with pytest.raises(StaleElementError):
            ui_actions.tap_element(sim.client, Selector(element="e10"), previous=seen)
        assert sim.userland.commands_named("input") == []
        sim.show("notes_list")  # back where the id was read: accepted
        result = ui_actions.tap_element(
            sim.client, Selector(element="e22"), previous=seen, settle=FAST
        )
        assert result.outcome.screen_changed is True
        assert sim.userland.screen() == "note_editor"


def test_screen_changed_is_none_when_the_screen_cannot_be_read_afterwards() -> None:
    with simulated("launcher") as sim:
        original = sim.userland.hooks.get

        def fail_after_tap(inv: object, command: object) -> int:
            if sim.userland.commands_named("input"):
                inv.err("ERROR: null root node returned by UiTestAutomationBridge.\n")  # type: ignore[attr-defined]
                return 0
            return command(inv)  # type: ignore[operator,no-any-return]

        assert original("uiautomator") is None
        sim.userland.hooks["uiautomator"] = fail_after_tap
        result = ui_actions.tap_element(sim.client, Selector("Notes"), settle=FAST)
        assert result.outcome.screen_changed is None
        assert result.outcome.after is None
        assert result.outcome.note is not None and "no window" in result.outcome.note


def test_long_press_holds_in_place() -> None:
    with simulated("notes_list") as sim:
        ui_actions.long_press_element(sim.client, Selector("Groceries"), settle=FAST)
        (call,) = sim.userland.commands_named("input")
        assert call[:2] == ["input", "swipe"] and call[2:4] == call[4:6] and call[6] == "800"


def test_type_text_into_a_field_is_verified() -> None:
    with simulated("note_editor") as sim:
        result = ui_actions.type_text(
            sim.client, "Buy 2% milk", selector=Selector("Start typing"), settle=FAST
        )
        assert result.verified and result.note is None
        assert result.field is not None and result.field.text == "Buy 2% milk"
        assert result.tapped is not None and result.tapped.element.id == "e9"


def test_type_text_clear_replaces_the_content() -> None:
    with simulated("note_editor") as sim:
        ui_actions.type_text(sim.client, "first", selector=Selector("Title"), settle=FAST)
        result = ui_actions.type_text(sim.client, "second", clear=True, settle=FAST)
        assert result.field is not None and result.field.text == "second"
        assert result.verified


def test_password_fields_are_typed_but_not_verified() -> None:
    with simulated("vault") as sim:
        result = ui_actions.type_text(sim.client, "1234", settle=FAST)
        assert result.verified is False
        assert result.field is not None and result.field.text == "\u2022" * 4
        assert result.note is not None and "password" in result.note


def test_typing_with_no_field_says_so() -> None:
    with simulated("launcher") as sim:
        result = ui_actions.type_text(sim.client, "hello", settle=FAST)
        assert result.field is None and not result.verified
        assert result.note is not None and "no focused text field" in result.note


def test_non_ascii_is_refused_before_the_device_is_touched() -> None:
    with simulated("note_editor") as sim:
        with pytest.raises(UsageError, match="printable ASCII"):
            ui_actions.type_text(sim.client, "café", selector=Selector("Title"))
        assert sim.userland.calls == []


def test_scroll_finds_an_element_further_down() -> None:
    with simulated("notes_list") as sim:
        result = ui_actions.scroll_to_element(sim.client, Selector("Books"))
        assert result.found and result.swipes == 1
        assert result.element is not None and result.element.text == "Books"
        (swipe,) = sim.userland.commands_named("input")
        start_y, end_y = int(swipe[3]), int(swipe[5])
        assert start_y > end_y  # content from below: the finger moves up


def test_scroll_stops_when_the_list_stops_moving() -> None:
    with simulated("notes_list") as sim:
        result = ui_actions.scroll_to_element(sim.client, Selector("Nowhere"), max_swipes=5)
        assert not result.found and result.swipes == 2
        assert result.reason is not None and "stopped moving" in result.reason


def test_scroll_is_bounded_and_needs_something_scrollable() -> None:
    with simulated("notes_list") as sim:
        result = ui_actions.scroll_to_element(sim.client, Selector("Books"), max_swipes=0)
        assert not result.found and result.reason == "not found after 0 swipes"
        with pytest.raises(UsageError):
            ui_actions.scroll_to_element(sim.client, Selector("Books"), container="e10")
    with simulated("vault") as sim:
        nothing = ui_actions.scroll_to_element(sim.client, Selector("Books"))
        assert nothing.reason == "nothing scrollable on screen"


def test_watching_for_a_change_ends_at_once_when_the_link_drops() -> None:
    with simulated("notes_list") as sim:
        before = read_ui(sim.client)
        drop_link_at_next_dump(sim)
        started = time.monotonic()
        with pytest.raises(DisconnectedError):
            observe_after(sim.client, before, settle=60)
        assert time.monotonic() - started < 30  # not the 60 s it may watch for
