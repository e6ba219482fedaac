"""wait_for_element and assert_element, against the simulated device."""

from __future__ import annotations

import time
from importlib import resources

import pytest

from adbwire.device.parsers import UiHierarchy, parse_ui_xml
from adbwire.device.ui import Selector
from adbwire.device.ui import actions as ui_actions
from adbwire.device.ui.checks import check
from adbwire.device.ui.errors import NoMatchError
from adbwire.device.ui.select import resolve_one, suggest
from adbwire.errors import DisconnectedError, UsageError
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from tests.device.ui_sim import Sim, drop_link_at_next_dump, simulated


def move_after_dumps(sim: Sim, count: int, screen: str) -> None:
    """After the `count`-th dump, the app shows `screen` (as if it finished loading)."""

    def hook(inv: Invocation, command: CommandFn) -> int:
        status = command(inv)
        if len(sim.userland.commands_named("uiautomator")) == count:
            with inv.device.state.lock:
                inv.device.state.nav.show(screen)
        return status

    sim.userland.hooks["uiautomator"] = hook


def test_waits_until_the_element_appears() -> None:
    with simulated("notes_list") as sim:
        move_after_dumps(sim, 2, "note_editor")
        result = ui_actions.wait_for_element(sim.client, Selector("SAVE"), poll=0.2, timeout=20)
        assert result.met and result.reads == 3
        assert result.element is not None and result.element.resource_id.endswith("save_button")


def test_waits_until_the_element_is_gone() -> None:
    with simulated("note_editor") as sim:
        move_after_dumps(sim, 1, "settings")
        result = ui_actions.wait_for_element(
            sim.client, Selector("SAVE"), appear=False, poll=0.2, timeout=20
        )
        assert result.met and result.reads == 2 and result.element is None


def test_a_timeout_is_a_result_not_an_error() -> None:
    with simulated("notes_list") as sim:
        result = ui_actions.wait_for_element(sim.client, Selector("SAVE"), timeout=0.5, poll=0.2)
        assert not result.met and result.reads >= 2 and result.seconds <= 2
        with pytest.raises(UsageError):
            ui_actions.wait_for_element(sim.client, Selector("x"), timeout=121)


def test_failed_reads_while_waiting_are_reported() -> None:
    def null_root(inv: Invocation, command: CommandFn) -> int:
        inv.err("ERROR: null root node returned by UiTestAutomationBridge.\n")
        return 0

    with simulated("notes_list") as sim:
        sim.userland.hooks["uiautomator"] = null_root
        result = ui_actions.wait_for_element(sim.client, Selector("SAVE"), timeout=0.3, poll=0.2)
        assert not result.met and result.error is not None and "no window" in result.error


def editor() -> UiHierarchy:
    data = resources.files("adbwire.testing") / "data" / "screens" / "note_editor.xml"
    return parse_ui_xml(data.read_bytes())


@pytest.mark.parametrize(
    ("query", "expect", "value", "passed", "actual"),
    [
        ("SAVE", "visible", None, True, None),
        ("Delete", "hidden", None, True, None),
        ("SAVE", "hidden", None, False, None),
        ("Pin to top", "unchecked", None, True, "false"),
        ("Pin to top", "checked", None, False, "false"),
        ("save_button", "enabled", None, True, "true"),
        ("save_button", "text_equals", "SAVE", True, "SAVE"),
        ("save_button", "text_equals", "Save", False, "SAVE"),
        ("note_title_input", "text_contains", "tit", True, "Title"),
        ("Navigate up", "text_contains", "navigate", True, "Navigate up"),
    ],
)
def test_expectations(
    query: str, expect: str, value: str | None, passed: bool, actual: str | None
) -> None:
    result = check(editor(), Selector(query), expect, value)  # type: ignore[arg-type]
    assert (result.passed, result.actual) == (passed, actual)
    assert result.expectation.startswith(expect)
    if result.matches:
        assert result.evidence.startswith("e")  # the element, in the compact form


def test_several_matches_fail_with_the_candidates_as_evidence() -> None:
    data = resources.files("adbwire.testing") / "data" / "screens" / "notes_list.xml"
    notes = parse_ui_xml(data.read_bytes())
    result = check(notes, Selector("note_title"), "enabled")
    assert not result.passed and result.matches == 3
    # each title stands for its clickable row, as tap_element would act on it
    assert "e10 " in result.evidence and "e18 " in result.evidence
    with pytest.raises(UsageError):
        check(notes, Selector("note_title"), "text_equals")


def settings_screen() -> UiHierarchy:
    data = resources.files("adbwire.testing") / "data" / "screens" / "settings.xml"
    return parse_ui_xml(data.read_bytes())


def test_a_label_is_checked_through_the_row_it_labels() -> None:
    screen = settings_screen()
    synced = check(screen, Selector("Sync notes"), "checked")
    assert synced.passed and synced.actual == "true" and synced.matches == 1
    assert (
        synced.evidence.startswith("e14 ") and '(for e15 TextView "Sync notes"' in synced.evidence
    )
    assert check(screen, Selector("Dark theme"), "unchecked").passed
    assert not check(screen, Selector("Sync notes"), "unchecked").passed
    assert check(screen, Selector("Sync notes"), "enabled").passed
    # the row's own switch is the same element to a user: one match, not two
    assert check(screen, Selector("Sync notes", match="contains"), "checked").matches == 1


def test_a_query_that_finds_nothing_names_the_closest_labels() -> None:
    screen = settings_screen()
    assert suggest(screen, Selector("Sync")) == ["Sync notes", "Last synced 10:02"]
    assert suggest(screen, Selector("Setings")) == ["Settings"]  # a typo
    assert suggest(screen, Selector("zzz")) == []
    assert suggest(screen, Selector("S.*", match="regex")) == []
    failed = check(screen, Selector("Sync"), "checked")
    assert not failed.passed and "closest labels: 'Sync notes'" in failed.evidence
    with pytest.raises(NoMatchError) as caught:
        resolve_one(screen, Selector("dark"))
    assert caught.value.suggestions == ("Dark theme", "Use a dark background")


def test_assert_element_reads_the_device() -> None:
    with simulated("settings") as sim:
        result = ui_actions.assert_element(sim.client, Selector("Dark theme"), "visible")
        assert result.passed and "Dark theme" in result.evidence
        missing = ui_actions.assert_element(sim.client, Selector("Light theme"), "visible")
        assert not missing.passed and "nothing visible matches" in missing.evidence


def test_a_lost_connection_ends_the_wait_at_once() -> None:
    with simulated("notes_list") as sim:
        drop_link_at_next_dump(sim)
        started = time.monotonic()
        with pytest.raises(DisconnectedError):
            ui_actions.wait_for_element(sim.client, Selector("SAVE"), poll=0.2, timeout=60)
        assert time.monotonic() - started < 30  # not the 60 s the wait was allowed
