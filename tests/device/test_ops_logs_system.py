"""Logcat, crash log, screen and airplane mode against the simulated device."""

from __future__ import annotations

import pytest

from adbwire.device import apps, info, logs, system
from adbwire.device.errors import AppCrashedError
from adbwire.errors import UsageError
from adbwire.wire.client import AdbClient
from tests.mcp.harness import device_client

__all__ = ["device_client"]


def test_read_logcat_filters(device_client: AdbClient) -> None:
    everything = logs.read_logcat(device_client, logs.LogQuery())
    assert everything.entries
    errors_only = logs.read_logcat(device_client, logs.LogQuery(min_level="E"))
    assert all(entry.level in "EF" for entry in errors_only.entries)
    tag = everything.entries[0].tag
    tagged = logs.read_logcat(device_client, logs.LogQuery(tag=tag))
    assert tagged.entries and all(entry.tag == tag for entry in tagged.entries)
    not_running = logs.read_logcat(device_client, logs.LogQuery(package="com.example.notes"))
    assert not_running.entries == [] and not_running.note


def test_crash_buffer_and_clear(device_client: AdbClient) -> None:
    with pytest.raises(AppCrashedError):
        apps.launch(device_client, "com.example.notes", ".StatsActivity", timeout=3)
    crash = logs.newest_crash(device_client, "com.example.notes")
    assert crash is not None and crash.root_cause_type == "java.lang.IllegalStateException"
    logs.clear_logcat(device_client)
    assert logs.newest_crash(device_client) is None


@pytest.mark.parametrize(
    "query",
    [
        logs.LogQuery(buffers=("nope",)),
        logs.LogQuery(min_level="X"),
        logs.LogQuery(tag="a b"),
        logs.LogQuery(since="yesterday"),
        logs.LogQuery(pid=0),
    ],
)
def test_bad_queries(device_client: AdbClient, query: logs.LogQuery) -> None:
    with pytest.raises(UsageError):
        logs.read_logcat(device_client, query)


def test_airplane_mode_reads_back(device_client: AdbClient) -> None:
    assert system.set_airplane_mode(device_client, True) is True
    assert system.airplane_mode(device_client) is True
    assert system.set_airplane_mode(device_client, True) is False
    assert system.set_airplane_mode(device_client, False) is True


def test_device_info_and_battery(device_client: AdbClient) -> None:
    found = info.device_info(device_client)
    assert (found.android_version, found.sdk, found.is_emulator) == ("14", 34, True)
    assert (found.screen_width, found.screen_height, found.density) == (1080, 2400, 420)
    assert found.abis == ("x86_64", "arm64-v8a")
    assert info.reports_emulator(device_client) is True
    battery = info.read_battery(device_client)
    assert battery is not None and battery.percent == 100.0


def test_screen_state_parser() -> None:
    power = "  mWakefulness=Asleep\n  Display Power: state=OFF\n"
    window = "    isKeyguardShowing=true\n"
    assert system.parse_screen_state(power, window) == system.ScreenState(False, False, True)
    assert system.parse_screen_state("", "") == system.ScreenState(None, None, None)
