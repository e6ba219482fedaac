"""adb's other commands on the command line (#17): get-state & co, connect/disconnect,
wait-for-*, logcat, remount, "did you mean", Ctrl-C and connection-error wording."""

from __future__ import annotations

import io
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from adbwire.cli import known_devices, progress
from adbwire.cli import main as cli_main
from adbwire.cli.targets import PROMPT_NOTICE
from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.wire.keys import AdbKey, default_key_path
from adbwire.wire.transport import describe_socket_error
from tests.conftest import CliRun

Run = CliRun


@pytest.fixture
def adbwire(run_cli: CliRun) -> Run:
    """`adbwire ARGS...` with a 10 s deadline per call (the device is simulated)."""
    return lambda *args: run_cli("--timeout", "10", *args)


def refused_address() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"  # closed again: nothing listens


# ---------------------------------------------------------------- get-state & co


def test_get_state_serialno_and_devpath(adbwire: Run, sim_device: SimulatedDevice) -> None:
    serial = sim_device.serial
    assert adbwire("-s", serial, "get-state") == (0, "device\n", "")
    assert adbwire("-s", serial, "get-serialno") == (0, f"{serial}\n", "")
    assert adbwire("-s", serial, "get-devpath") == (0, "unknown\n", "")  # TCP, as adb


def test_get_state_of_a_device_that_refuses_is_a_worded_error(adbwire: Run) -> None:
    status, out, err = adbwire("-s", refused_address(), "get-state")
    assert (status, out) == (1, "")
    assert "connection refused" in err and "Errno" not in err


def test_connection_errors_are_worded_for_people() -> None:
    assert "no such host" in describe_socket_error(socket.gaierror(-2, "Name not known"))
    assert "refused" in describe_socket_error(ConnectionRefusedError(111, "Connection refused"))
    assert "timed out" in describe_socket_error(TimeoutError())
    assert "unreachable" in describe_socket_error(OSError(101, "Network is unreachable"))


# ---------------------------------------------------------------- connect / disconnect


def test_connect_remembers_the_device_for_devices_and_for_choosing_it(
    adbwire: Run, sim_device: SimulatedDevice
) -> None:
    serial = sim_device.serial
    assert adbwire("connect", serial) == (0, f"connected to {serial}\n", "")
    assert adbwire("connect", serial) == (0, f"already connected to {serial}\n", "")
    path = known_devices.state_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert serial in adbwire("devices")[1]
    assert adbwire("shell", "-n", "echo", "chosen") == (0, "chosen\n", "")  # the only device
    assert adbwire("disconnect", serial) == (0, f"disconnected {serial}\n", "")
    assert serial not in adbwire("devices")[1]
    assert adbwire("disconnect", serial) == (1, "", f"error: no such device '{serial}'\n")


def test_connect_to_nothing_fails_and_remembers_nothing(adbwire: Run) -> None:
    address = refused_address()
    status, out, _ = adbwire("connect", address)
    assert status == 1 and out.startswith(f"failed to connect to '{address}': connection refused")
    assert known_devices.load() == []


def test_disconnect_without_argument_forgets_all(adbwire: Run, sim_device: SimulatedDevice) -> None:
    known_devices.remember("127.0.0.1:5")
    assert adbwire("connect", sim_device.serial)[0] == 0
    assert adbwire("disconnect") == (0, "disconnected everything\n", "")
    assert known_devices.load() == []


def test_connect_with_a_bad_address_is_a_usage_error(adbwire: Run) -> None:
    status, _, err = adbwire("connect", "host:99999")
    assert status == 2 and "port" in err


def test_the_state_file_follows_xdg_state_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: os.PathLike[str]
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert known_devices.state_file() == Path(tmp_path) / "adbwire" / "connected"


# ---------------------------------------------------------------- wait-for


