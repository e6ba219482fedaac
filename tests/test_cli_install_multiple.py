"""`adbwire install-multiple` and `adbwire bugreport` against the simulated device."""

from __future__ import annotations

import io
import os
import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from adbwire.testing import SimulatedDevice
from adbwire.testing.userland.android.apk import build_apk
from tests.conftest import CliRun

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def adbwire(run_cli: CliRun) -> Run:
    return run_cli


@pytest.fixture
def split_app(tmp_path: Path) -> list[str]:
    base = tmp_path / "base.apk"
    base.write_bytes(build_apk("com.split.app"))
    config = tmp_path / "config.en.apk"
    config.write_bytes(build_apk("com.split.app", split="config.en", activities=(), launcher=None))
    return [str(base), str(config)]


def open_sessions(device: SimulatedDevice) -> int:
    return len(device.userland.device.state.install_sessions)  # type: ignore[attr-defined]


def test_a_base_and_a_split_install_in_one_session(
    adbwire: Run, sim_device: SimulatedDevice, split_app: list[str]
) -> None:
    assert adbwire("-s", sim_device.serial, "install-multiple", "-r", *split_app) == (
        0,
        "Success\n",
        "",
    )
    _, out, _ = adbwire("-s", sim_device.serial, "shell", "-n", "pm path com.split.app")
    assert [line.rsplit("/", 1)[1] for line in out.splitlines()] == [
        "base.apk",
        "split_config.en.apk",
    ]
    assert open_sessions(sim_device) == 0


def test_a_refusal_at_the_commit_is_adbs_words(
    adbwire: Run, sim_device: SimulatedDevice, split_app: list[str], tmp_path: Path
) -> None:
    other = tmp_path / "other.apk"
    other.write_bytes(build_apk("com.other", split="x", activities=(), launcher=None))
    status, out, err = adbwire(
        "-s", sim_device.serial, "install-multiple", split_app[0], str(other)
    )
    assert (status, out) == (1, "")
    first, second = err.splitlines()
    assert first == "adbwire: failed to finalize session"
    assert re.fullmatch(
        r"Failure \[INSTALL_FAILED_INVALID_APK: Inconsistent package com\.other in "
        r"/data/app/vmdl\d+\.tmp/other\.apk; expected com\.split\.app\]",
        second,
    )


def test_a_refused_split_is_named_and_the_session_abandoned(
    adbwire: Run, sim_device: SimulatedDevice, split_app: list[str]
) -> None:
    files = sim_device.files
    assert files is not None
    files.capacity_bytes = files.usage_bytes() + 100  # room for no APK
    status, out, err = adbwire("-s", sim_device.serial, "install-multiple", *split_app)
    assert (status, out) == (1, "")
    assert err.splitlines()[0] == f"adbwire: failed to write {split_app[0]}"
    assert "ENOSPC" in err and err.endswith("adbwire: the install session was abandoned\n")
    assert open_sessions(sim_device) == 0


def test_a_session_is_abandoned_when_a_write_cannot_even_start(
    adbwire: Run, sim_device: SimulatedDevice, split_app: list[str]
) -> None:
    sim_device.state.faults.refuse_services = (
        "abb_exec:package\0install-write",
        "exec:cmd package install-write",
    )
    status, _, err = adbwire("-s", sim_device.serial, "install-multiple", *split_app)
    assert status == 1 and "refused" in err
    assert f"writing {split_app[0]}: " in err, "the error names the APK"
    assert open_sessions(sim_device) == 0


def test_a_device_that_stops_answering_mid_way_is_named_and_abandoned(
    adbwire: Run, sim_device: SimulatedDevice, split_app: list[str]
) -> None:
    """The package manager takes the bytes but never answers: the deadline names the APK
    being written, and the session is still abandoned (the device itself is alive)."""
    for route in ("abb_exec:package\0install-write", "exec:cmd package install-write"):
        sim_device.state.faults.stall(route)
    status, out, err = adbwire(
        "-s", sim_device.serial, "--timeout", "3", "install-multiple", *split_app
    )
    assert (status, out) == (1, "")
    assert f"writing {split_app[0]}: install-multiple timed out" in err
    assert open_sessions(sim_device) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "adbwire: install-multiple requires an argument\n"),
        (["-r"], "adbwire: need APK file on command line\n"),
        (["/nonexistent/a.apk"], 'adbwire: failed to stat "/nonexistent/a.apk": '
         "No such file or directory\n"),
    ],
)  # fmt: skip
def test_missing_apks_exit_1_as_adb(
    adbwire: Run, sim_device: SimulatedDevice, args: list[str], message: str
) -> None:
    assert adbwire("-s", sim_device.serial, "install-multiple", *args) == (1, "", message)


def test_a_file_that_is_no_apk_is_refused_on_the_host(
    adbwire: Run, sim_device: SimulatedDevice, split_app: list[str], tmp_path: Path
) -> None:
    junk = tmp_path / "junk.apk"
    junk.write_bytes(b"not a zip")
    status, _, err = adbwire("-s", sim_device.serial, "install-multiple", split_app[0], str(junk))
    assert status == 2 and "junk.apk" in err
    assert open_sessions(sim_device) == 0


# ---------------------------------------------------------------- bugreport


def test_bugreport_into_a_directory_keeps_the_devices_name(
    adbwire: Run, sim_device: SimulatedDevice, tmp_path: Path
) -> None:
    status, out, err = adbwire("-s", sim_device.serial, "bugreport", str(tmp_path))
    assert (status, err) == (0, "")
    (report,) = [p for p in tmp_path.iterdir() if p.suffix == ".zip"]
    assert re.fullmatch(r"bugreport-[\w.]+-[\w.]+-[\d-]+\.zip", report.name)
    assert re.fullmatch(
        rf"/data/user_de/0/com\.android\.shell/files/bugreports/{re.escape(report.name)}: "
        r"1 file pulled, 0 skipped\. .*\n",
        out,
    )
    with zipfile.ZipFile(io.BytesIO(report.read_bytes())) as archive:
        assert "SYSTEM PROPERTIES" in archive.read(archive.read("main_entry.txt").decode()).decode()


def test_bugreport_to_a_file_adds_zip(
    adbwire: Run, sim_device: SimulatedDevice, tmp_path: Path
) -> None:
    assert adbwire("-s", sim_device.serial, "bugreport", str(tmp_path / "named"))[0] == 0
    assert zipfile.is_zipfile(tmp_path / "named.zip")


def test_bugreport_without_a_path_writes_here(
    adbwire: Run, sim_device: SimulatedDevice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert adbwire("-s", sim_device.serial, "bugreport")[0] == 0
    assert [p.suffix for p in tmp_path.iterdir()] == [".zip"]


def test_bugreport_usage_and_a_device_without_bugreportz(
    adbwire: Run, sim_device: SimulatedDevice, tmp_path: Path
) -> None:
    assert adbwire("-s", sim_device.serial, "bugreport", "a", "b") == (
        1,
        "",
        "adbwire: usage: adbwire bugreport [PATH]\n",
    )
    sim_device.state.faults.refuse_services = ()
    commands = sim_device.userland.device._commands  # type: ignore[attr-defined]
    saved = commands.pop("bugreportz")
    try:
        status, _, err = adbwire("-s", sim_device.serial, "bugreport", str(tmp_path))
    finally:
        commands["bugreportz"] = saved
    assert status == 127
    assert err.startswith(
        "Failed to get bugreportz version: 'bugreportz -v' returned '' (code 127)"
    )
    assert not os.listdir(tmp_path)
