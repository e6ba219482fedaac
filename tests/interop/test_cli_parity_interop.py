"""`adbwire` beside Google's `adb` on the same simulated device: stdout, stderr, exit status.

Each case runs both command lines and compares what a script would see. Intended
differences are asserted as such, with the reason beside them (docs/cli.md lists them).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from adbwire.testing import DEVICE_FEATURES
from adbwire.testing.userland.android.apk import build_apk
from adbwire.wire.keys import AdbKey
from tests.interop.adb_oracle import ADB, AdbOracle
from tests.interop.cli_parity import Both, Outcome, paired

pytestmark = [
    pytest.mark.interop,
    pytest.mark.skipif(not ADB.exists(), reason="Google's adb is not installed at /usr/bin/adb"),
]


@pytest.fixture
def old_device(adb: AdbOracle, adb_key: AdbKey, tmp_path: Path) -> Iterator[Both]:
    yield from paired(
        adb,
        adb_key,
        tmp_path,
        features=tuple(f for f in DEVICE_FEATURES if f != "shell_v2"),
        protocol_version=0x01000000,
        max_payload=1024,
    )


# ---------------------------------------------------------------- shell


@pytest.mark.parametrize(
    "args",
    [
        ["shell", "echo out; echo err >&2; exit 3"],
        ["shell", "echo", "a", "b;", "echo", "c"],
        ["shell", "-x", "echo out; echo err >&2; exit 3"],
        ["shell", "-T", "tty"],
        ["shell", "-tt", "tty; echo x"],
        ["shell", "-t", "tty"],
        ["shell", "frobnicate"],
        ["shell", "sleep 1; echo slow"],
        ["shell", "-e", "none", "echo", "escaped"],
    ],
    ids=[
        "status-and-stderr",
        "words-joined",
        "x",
        "T",
        "tt",
        "t-without-tty",
        "missing",
        "slow",
        "e-none",
    ],
)
def test_shell_matches_adb(both: Both, args: list[str]) -> None:
    expected, actual = both.both(*args)
    assert actual == expected


def test_shell_stdin_and_no_stdin_match_adb(both: Both) -> None:
    data = b"first\nsecond\n"
    assert both.adbwire_run("shell", "cat", stdin=data) == both.adb_run("shell", "cat", stdin=data)
    assert both.adbwire_run("shell", "-n", "cat", stdin=data) == both.adb_run(
        "shell", "-n", "cat", stdin=data
    )


def test_shell_script_on_stdin_matches_adb(both: Both) -> None:
    script = b"echo scripted\nexit 4\n"
    expected, actual = both.both("shell", stdin=script)
    assert actual == expected


def test_old_device_shell_matches_adb_with_a_real_exit_status(old_device: Both) -> None:
    """Without shell_v2 adb merges stderr into stdout and reports 0 whatever the command
    did; adbwire merges too, but recovers the command's exit status (intended)."""
    adb_status, adb_out, adb_err = old_device.adb_run("shell", "echo out; echo err >&2; exit 3")
    ours = old_device.adbwire_run("shell", "echo out; echo err >&2; exit 3")
    assert (adb_status, adb_out, adb_err) == (0, b"out\nerr\n", b"")
    assert ours == (3, adb_out, adb_err)


def test_old_device_piped_stdin_reaches_the_command(old_device: Both) -> None:
    """adb writes stdin into the legacy stream and cannot tell the command it ended (a `cat`
    would wait forever), so it is not run here; adbwire's command sees all of it and its
    end (intended difference)."""
    assert old_device.adbwire_run("shell", "cat", stdin=b"a\nb\n") == (0, b"a\nb\n", b"")


def test_an_endless_pipeline_ends_like_on_a_device(both: Both) -> None:
    """Stages run at once: `yes` is stopped by SIGPIPE once `head` has its line."""
    expected, actual = both.both("shell", "yes | head -1; echo done")
    assert expected == actual == (0, b"y\ndone\n", b"")


# ---------------------------------------------------------------- device facts


@pytest.mark.parametrize("command", ["get-state", "get-serialno", "get-devpath"])
def test_device_facts_match_adb(both: Both, command: str) -> None:
    expected, actual = both.both(command)
    assert actual == expected


def test_wait_for_device_forms_match_adb(both: Both) -> None:
    for form in ("wait-for-device", "wait-for-local-device", "wait-for-any-device"):
        expected, actual = both.both(form)
        assert actual == expected == (0, b"", b"")


# ---------------------------------------------------------------- logcat


def test_logcat_dump_with_filterspecs_matches_adb(both: Both) -> None:
    expected, actual = both.both("logcat", "-d", "ActivityManager:I", "*:S")
    assert actual == expected and expected[0] == 0 and expected[1]


def test_logcat_bad_buffer_matches_adb(both: Both) -> None:
    expected, actual = both.both("logcat", "-d", "-b", "nosuch")
    assert actual == expected and expected[0] != 0


