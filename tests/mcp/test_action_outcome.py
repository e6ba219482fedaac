"""Action outcomes, crashes found fast, logs of dead apps and the crash history, through a
real in-memory MCP client against the simulated device (its sample app crashes in Java at
notes://stats, natively at notes://sync, and stops responding 1 s after notes://export).

Timing bounds are wide for a loaded 2-core CI machine: several times what the simulator
takes, and still far below the 15 s launch timeout the old wait always ran into.
"""

from __future__ import annotations

import time

from adbwire.device.ui.outcome import LOG_SLICE
from adbwire.mcp.registry import all_specs
from adbwire.mcp.tools.outcome import ActionOutcome
from adbwire.testing.userland.android import app_faults
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from tests.mcp.harness import data_of, error_of, payload_of
from tests.mcp.test_ui_tools import session

FAST_ANSWER = 6.0
OUTCOME_KEYS = {"screen_changed", "window", "keyboard_shown"}


async def test_launch_of_a_crashing_activity_answers_at_once() -> None:
    async with session("launcher") as s:
        started = time.monotonic()
        error = error_of(
            await s.call(
                "launch_app", {"package": "com.example.notes", "activity": ".StatsActivity"}
            )
        )
        assert time.monotonic() - started < FAST_ANSWER
        assert error["code"] == "app_crashed" and error["next_action"] == "inspect_logs"
        details = error["details"]
        assert details["kind"] == "java" and details["process"] == "com.example.notes"
        assert details["root_cause"].startswith("java.lang.IllegalStateException: Statistics")


async def test_deep_links_verify_the_focus_and_report_crashes() -> None:
    async with session("launcher") as s:
        crashed = error_of(await s.call("open_deep_link", {"uri": "notes://stats"}))
        assert crashed["code"] == "app_crashed"
        native = error_of(await s.call("open_deep_link", {"uri": "notes://sync"}))
        assert native["code"] == "app_crashed" and native["details"]["kind"] == "native"
        assert native["details"]["stack"][0].startswith("#00 pc ")
        opened = await s.ok("open_deep_link", {"uri": "notes://settings"})
        assert opened["activity"] == "com.example.notes.SettingsActivity"
        assert opened["screen_changed"] is True
        assert opened["window"] == "com.example.notes/com.example.notes.SettingsActivity"


async def test_an_anr_is_the_error_soon_after_it_happens() -> None:
    async with session("launcher") as s:
        started = time.monotonic()
        error = error_of(await s.call("open_deep_link", {"uri": "notes://export"}))
        assert time.monotonic() - started < 1.0 + FAST_ANSWER  # the app hangs 1 s first
        assert error["code"] == "app_not_responding"
        assert "Input dispatching timed out" in error["message"]


async def test_coordinate_actions_report_the_outcome() -> None:
    async with session("launcher") as s:
        tapped = await s.ok("tap", {"x": 150, "y": 1636})  # the Notes icon
        assert tapped.keys() >= OUTCOME_KEYS
        assert tapped["screen_changed"] is True and tapped["keyboard_shown"] is False
        assert tapped["window"] == "com.example.notes/com.example.notes.NotesListActivity"
        swiped = await s.ok("swipe", {"direction": "up"})
        assert swiped["screen_changed"] is True  # the list scrolled
        pressed = await s.ok("press_key", {"key": "back"})
        assert pressed.keys() >= OUTCOME_KEYS and pressed["keycode"] == "KEYCODE_BACK"


async def test_an_unchanged_screen_is_not_waited_on_long() -> None:
    async with session("notes_list") as s:
        before = len(s.userland.commands_named("uiautomator"))
        tapped = await s.ok("tap", {"x": 5, "y": 5})  # the status bar: nothing happens
        assert tapped["screen_changed"] is False
        dumps = s.userland.commands_named("uiautomator")
        # one dump before the tap, and at most two while settling (the old 1.5 s window
        # re-read the screen four times); a slow machine only reads fewer times
        assert len(dumps) - before <= 3


async def test_logs_of_a_dead_app_and_the_crash_history() -> None:
    async with session("launcher") as s:
        for uri in ("notes://export", "notes://stats", "notes://sync"):  # ends dead
            error_of(await s.call("open_deep_link", {"uri": uri}))
        read = await s.call("read_logcat", {"package": "com.example.notes", "min_level": "E"})
        page, lines = data_of(read), payload_of(read)
        assert page["count"] == len(lines) > 0 and "earlier processes" in page["note"]
        assert any(" E AndroidRuntime: FATAL EXCEPTION" in line for line in lines)
        listed = await s.call("list_crashes", {"package": "com.example.notes"})
        history, stacks = data_of(listed), payload_of(listed)
        assert [c["kind"] for c in history["crashes"]] == ["native", "java", "anr"]
        native = history["crashes"][0]
        assert native["cause"].startswith("SIGSEGV: SEGV_MAPERR") and native["frames"] > 0
        assert stacks[0] == "[1] native com.example.notes"
        assert stacks[1].startswith("  #00 pc") and "notes::sync::merge" in stacks[1]
        assert f"[2] java {history['crashes'][1]['process']}" in stacks
        first = await s.ok("list_crashes", {"package": "com.example.notes", "max_items": 1})
        assert first["remaining"] == 2 and first["next_cursor"]
        rest = await s.ok("list_crashes", {"cursor": first["next_cursor"]})
        assert [c["kind"] for c in rest["crashes"]] == ["java"] and rest["remaining"] == 1
        only = await s.ok("list_crashes", {"kinds": ["java"]})
        assert [c["kind"] for c in only["crashes"]] == ["java"]
        last = await s.call("last_crash", {"package": "com.example.notes"})
        newest, stack = data_of(last), payload_of(last)
        assert newest["kind"] == "native" and stack[0].startswith("#00 pc")
        assert newest["frames"] == len(stack)


