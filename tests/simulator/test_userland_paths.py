"""Toybox realpath/readlink/mv/toybox, and file errors in shell commands read as on a device."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from adbwire.testing.device_files import DeviceFiles
from adbwire.testing.scenario import load_scenario
from adbwire.testing.userland import BufferIO, Userland
from tests.simulator.userland_harness import make_userland, run

TMP = "/data/local/tmp"
LONG = f"{TMP}/{'n' * 256}"


@pytest.fixture
def userland(tmp_path: Path) -> Userland:
    made = make_userland(tmp_path)
    made.device.files.symlink(f"{TMP}/loop", f"{TMP}/loop")
    return made


@pytest.mark.parametrize(
    ("command", "out"),
    [
        ("realpath /sdcard", "/storage/emulated/0\n"),
        ("realpath /sdcard/Download/", "/storage/emulated/0/Download\n"),
        ("realpath /sdcard/../data", "/storage/emulated/data\n"),  # physical, like toybox
        ("realpath -s /sdcard/../data", "/data\n"),
        (f"realpath {TMP}/not-yet", f"{TMP}/not-yet\n"),  # the last name may be missing
        ("realpath -m /nope/x/../y", "/nope/y\n"),
        ("cd /sdcard && realpath Download ..", "/storage/emulated/0/Download\n/storage/emulated\n"),
        ("readlink /sdcard", "/storage/emulated/0\n"),
        ("readlink -f /sdcard", "/storage/emulated/0\n"),
        ("readlink -n /sdcard", "/storage/emulated/0"),
        ("readlink -z /sdcard", "/storage/emulated/0\0"),
        ("toybox realpath /sdcard", "/storage/emulated/0\n"),
    ],
)
def test_canonical_paths(userland: Userland, command: str, out: str) -> None:
    result = run(userland, command)
    assert (result.status, result.out, result.err) == (0, out, "")


@pytest.mark.parametrize(
    ("command", "err"),
    [
        ("realpath /nope/x", "realpath: /nope/x: No such file or directory\n"),
        (f"realpath -e {TMP}/not-yet", f"realpath: {TMP}/not-yet: No such file or directory\n"),
        (f"realpath {TMP}/loop", f"realpath: {TMP}/loop: Too many symbolic links encountered\n"),
        (f"realpath {LONG}", f"realpath: {LONG}: File name too long\n"),
        ("realpath -q /nope/x", ""),
        ("readlink -f /nope/x", ""),  # readlink is quiet unless -v
        ("readlink -fv /nope/x", "readlink: /nope/x: No such file or directory\n"),
        ("readlink /data", ""),  # not a link
    ],
)
def test_canonical_path_failures(userland: Userland, command: str, err: str) -> None:
    result = run(userland, command)
    assert (result.status, result.out, result.err) == (1, "", err)


def test_toybox_runs_its_applets(userland: Userland) -> None:
    applets = run(userland, "toybox").out.split()
    assert {"ls", "cat", "realpath", "readlink"} <= set(applets)
    for applet in applets:
        assert userland.device.lookup(applet) is not None, applet
    assert run(userland, "toybox ls /sdcard/Download").out == "groceries.txt\n"
    assert run(userland, "toybox nope").err == "toybox: Unknown command nope\n"


def test_mv_renames(userland: Userland) -> None:
    files = userland.device.files
    files.write_bytes(f"{TMP}/a", b"A")
    files.mkdir(f"{TMP}/dir")
    assert run(userland, f"mv {TMP}/a {TMP}/b && mv {TMP}/b {TMP}/dir").status == 0
    assert files.read_bytes(f"{TMP}/dir/b") == b"A"
    files.write_bytes(f"{TMP}/full/x", b"x")
    assert run(userland, f"mv {TMP}/dir {TMP}/moved/ && ls {TMP}/moved").out == "b\n"
    result = run(userland, f"mv {TMP}/nope {TMP}/c")
    assert (result.status, result.err) == (1, f"mv: bad '{TMP}/nope': No such file or directory\n")
    assert run(userland, f"mv {TMP}/moved /system/").err.endswith(": Read-only file system\n")
    assert run(userland, f"mv {TMP}/x {TMP}/y {TMP}/full/x").err == (
        f"mv: '{TMP}/full/x' not directory\n"
    )


@pytest.mark.parametrize(
    ("command", "err"),
    [
        (f"ls {LONG}", f"ls: {LONG}: File name too long\n"),
        (f"cat {LONG}", f"cat: {LONG}: File name too long\n"),
        (f"stat {LONG}", f"stat: {LONG}: File name too long\n"),
        (f"mkdir {LONG}", f"mkdir: '{LONG}': File name too long\n"),
        (f"rm {LONG}", f"rm: {LONG}: File name too long\n"),
        (f"touch {LONG}", f"touch: '{LONG}': File name too long\n"),
        (f"echo x > {LONG}", f"/system/bin/sh: can't create {LONG}: File name too long\n"),
        (f"cat < {LONG}", f"/system/bin/sh: can't open {LONG}: File name too long\n"),
        (f"cd {LONG}", f"/system/bin/sh: cd: {LONG}: File name too long\n"),
        (f"sh {LONG}", f"sh: {LONG}: File name too long\n"),
        (f"cat {TMP}/loop", f"cat: {TMP}/loop: Too many symbolic links encountered\n"),
        (f"ls {TMP}/loop/", f"ls: {TMP}/loop/: Too many symbolic links encountered\n"),
        (f"cp {LONG} {TMP}/x", f"cp: {LONG}: File name too long\n"),
        (f"screencap {LONG}", f"Error opening file: {LONG} (File name too long)\n"),
    ],
)
def test_file_errors_in_commands(userland: Userland, command: str, err: str) -> None:
    result = run(userland, command)
    assert result.status != 0
    assert result.err.startswith(err), result.err


def test_a_command_that_does_not_report_a_file_error_still_exits_cleanly(
    userland: Userland,
) -> None:
    result = run(userland, f"pm install {LONG}")
    assert result.status != 126 and "simulated userland failed" not in result.err


def test_a_full_device_fails_the_write_not_the_userland(tmp_path: Path) -> None:
    userland = Userland(load_scenario(), DeviceFiles(tmp_path, capacity_bytes=100_000))
    userland.device.files.write_bytes(f"{TMP}/big", b"x" * 60_000)
    for command in (f"cat {TMP}/big > {TMP}/copy", f"head -c 50000 {TMP}/big > {TMP}/copy"):
        result = run(userland, command)
        assert result.status == 1, command
        assert result.err.endswith(": No space left on device\n"), result.err


def test_trailing_slashes_reach_the_commands(userland: Userland) -> None:
    assert run(userland, "stat -c %F /sdcard /sdcard/").out == "symbolic link\ndirectory\n"
    assert run(userland, "echo x > /data/local/tmp/new/").err.endswith(": Is a directory\n")
    assert not userland.device.files.exists(f"{TMP}/new")


def test_writes_to_read_only_partitions_fail(userland: Userland) -> None:
    for command in ("touch /system/x", "screencap -p /system/x.png"):
        result = run(userland, command)
        assert result.status == 1 and "Read-only file system" in result.err
    assert not userland.device.files.exists("/system/x")
    assert not userland.device.files.exists("/system/x.png")


def test_resolve_activity_reads_a_bare_package_as_am_does(userland: Userland) -> None:
    line = (
        "cmd package resolve-activity --brief -a android.intent.action.MAIN "
        "-c android.intent.category.LAUNCHER com.example.notes"
    )
    assert run(userland, line).out.splitlines()[-1] == "com.example.notes/.NotesListActivity"
    assert run(userland, "pm resolve-activity --brief com.nope").out == "No activity found\n"


def test_logcat_dump_with_a_start_time_ends(userland: Userland) -> None:
    """-T alone follows new entries; with -d it dumps and exits (read_logcat's `since`)."""
    io = BufferIO()
    done = threading.Event()
    command = "logcat -d -v threadtime -b main -T '05-02 10:14:58.000' '*:V'"

    def target() -> None:
        userland.run(command, io)
        done.set()

    thread = threading.Thread(target=target)
    thread.start()
    ended = done.wait(5)
    io.cancel()
    thread.join(5)
    assert ended, "logcat -d -T kept following the log"
    assert bytes(io.stdout).decode().startswith("05-02 10:14:58.")
