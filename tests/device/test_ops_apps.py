"""Launching is verified by the focus; a crash at launch gives its root cause."""

from __future__ import annotations

import time

import pytest

from adbwire.device import apps, logs
from adbwire.device.errors import AppCrashedError, AppNotRespondingError, NotFoundError
from adbwire.errors import DeviceCommandError
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from adbwire.wire.client import AdbClient
from tests.device.ui_sim import simulated
from tests.mcp.harness import device_client

__all__ = ["device_client"]
NOTES = "com.example.notes"


def test_launch_waits_for_focus(device_client: AdbClient) -> None:
    result = apps.launch(device_client, NOTES)
    assert result.focused_activity == "com.example.notes.NotesListActivity"
    assert apps.focus(device_client).package == NOTES
    stack = apps.activity_stack(device_client)
    assert stack.focused is not None and stack.focused.package == NOTES


def test_named_activity(device_client: AdbClient) -> None:
    result = apps.launch(device_client, NOTES, ".SettingsActivity")
    assert result.focused_activity == "com.example.notes.SettingsActivity"


def test_crash_at_launch_reports_the_root_cause(device_client: AdbClient) -> None:
    with pytest.raises(AppCrashedError) as caught:
        apps.launch(device_client, NOTES, ".StatsActivity", timeout=3)
    assert "Statistics database is not initialised" in str(caught.value)
    assert str(caught.value.details["root_cause"]).startswith("java.lang.IllegalStateException")
    assert caught.value.details["process"] == NOTES


def test_an_old_crash_is_not_blamed_on_a_new_launch(device_client: AdbClient) -> None:
    with pytest.raises(AppCrashedError):
        apps.launch(device_client, NOTES, ".StatsActivity", timeout=3)
    assert logs.newest_crash(device_client, NOTES) is not None
    later = logs.mark(device_client)  # within the crash's second, as a quick agent is
    assert logs.newest_crash(device_client, NOTES, after=later) is None
    assert apps.launch(device_client, NOTES).package == NOTES  # no stale crash reported


def test_unknown_things(device_client: AdbClient) -> None:
    with pytest.raises(NotFoundError):
        apps.launch(device_client, "com.not.installed")
    with pytest.raises(DeviceCommandError):
        apps.launch(device_client, NOTES, ".NoSuchActivity", timeout=2)


def test_stop_and_deep_links(device_client: AdbClient) -> None:
    apps.launch(device_client, NOTES)
    apps.stop(device_client, NOTES)
    assert logs.pids_of(device_client, NOTES) == ()
    focus = apps.open_deep_link(device_client, "notes://settings", NOTES)
    assert focus.activity == "com.example.notes.SettingsActivity"
    with pytest.raises(NotFoundError):
        apps.open_deep_link(device_client, "nothing://handles/this")


# Crashes end the wait at the next poll, not at the timeout. The margins are wide for a
# loaded CI machine: each bound is several times what the simulator takes, and still far
# below the 15 s default timeout the old wait ran into.
FAST_ANSWER = 6.0


def test_java_crash_is_reported_long_before_the_timeout(device_client: AdbClient) -> None:
    started = time.monotonic()
    with pytest.raises(AppCrashedError) as caught:
        apps.launch(device_client, NOTES, ".StatsActivity", timeout=20)
    assert time.monotonic() - started < FAST_ANSWER
    assert caught.value.details["kind"] == "java"


def test_native_crash_names_the_signal_and_its_frames(device_client: AdbClient) -> None:
    started = time.monotonic()
    with pytest.raises(AppCrashedError) as caught:
        apps.launch(device_client, NOTES, ".SyncActivity", timeout=20)
    assert time.monotonic() - started < FAST_ANSWER
    details = caught.value.details
    assert details["kind"] == "native" and details["process"] == NOTES
    assert details["exception"] == "SIGSEGV"
    assert "SEGV_MAPERR" in str(details["root_cause"])
    assert "null pointer dereference" in str(details["root_cause"])
    stack = details["stack"]
    assert isinstance(stack, list) and stack[0].startswith("#00 pc 0000000000012f4a")
    assert "notes::sync::merge" in stack[0]


def test_anr_is_reported_soon_after_it_happens(device_client: AdbClient) -> None:
    started = time.monotonic()
    with pytest.raises(AppNotRespondingError) as caught:
        apps.launch(device_client, NOTES, ".ExportActivity", timeout=20)
    # the simulated app hangs for 1 s before the system reports it
    assert time.monotonic() - started < 1.0 + FAST_ANSWER
    assert "Input dispatching timed out" in str(caught.value)
    assert caught.value.details["process"] == NOTES


def test_a_deep_link_to_a_crashing_activity_is_an_error(device_client: AdbClient) -> None:
    with pytest.raises(AppCrashedError) as caught:
        apps.open_deep_link(device_client, "notes://stats")
    assert "Statistics database is not initialised" in str(caught.value)
    focus = apps.open_deep_link(device_client, "notes://settings")
    assert focus.activity == "com.example.notes.SettingsActivity"


def test_logs_of_a_dead_app_are_still_found(device_client: AdbClient) -> None:
    with pytest.raises(AppCrashedError):
        apps.launch(device_client, NOTES, ".StatsActivity", timeout=10)
    assert logs.pids_of(device_client, NOTES) == ()
    found = logs.read_logcat(device_client, logs.LogQuery(package=NOTES, min_level="E"))
    assert found.pids and found.note is not None and "not running" in found.note
    assert any(e.message.startswith("FATAL EXCEPTION") for e in found.entries)
    assert all(e.pid in found.pids for e in found.entries)


def test_focus_falls_back_to_the_resumed_activity() -> None:
    with simulated("settings") as sim:

        def no_focus_lines(inv: Invocation, command: CommandFn) -> int:
            if inv.args[:1] == ["window"]:
                inv.out("WINDOW MANAGER WINDOWS (dumpsys window windows)\n")
                return 0  # a vendor dump that names no focus at all
            return command(inv)

        sim.userland.hooks["dumpsys"] = no_focus_lines
        focus = apps.focus(sim.client)
        assert focus.source == "ResumedActivity"
        assert focus.activity == "com.example.notes.SettingsActivity"