def test_logcat_clear_matches_adb(both: Both) -> None:
    assert both.adbwire_run("logcat", "-c") == both.adb_run("logcat", "-c") == (0, b"", b"")
    assert both.adbwire_run("logcat", "-d") == both.adb_run("logcat", "-d")


# ---------------------------------------------------------------- connect / disconnect


def test_connect_and_disconnect_say_what_adb_says(both: Both) -> None:
    serial = both.device.serial
    # adb is already connected (the fixture): its answer is "already connected"; adbwire's
    # first connect is its first, then it answers the same.
    assert both.adbwire_run("connect", serial, serial=False) == (
        0,
        f"connected to {serial}\n".encode(),
        b"",
    )
    expected, actual = (
        both.adb_run("connect", serial, serial=False),
        both.adbwire_run("connect", serial, serial=False),
    )
    assert actual == expected
    # adb also lists emulators it finds on local ports 5555-5585: compare our device's line.
    lines = [
        next(line.split() for line in listing.splitlines() if line.startswith(serial.encode()))
        for listing in (both.adbwire_run("devices", serial=False)[1], both.adb_run("devices")[1])
    ]
    assert lines[0] == lines[1] == [serial.encode(), b"device"]
    expected, actual = (
        both.adb_run("disconnect", serial, serial=False),
        both.adbwire_run("disconnect", serial, serial=False),
    )
    assert actual == expected


def test_disconnect_of_an_unknown_device_matches_adb(both: Both) -> None:
    expected, actual = (
        both.adb_run("disconnect", "127.0.0.1:9", serial=False),
        both.adbwire_run("disconnect", "127.0.0.1:9", serial=False),
    )
    assert actual == expected


def test_failed_connect_is_worded_like_adb_but_exits_1(both: Both) -> None:
    """adb 29 prints the failure and exits 0 (later adbs exit 1); adbwire exits 1, and words
    the reason for people (intended differences)."""
    address = "127.0.0.1:1"
    assert both.adb_run("connect", address, serial=False) == (
        0,
        f"failed to connect to '{address}': Connection refused\n".encode(),
        b"",
    )
    status, out, err = both.adbwire_run("connect", address, serial=False)
    assert (status, err) == (1, b"")
    assert out.startswith(f"failed to connect to '{address}': connection refused".encode())


# ---------------------------------------------------------------- install-multiple, bugreport


def _normalized(outcome: Outcome) -> Outcome:
    """Session numbers, report times and transfer rates differ from run to run; adb's
    `adb:` prefix is our `adbwire:`."""
    status, out, err = outcome

    def scrub(text: bytes) -> bytes:
        text = re.sub(rb"\d+(\.\d+)? MB/s \(\d+ bytes in [\d.]+s\)", b"RATE", text)
        text = re.sub(rb"vmdl\d+", b"vmdlN", text)
        text = re.sub(rb"\d{4}(-\d\d){5}\.zip", b"WHEN.zip", text)  # the device's clock
        return re.sub(rb"^adb(wire)?: ", b"PREFIX: ", text, flags=re.MULTILINE)

    return status, scrub(out), scrub(err)


@pytest.fixture
def split_apks(tmp_path: Path) -> dict[str, Path]:
    made = {
        "base": build_apk("com.split.app"),
        "config": build_apk("com.split.app", split="config.en", activities=(), launcher=None),
        "other": build_apk("com.other", split="x", activities=(), launcher=None),
    }
    paths = {}
    for name, data in made.items():
        paths[name] = tmp_path / f"{name}.apk"
        paths[name].write_bytes(data)
    return paths


@pytest.mark.parametrize(
    "pick",
    [["base", "config"], ["base", "other"], [], ["missing"]],
    ids=["base-and-split", "inconsistent-package", "no-apk", "missing-file"],
)
def test_install_multiple_matches_adb(
    both: Both, split_apks: dict[str, Path], tmp_path: Path, pick: list[str]
) -> None:
    args = [str(split_apks.get(name, tmp_path / f"{name}.apk")) for name in pick]
    expected, actual = both.both("install-multiple", "-r", *args)
    assert _normalized(actual) == _normalized(expected)


@pytest.mark.parametrize("where", ["directory", "file", "usage"])
def test_bugreport_matches_adb(both: Both, tmp_path: Path, where: str) -> None:
    outcomes = []
    for client in ("adb", "adbwire"):
        target = tmp_path / client
        target.mkdir()
        args = {"directory": [str(target)], "file": [str(target / "report")], "usage": ["a", "b"]}
        run = both.adb_run if client == "adb" else both.adbwire_run
        outcomes.append(_normalized(run("bugreport", *args[where])))
        reports = sorted(path.name for path in target.iterdir())
        if where == "usage":
            assert reports == []
        else:
            (report,) = reports
            assert zipfile.is_zipfile(target / report)
            assert report == "report.zip" or report.startswith("bugreport-")
    expected, actual = outcomes
    assert actual == (
        expected[0],
        expected[1],
        expected[2].replace(b"adb bugreport", b"adbwire bugreport"),
    )