async def test_an_action_that_crashes_the_app_is_its_error() -> None:
    async with session("launcher") as s:
        await s.ok("open_deep_link", {"uri": "notes://settings"})
        state = s.userland.state
        notes = state.packages["com.example.notes"]
        sync = next(a for a in notes.activities if a.name.endswith(".SyncActivity"))

        def key_then_native_crash(inv: Invocation, command: CommandFn) -> int:
            status = command(inv)
            with state.lock:  # the app dies in native code while it handles the key
                app_faults.native_crash(state, notes.name, sync, notes.pid or 0)
            return status

        s.userland.hooks["input"] = key_then_native_crash
        error = error_of(await s.call("press_key", {"key": "enter"}))
        assert error["code"] == "app_crashed" and error["details"]["kind"] == "native"
        assert error["details"]["outcome"]["screen_changed"] is True
        assert any("Fatal signal 11" in line for line in error["details"]["outcome"]["log"])


async def test_typing_and_scrolling_report_the_outcome_too() -> None:
    async with session("note_editor") as s:
        typed = await s.ok("type_text", {"text": "milk", "query": "Title"})
        assert typed["verified"] is True and typed["screen_changed"] is True
        assert typed["keyboard_shown"] is True and typed["window"].endswith("NoteEditorActivity")
    async with session("notes_list") as s:
        scrolled = await s.ok("scroll_to_element", {"query": "Books", "match": "contains"})
        assert scrolled["swipes"] >= 1 and scrolled["screen_changed"] is True
        assert scrolled["window"].endswith("NotesListActivity")


async def test_a_screen_that_cannot_be_read_does_not_stop_the_action() -> None:
    async with session("launcher") as s:

        def never_idle(inv: Invocation, command: CommandFn) -> int:
            inv.err("ERROR: could not get idle state.\n")  # a game that never stops animating
            return 1

        s.userland.hooks["uiautomator"] = never_idle
        pressed = await s.ok("press_key", {"key": "home"})
        assert s.userland.commands_named("input") == [["input", "keyevent", "KEYCODE_HOME"]]
        assert "screen_changed" not in pressed  # unknown: left out, as every None is
        assert "the screen could not be read" in pressed["note"]


async def test_an_anr_dialog_left_on_screen_is_the_error_until_answered() -> None:
    async with session("launcher") as s:
        assert error_of(await s.call("open_deep_link", {"uri": "notes://export"}))
        blocked = error_of(await s.call("press_key", {"key": "enter"}))
        assert blocked["code"] == "app_not_responding"
        assert "Wait or Close app" in blocked["message"]
        waited = await s.ok("tap_element", {"query": "Wait"})  # answering it is fine
        assert waited["screen_changed"] is True


async def test_another_apps_crash_is_not_the_actions() -> None:
    async with session("launcher") as s:
        await s.ok("open_deep_link", {"uri": "notes://settings"})
        state = s.userland.state
        notes = state.packages["com.example.notes"]
        sync = next(a for a in notes.activities if a.name.endswith(".SyncActivity"))
        with state.lock:  # a browser running in the background, unrelated to the notes app
            chrome, _ = state.start_process("com.android.chrome", quiet=True)

        def key_while_the_browser_dies(inv: Invocation, command: CommandFn) -> int:
            status = command(inv)
            with state.lock:
                app_faults.native_crash(state, "com.android.chrome", sync, chrome)
            return status

        s.userland.hooks["input"] = key_while_the_browser_dies
        pressed = await s.ok("press_key", {"key": "tab"})
        assert "log" not in pressed  # its lines are not the notes app's either
        history = await s.ok("list_crashes", {"package": "com.android.chrome"})
        assert [c["kind"] for c in history["crashes"]] == ["native"]  # but it is on record


ACTION_TOOLS = (
    "tap", "swipe", "press_key", "long_press_element", "tap_element", "type_text",
    "scroll_to_element", "launch_app", "restart_app", "open_deep_link", "gesture",
)  # fmt: skip


def test_every_action_tool_answers_with_the_outcome_shape() -> None:
    specs = {spec.name: spec for spec in all_specs()}
    assert {name for name in ACTION_TOOLS if not issubclass(
        specs[name].output_model, ActionOutcome
    )} == set()  # fmt: skip
    fields = set(ActionOutcome.model_fields)
    assert fields >= {"screen_changed", "window", "keyboard_shown", "log", "log_more"}


async def test_the_log_slice_keeps_the_newest_lines_and_counts_the_rest() -> None:
    async with session("notes_list") as s:
        state = s.userland.state
        (pid,) = state.pids_of("com.example.notes")

        def key_while_the_app_warns(inv: Invocation, command: CommandFn) -> int:
            status = command(inv)
            with state.lock:
                for number in range(25):
                    state.log("main", "W", "Notes", f"slow frame {number}", pid=pid)
            return status

        s.userland.hooks["input"] = key_while_the_app_warns
        pressed = await s.ok("press_key", {"key": "tab"})
        assert len(pressed["log"]) == LOG_SLICE and pressed["log_more"] == 25 - LOG_SLICE
        assert pressed["log"][-1].endswith("W Notes: slow frame 24")  # the newest kept
