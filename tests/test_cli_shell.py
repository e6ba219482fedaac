"""`adbwire shell` as adb's: no deadline, -t/-T/-x/-n, and old devices (no shell_v2).

Each test runs `python -m adbwire` in a child process, so stdin is a real pipe (not a
terminal), as in `printf 'a\\n' | adbwire shell cat`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from typing import BinaryIO

import pytest

from adbwire.cli import legacy_shell
from adbwire.cli import main as cli_main
from adbwire.testing import DEVICE_FEATURES, SimulatedDevice
from adbwire.wire.keys import AdbKey, default_key_path

LEGACY = {
    "features": tuple(f for f in DEVICE_FEATURES if f != "shell_v2"),
    "protocol_version": 0x01000000,
    "max_payload": 1024,
}


@pytest.fixture
def user_key(adb_key: AdbKey) -> None:
    default_key_path().parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(adb_key.path, default_key_path())


def adbwire(device: SimulatedDevice, *args: str, stdin: bytes = b"") -> tuple[int, bytes, bytes]:
    done = subprocess.run(
        [sys.executable, "-m", "adbwire", "-s", device.serial, *args],
        input=stdin,
        capture_output=True,
        timeout=60,
        env=os.environ.copy(),
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def legacy_device(
    sim_device_factory: Callable[..., SimulatedDevice], user_key: None
) -> SimulatedDevice:
    return sim_device_factory(**LEGACY)


@pytest.fixture
def device(sim_device: SimulatedDevice, user_key: None) -> SimulatedDevice:
    return sim_device


def test_the_operation_timeout_does_not_stop_a_shell_command(device: SimulatedDevice) -> None:
    """adb never kills a command: `adbwire --timeout 1 shell 'sleep 2; echo done'` ends."""
    assert adbwire(device, "--timeout", "1", "shell", "sleep 2; echo done") == (0, b"done\n", b"")


def test_shell_timeout_is_a_deadline_the_user_asks_for(device: SimulatedDevice) -> None:
    status, out, err = adbwire(device, "shell", "--timeout", "1", "sleep 30; echo done")
    assert (status, out) == (1, b"") and b"timed out" in err


def test_no_shell_protocol_merges_stderr_and_drops_the_exit_status(
    device: SimulatedDevice,
) -> None:
    status, out, err = adbwire(device, "shell", "-x", "echo out; echo err >&2; exit 3")
    assert (status, out, err) == (0, b"out\nerr\n", b"")


def test_dash_t_without_a_terminal_warns_as_adb_and_allocates_no_pty(
    device: SimulatedDevice,
) -> None:
    _, out, err = adbwire(device, "shell", "-t", "tty")
    assert out == b"not a tty\n"
    assert b"Remote PTY will not be allocated because stdin is not a terminal." in err


def test_dash_tt_forces_a_pty(device: SimulatedDevice) -> None:
    status, out, err = adbwire(device, "shell", "-tt", "tty")
    assert (status, err) == (0, b"") and out.startswith(b"/dev/pts/") and out.endswith(b"\r\n")


def test_dash_t_dash_T_is_no_pty(device: SimulatedDevice) -> None:
    assert adbwire(device, "shell", "-tt", "-T", "tty")[1] == b"not a tty\n"


def test_no_stdin_flag_gives_the_command_an_empty_input(device: SimulatedDevice) -> None:
    assert adbwire(device, "shell", "-n", "cat", stdin=b"ignored\n") == (0, b"", b"")


def test_no_command_and_piped_stdin_runs_the_script(device: SimulatedDevice) -> None:
    assert adbwire(device, "shell", stdin=b"echo scripted\nexit 4\n") == (4, b"scripted\n", b"")


def test_old_device_gets_piped_stdin_and_the_command_sees_its_end(
    legacy_device: SimulatedDevice,
) -> None:
    status, out, err = adbwire(legacy_device, "shell", "cat; exit 5", stdin=b"a\nb\n")
    assert (status, out, err) == (5, b"a\nb\n", b"")
    listing = adbwire(legacy_device, "shell", "-n", "ls /data/local/tmp")
    assert b"adbwire-stdin" not in listing[1]  # the spooled input is removed


def test_old_device_stdin_is_binary_and_larger_than_a_packet(
    legacy_device: SimulatedDevice,
) -> None:
    data = bytes(range(256)) * 40  # ten 1 KiB packets, every byte value
    status, out, _ = adbwire(legacy_device, "shell", "wc -c", stdin=data)
    assert (status, out.strip()) == (0, str(len(data)).encode())


def test_old_device_without_input_warns_nothing(legacy_device: SimulatedDevice) -> None:
    assert adbwire(legacy_device, "shell", "echo out; echo err >&2; exit 3") == (
        3,
        b"out\nerr\n",
        b"",
    )


def test_old_device_no_command_reads_commands_from_stdin(
    legacy_device: SimulatedDevice,
) -> None:
    """`shell:` with no command is an interactive pty shell: it echoes, like on a real device."""
    status, out, _ = adbwire(legacy_device, "shell", stdin=b"echo scripted\nexit\n")
    assert status == 0 and b"scripted\r\n" in out


class _PipeStdin:
    """sys.stdin as a pipe whose writer is closed (a script's `< /dev/null` or `true |`)."""

    def __init__(self, data: bytes) -> None:
        reader, writer = os.pipe()
        os.write(writer, data)
        os.close(writer)
        self._fd = reader

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return False

    def close(self) -> None:
        os.close(self._fd)


@pytest.mark.parametrize("data", [b"", b"x"])
def test_old_device_spools_only_input_there_is(
    legacy_device: SimulatedDevice,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    data: bytes,
) -> None:
    """Empty stdin (a script's `< /dev/null`) needs no file on the device, so an adbd
    without a writable /data/local/tmp still runs the command."""
    spooled: list[bytes] = []

    def spool(client: object, source: BinaryIO, timeout: float | None) -> str:
        spooled.append(source.read(1024))
        return "/data/local/tmp/spooled"

    monkeypatch.setattr(legacy_shell, "spool_stdin", spool)  # imported by shell when used
    stdin = _PipeStdin(data)
    monkeypatch.setattr(sys, "stdin", stdin)
    try:
        cli_main.main(["--timeout", "10", "-s", legacy_device.serial, "shell", "echo ran"])
    finally:
        stdin.close()
    capsysbinary.readouterr()
    assert spooled == ([data] if data else [])
