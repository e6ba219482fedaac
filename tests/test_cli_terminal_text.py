"""Device-provided text reaches the terminal with its control characters made visible
(issue #14 item 8), while `adbwire shell` output stays byte-exact."""

from __future__ import annotations

import argparse
import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adbwire.cli import ls as cli_ls
from adbwire.cli import main as cli_main
from adbwire.cli.progress import ProgressLine, report
from adbwire.cli.terminal_text import visible
from adbwire.errors import DeviceCommandError
from adbwire.testing import SimulatedDevice
from adbwire.testing.hostile import (
    ESCAPE_FILE_NAMES,
    escape_banner_properties,
    plant_escape_files,
)
from adbwire.wire.keys import AdbKey, default_key_path
from adbwire.wire.services.control import AdbdRestart
from adbwire.wire.services.install_result import UninstallResult
from adbwire.wire.services.sync.results import (
    FileFailed,
    FileSkipped,
    SourceSummary,
    TransferResult,
)

RunBytes = Callable[..., tuple[int, bytes, bytes]]

TITLE = "\x1b]0;pwned\x07"  # OSC: sets the terminal's window title
CLEAR = "\x1b[2J"  # CSI: clears the screen
C1_CSI = "\x9b31m"  # the 8-bit CSI some terminals obey
OVERRIDE = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: reorders what follows on screen
# What may never reach the terminal from a device string.
FORBIDDEN = ("\x1b", "\x07", "\x9b", "\r", "\u202e")


@pytest.fixture
def adbwire_bytes(adb_key: AdbKey, capsysbinary: pytest.CaptureFixture[bytes]) -> RunBytes:
    """`adbwire ARGS...` as a user the device trusts; stdout and stderr as raw bytes."""
    default_key_path().parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(adb_key.path, default_key_path())

    def run(*args: str) -> tuple[int, bytes, bytes]:
        capsysbinary.readouterr()
        status = cli_main.main(["--timeout", "10", *args])
        captured = capsysbinary.readouterr()
        return status, captured.out, captured.err

    return run


def assert_harmless(text: str) -> None:
    found = [char for char in FORBIDDEN if char in text]
    assert not found, f"raw control characters {found!r} reached the terminal: {text!r}"


# ---- the rendering rule --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (TITLE, r"\x1b]0;pwned\x07"),
        (CLEAR, r"\x1b[2J"),
        ("report.txt\rinnocent.txt", r"report.txt\rinnocent.txt"),
        (C1_CSI, r"\x9b31m"),
        ("com.evil\x9b2Japp", r"com.evil\x9b2Japp"),
        (f"abc{OVERRIDE}txt.exe", r"abc\u202etxt.exe"),
        ("a\x00b\x7fc", r"a\x00b\x7fc"),
        ("zero\u200bwidth\ufeff", r"zero\u200bwidth\ufeff"),
        ("line\u2028break", r"line\u2028break"),
        ("bad-\udcff-byte", r"bad-\udcff-byte"),  # an undecodable byte (surrogateescape)
        ("tab\there\nnewline", r"tab\there\nnewline"),
        ("Pixel 8 Pro, Café, 日本語, ü", "Pixel 8 Pro, Café, 日本語, ü"),
        ("C:\\Users\\me", "C:\\Users\\me"),  # backslashes are left alone
    ],
)
def test_control_characters_are_rendered_as_escapes(raw: str, shown: str) -> None:
    assert visible(raw) == shown


def test_multiline_messages_keep_newlines_and_tabs_but_never_a_carriage_return() -> None:
    message = "Failure [X]\n\tat line 2\r\x1b[1Afake line"
    assert visible(message, multiline=True) == "Failure [X]\n\tat line 2\\r\\x1b[1Afake line"


@settings(max_examples=300, deadline=None)
@given(st.text(), st.booleans())
def test_nothing_non_printable_survives(text: str, multiline: bool) -> None:
    shown = visible(text, multiline=multiline)
    allowed = set("\n\t") if multiline else set()
    assert all(char.isprintable() or char in allowed for char in shown)
    if text.isprintable():
        assert shown == text


# ---- each CLI path that prints device strings ------------------------------------------------