def test_wait_for_device_returns_once_the_device_comes_up(
    sim_device_factory: Callable[..., SimulatedDevice], adb_key: AdbKey
) -> None:
    """The device starts only after wait-for-device has tried (and failed) to reach it."""
    default_key_path().parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(adb_key.path, default_key_path())
    placeholder = socket.socket()
    placeholder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    placeholder.bind(("127.0.0.1", 0))
    placeholder.listen(1)
    placeholder.settimeout(60)
    port = placeholder.getsockname()[1]
    with subprocess.Popen(
        [sys.executable, "-m", "adbwire", "-s", f"127.0.0.1:{port}", "wait-for-device"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ.copy(),
    ) as child:
        try:
            attempt, _ = placeholder.accept()  # wait-for-device is probing: not a device
            attempt.close()
            placeholder.close()
            sim_device_factory(port=port)
            out, err = child.communicate(timeout=60)
        finally:
            child.kill()
    assert (child.returncode, out, err) == (0, b"", b"")


def test_wait_for_device_gives_up_at_its_timeout(adbwire: Run) -> None:
    status, _, err = adbwire("-s", refused_address(), "wait-for-device", "--timeout", "0.5")
    assert status == 1 and "timed out" in err


def test_wait_for_disconnect_and_transport_forms(adbwire: Run, sim_device: SimulatedDevice) -> None:
    assert adbwire("-s", refused_address(), "wait-for-disconnect")[0] == 0
    assert adbwire("-s", sim_device.serial, "wait-for-local-device", "--timeout", "20")[0] == 0
    status, _, err = adbwire("-s", sim_device.serial, "wait-for-usb-device", "--timeout", "0.5")
    assert status == 1 and "on USB" in err


def test_wait_for_an_unknown_state_suggests_the_right_form(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli_main.main(["wait-for-devise"])
    assert exit_info.value.code == 2
    assert "did you mean 'wait-for-device'?" in capsys.readouterr().err


# ---------------------------------------------------------------- logcat, remount
# (reverse: tests/test_cli_reverse.py)


def test_logcat_passes_its_arguments_through(adbwire: Run, sim_device: SimulatedDevice) -> None:
    status, out, _ = adbwire("-s", sim_device.serial, "logcat", "-d", "ActivityManager:I", "*:S")
    lines = [line for line in out.splitlines() if not line.startswith("---------")]
    assert status == 0 and lines and all(" ActivityManager: " in line for line in lines)


def test_logcat_clear_then_dump_is_empty(adbwire: Run, sim_device: SimulatedDevice) -> None:
    assert adbwire("-s", sim_device.serial, "logcat", "-c") == (0, "", "")
    assert adbwire("-s", sim_device.serial, "logcat", "-d") == (0, "", "")


def test_logcat_exits_with_logcats_status(adbwire: Run, sim_device: SimulatedDevice) -> None:
    status, _, err = adbwire("-s", sim_device.serial, "logcat", "-d", "-b", "nosuch")
    assert status == 1 and "nosuch" in err


def test_logcat_help_is_ours(adbwire: Run) -> None:
    status, out, _ = adbwire("logcat", "--help")
    assert status == 0 and out.startswith("usage: adbwire logcat")


def test_remount_reports_the_device_refusal(adbwire: Run, sim_device: SimulatedDevice) -> None:
    status, out, err = adbwire("-s", sim_device.serial, "remount")
    assert status == 1 and out == "" and err.strip()


# ---------------------------------------------------------------- polish


def test_a_mistyped_command_gets_a_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli_main.main(["shel", "ls"])
    assert exit_info.value.code == 2
    assert "did you mean 'shell'?" in capsys.readouterr().err


def test_ctrl_c_while_starting_exits_130_without_a_traceback() -> None:
    program = (
        "import os, signal\n"
        "import adbwire.cli\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "import adbwire.cli.main\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, timeout=60, check=False
    )
    assert (done.returncode, done.stderr) == (130, b"")


def test_ctrl_c_while_waiting_exits_130_without_a_traceback(adb_key: AdbKey) -> None:
    placeholder = socket.create_server(("127.0.0.1", 0))
    placeholder.settimeout(60)
    port = placeholder.getsockname()[1]
    with (
        placeholder,
        subprocess.Popen(
            [sys.executable, "-m", "adbwire", "-s", f"127.0.0.1:{port}", "wait-for-device"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=os.environ.copy(),
        ) as child,
    ):
        try:
            placeholder.accept()[0].close()  # it is running its main loop
            child.send_signal(signal.SIGINT)
            out, err = child.communicate(timeout=60)
        finally:
            child.kill()
    assert (child.returncode, out, err) == (130, b"", b"")


def test_the_debugging_prompt_is_announced_while_it_is_pending(
    adbwire: Run, sim_device_factory: Callable[..., SimulatedDevice]
) -> None:
    device = sim_device_factory(
        DeviceOptions(authorized_keys=(), accept_new_keys=True, accept_delay=0.5)
    )
    status, out, err = adbwire("-s", device.serial, "shell", "-n", "echo", "allowed")
    assert (status, out) == (0, "allowed\n") and PROMPT_NOTICE in err


def test_the_progress_rate_counts_from_the_transfers_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Connecting took 10 s, 100 MiB then moved in 1 s: the line says 100 MB/s, not 9.1."""
    now = [0.0]
    monkeypatch.setattr(progress, "time", SimpleNamespace(monotonic=lambda: now[0]))
    shown = io.StringIO()
    line = progress.ProgressLine("push to /sdcard", shown, enabled=True)  # before connecting
    now[0] = 10.0
    line(0, 100 * progress.MIB)
    now[0] = 11.0
    line(100 * progress.MIB, 100 * progress.MIB)
    assert "100.0 MB/s" in shown.getvalue()


def test_logcat_streams_until_ctrl_c(sim_device: SimulatedDevice, adb_key: AdbKey) -> None:
    """Without -d logcat follows the log: lines arrive, then Ctrl-C ends it (130, quietly)."""
    default_key_path().parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(adb_key.path, default_key_path())
    with subprocess.Popen(
        [sys.executable, "-m", "adbwire", "-s", sim_device.serial, "logcat"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ.copy(),
    ) as child:
        try:
            assert child.stdout is not None
            first = child.stdout.readline()  # the log is streaming
            child.send_signal(signal.SIGINT)
            _, err = child.communicate(timeout=60)
        finally:
            child.kill()
    assert first and (child.returncode, err) == (130, b"")


def test_a_damaged_state_file_costs_only_its_bad_lines(
    adbwire: Run, sim_device: SimulatedDevice
) -> None:
    path = known_devices.state_file()
    path.parent.mkdir(parents=True)
    path.write_bytes(f"not an address\n\x1b[2J:x\n{sim_device.serial}\nhost:99999\n".encode())
    assert known_devices.load() == [sim_device.serial]
    status, out, _ = adbwire("devices")
    assert status == 0 and f"{sim_device.serial} " in out


def test_an_oversized_state_file_is_ignored() -> None:
    path = known_devices.state_file()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"127.0.0.1:5555\n" * (known_devices.MAX_BYTES // 10))
    assert known_devices.load() == []


def test_get_state_without_a_device_exits_1_as_adb(adbwire: Run) -> None:
    status, out, err = adbwire("get-state")
    assert (status, out) == (1, "") and "no device" in err
