"""adbwire's own device layer against the simulated device, over the wire: every command it
sends must get an answer it can read (the simulator is where its tests and demos run)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from adbwire.device import apps, commands, files, logs, system
from adbwire.device.logs import LogQuery
from adbwire.testing import SimulatedDevice
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey
from adbwire.wire.timeouts import Timeouts


@pytest.fixture
def client(sim_device: SimulatedDevice, adb_key: AdbKey) -> Iterator[AdbClient]:
    timeouts = Timeouts(connect=10, auth=5, operation=10)
    with AdbClient.connect_tcp(sim_device.serial, [adb_key], timeouts=timeouts) as connected:
        yield connected


def test_screen_state_follows_the_power_key(client: AdbClient) -> None:
    assert system.screen_state(client) == system.ScreenState(
        awake=True, display_on=True, locked=False, orientation="portrait"
    )
    commands.text(client, ["input", "keyevent", "KEYCODE_POWER"])
    assert system.screen_state(client) == system.ScreenState(
        awake=False, display_on=False, locked=False, orientation="portrait"
    )
    woken = system.wake_screen(client, dismiss_keyguard=True, timeout=5)
    assert (woken.awake, woken.display_on) == (True, True)


def test_paths_resolve_with_realpath(client: AdbClient) -> None:
    assert files.resolve(client, "/sdcard/Download") == "/storage/emulated/0/Download"
    assert commands.text(client, ["readlink", "-f", "/sdcard"]) == "/storage/emulated/0\n"


def test_the_launcher_activity_comes_from_resolve_activity(client: AdbClient) -> None:
    argv = ["cmd", "package", "resolve-activity", "--brief", "-a", "android.intent.action.MAIN"]
    argv += ["-c", "android.intent.category.LAUNCHER", "com.example.notes"]
    assert commands.text(client, argv).splitlines()[-1] == "com.example.notes/.NotesListActivity"
    component = apps.launcher_activity(client, "com.example.notes")
    assert component.flattened == "com.example.notes/com.example.notes.NotesListActivity"


def test_logs_since_a_time_come_back(client: AdbClient) -> None:
    found: list[logs.LogResult] = []
    query = LogQuery(buffers=("main",), since="05-02 10:14:58.000")
    thread = threading.Thread(target=lambda: found.append(logs.read_logcat(client, query)))
    thread.start()
    thread.join(10)
    assert found, "logcat -d -T did not end"
    stamps = [entry.timestamp or "" for entry in found[0].entries]
    assert stamps and all(stamp >= "05-02 10:14:58" for stamp in stamps)


def test_airplane_mode_round_trip(client: AdbClient) -> None:
    assert system.set_airplane_mode(client, True, timeout=5)
    assert system.airplane_mode(client)
    assert system.set_airplane_mode(client, False, timeout=5)