def test_devices_long_shows_a_hostile_banner_visibly(
    adbwire_bytes: RunBytes, sim_device_factory: Callable[..., SimulatedDevice]
) -> None:
    device = sim_device_factory(
        banner_properties={
            "ro.product.name": f"prod{CLEAR}",
            # No ';' in a banner value (it ends the field), so no full OSC title here.
            "ro.product.model": "model\x1b[5m\x07",
            "ro.product.device": f"dev{C1_CSI}{OVERRIDE}",
        }
    )
    status, out, _ = adbwire_bytes("devices", "-l", device.serial)
    text = out.decode()
    assert status == 0
    assert_harmless(text)
    assert r"product:prod\x1b[2J" in text
    assert r"model:model\x1b[5m\x07" in text
    assert r"device:dev\x9b31m\u202e" in text


def test_ls_shows_hostile_file_names_visibly(
    adbwire_bytes: RunBytes, sim_device: SimulatedDevice
) -> None:
    names = ["report.txt\rinnocent.txt", f"wipe{CLEAR}", f"title{TITLE}", "raw-\udcff-byte"]
    sim_device.files.mkdir("/sdcard/hostile", parents=True)
    for name in names:
        sim_device.files.write_file(f"/sdcard/hostile/{name}", b"x")
    status, out, _ = adbwire_bytes("-s", sim_device.serial, "ls", "/sdcard/hostile")
    text = out.decode()
    assert status == 0
    assert_harmless(text)
    shown = {line.split(" ", 3)[3] for line in text.splitlines()}
    assert shown == {".", "..", *(visible(name) for name in names)}
    assert r"report.txt\rinnocent.txt" in shown and r"raw-\udcff-byte" in shown


def test_ls_json_keeps_the_exact_names(
    adbwire_bytes: RunBytes, sim_device: SimulatedDevice
) -> None:
    sim_device.files.mkdir("/sdcard/hostile", parents=True)
    sim_device.files.write_file(f"/sdcard/hostile/wipe{CLEAR}", b"x")
    status, out, _ = adbwire_bytes("-s", sim_device.serial, "ls", "--json", "/sdcard/hostile")
    assert status == 0 and b"\x1b" not in out  # JSON escapes it ...
    names = {row["name"] for row in json.loads(out)}
    assert f"wipe{CLEAR}" in names  # ... and gives back the exact name


