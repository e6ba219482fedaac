"""Launching is verified by the focus; a crash at launch gives its root cause."""

from __future__ import annotations

import pytest

from adbwire.device import apps, logs
from adbwire.device.errors import AppCrashedError, NotFoundError
from adbwire.errors import DeviceCommandError
from adbwire.wire.client import AdbClient
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