def test_errors_quoting_device_text_show_it_visibly(
    adbwire_bytes: RunBytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(args: argparse.Namespace) -> int:
        raise DeviceCommandError(f"pm said: Failure [{TITLE}{CLEAR}]\nsecond line\r{C1_CSI}")

    monkeypatch.setattr(cli_ls, "run", failing)
    status, _, err = adbwire_bytes("ls", "/sdcard")
    text = err.decode()
    assert status == 1
    assert_harmless(text)
    assert text == (
        "adbwire: error: pm said: Failure [\\x1b]0;pwned\\x07\\x1b[2J]\nsecond line\\r\\x9b31m\n"
    )


def test_a_device_error_message_end_to_end_is_visible(
    adbwire_bytes: RunBytes, sim_device: SimulatedDevice
) -> None:
    # The device's FAIL message quotes the path it could not list.
    status, _, err = adbwire_bytes("-s", sim_device.serial, "ls", f"/sdcard/none{CLEAR}")
    text = err.decode()
    assert status == 1 and text.startswith("adbwire: error:")
    assert_harmless(text)
    assert r"none\x1b[2J" in text


def test_progress_line_shows_a_hostile_label_visibly() -> None:
    stream = io.StringIO()
    progress = ProgressLine(f"pull to {CLEAR}dir\r{TITLE}", stream, enabled=True)
    progress(50, 100)
    drawn = stream.getvalue()
    assert drawn.startswith("\r")  # the line's own redraw, and no other control character
    assert_harmless(drawn[1:])
    assert r"\x1b[2Jdir\r\x1b]0;pwned" in drawn


def test_transfer_report_shows_device_names_visibly() -> None:
    hostile = f"/sdcard/{CLEAR}name\r{C1_CSI}"
    result = TransferResult(
        "pull",
        failed=[FileFailed(hostile, f"./{TITLE}", DeviceCommandError(f"bad {OVERRIDE}"))],
        skipped=[FileSkipped(hostile, "./x", f"{hostile}: not a regular file")],
        sources=[SourceSummary(hostile, files=1), SourceSummary("/sdcard/b", files=1)],
    )
    out, err = io.StringIO(), io.StringIO()
    assert report(result, quiet=False, out=out, err=err) == 1
    assert_harmless(out.getvalue())
    assert_harmless(err.getvalue())
    assert r"\x1b[2Jname\r\x9b31m" in err.getvalue()
    assert r"\x1b]0;pwned\x07" in err.getvalue() and r"bad \u202e" in err.getvalue()
    assert r"/sdcard/\x1b[2Jname\r\x9b31m: 1 file pulled" in out.getvalue()


# ---- what must stay byte-exact -------------------------------------------------------------


def test_shell_output_stays_byte_exact(
    adbwire_bytes: RunBytes, sim_device: SimulatedDevice
) -> None:
    hostile = b"\x1b]0;pwned\x07\x1b[2J\r\x9bx\xff\n"
    sim_device.files.write_file("/sdcard/hostile.bin", hostile)
    command = "cat /sdcard/hostile.bin; cat /sdcard/hostile.bin >&2"
    status, out, err = adbwire_bytes("-s", sim_device.serial, "shell", "-n", command)
    assert (status, out, err) == (0, hostile, hostile)


HOSTILE_MESSAGE = f"restarting{CLEAR}\r{TITLE} {C1_CSI}"


@pytest.mark.parametrize(
    ("command", "target", "answer"),
    [
        (["reboot"], "adbwire.wire.services.control.reboot", HOSTILE_MESSAGE),
        (["tcpip", "5555"], "adbwire.wire.services.control.tcpip", None),
        (["usb"], "adbwire.wire.services.control.usb", None),
        (["root", "--no-reconnect"], "adbwire.wire.services.control.root", None),
        (["uninstall", "com.example.app"], "adbwire.wire.services.install.uninstall", "uninstall"),
    ],
)
def test_device_answers_printed_by_commands_are_visible(
    adbwire_bytes: RunBytes,
    sim_device: SimulatedDevice,
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
    target: str,
    answer: object,
) -> None:
    if answer is None:
        answer = AdbdRestart(HOSTILE_MESSAGE, restarted=False)
    elif answer == "uninstall":
        answer = UninstallResult(False, "DELETE_FAILED", HOSTILE_MESSAGE, "com.example.app", "")
    monkeypatch.setattr(target, lambda *args, **kwargs: answer)
    _, out, err = adbwire_bytes("-s", sim_device.serial, *command)
    text = (out + err).decode()
    assert_harmless(text)
    assert r"restarting\x1b[2J\r\x1b]0;pwned\x07 \x9b31m" in text


# ---- the simulator's hostile escape modes (adbwire.testing.hostile.escapes) ----------------


def test_the_hostile_banner_mode_is_shown_visibly(
    adbwire_bytes: RunBytes, sim_device_factory: Callable[..., SimulatedDevice]
) -> None:
    device = sim_device_factory(banner_properties=escape_banner_properties())
    status, out, _ = adbwire_bytes("devices", "-l", device.serial)
    text = out.decode()
    assert status == 0
    assert_no_control_characters(text)
    for value in escape_banner_properties().values():
        assert visible(value.replace(" ", "_")) in text


def test_the_hostile_file_names_are_one_visible_line_each(
    adbwire_bytes: RunBytes, sim_device: SimulatedDevice
) -> None:
    plant_escape_files(sim_device.files, "/sdcard/escapes")
    status, out, _ = adbwire_bytes("-s", sim_device.serial, "ls", "/sdcard/escapes")
    text = out.decode()
    assert status == 0
    assert_no_control_characters(text)
    names = [line.split(" ", 3)[3] for line in text.splitlines()]
    assert sorted(names) == sorted([".", "..", *(visible(n) for n in ESCAPE_FILE_NAMES)])
    assert r"newline\nfake_entry.txt" in names and "fake_entry.txt" not in names


def test_a_failed_pull_names_hostile_files_visibly(
    adbwire_bytes: RunBytes, sim_device: SimulatedDevice, tmp_path: Path
) -> None:
    plant_escape_files(sim_device.files, "/sdcard/escapes")
    for name in ESCAPE_FILE_NAMES:  # a directory in the way of every file
        (tmp_path / "escapes" / name).mkdir(parents=True)
    status, _, err = adbwire_bytes(
        "-s", sim_device.serial, "pull", "-q", "/sdcard/escapes", str(tmp_path)
    )
    text = err.decode()
    assert status == 1 and text.count("adbwire: error: failed to pull") == len(ESCAPE_FILE_NAMES)
    assert_no_control_characters(text, allowed="\n")
    assert r"cr\rinnocent.txt" in text and r"title\x1b]0;owned\x07.txt" in text


def assert_no_control_characters(text: str, allowed: str = "\n") -> None:
    found = sorted({char for char in text if not char.isprintable() and char not in allowed})
    assert not found, f"raw {found!r} reached the terminal: {text!r}"
