"""The command line end to end, through `adbwire.cli.main` against the simulated device."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from adbwire.cli import main as cli_main
from adbwire.cli.simulate import build_options
from adbwire.testing import SimulatedDevice
from adbwire.wire.recording import load_fixture
from tests.conftest import CliRun

Run = CliRun


@pytest.fixture
def adbwire(run_cli: CliRun) -> Run:
    """`adbwire ARGS...` with a 10 s deadline per call (the device is simulated)."""
    return lambda *args: run_cli("--timeout", "10", *args)


def test_shell_keeps_stdout_and_stderr_apart_and_exits_with_the_status(
    adbwire: Run, sim_device: SimulatedDevice
) -> None:
    status, out, err = adbwire(
        "-s", sim_device.serial, "shell", "-n", "echo out; echo problem >&2; exit 7"
    )
    assert (status, out, err) == (7, "out\n", "problem\n")


def test_shell_words_are_joined_like_adb(adbwire: Run, sim_device: SimulatedDevice) -> None:
    status, out, _ = adbwire("-s", sim_device.serial, "shell", "-n", "echo", "a", "b;", "echo", "c")
    assert (status, out) == (0, "a b\nc\n")


def test_the_only_configured_device_is_chosen(
    adbwire: Run, sim_device: SimulatedDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADBWIRE_DEVICES", sim_device.serial)
    status, out, _ = adbwire("shell", "-n", "getprop", "ro.product.model")
    assert status == 0 and out.strip() == sim_device.userland.properties["ro.product.model"]


def test_several_devices_and_no_choice_is_an_error_listing_them(
    adbwire: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADBWIRE_DEVICES", "127.0.0.1:5001,127.0.0.1:5002")
    status, _, err = adbwire("shell", "-n", "true")
    assert status == 1, "as adb: a device that cannot be chosen is a failure, not bad usage"
    assert "127.0.0.1:5001" in err and "127.0.0.1:5002" in err and "Traceback" not in err


def test_devices_long_and_json(adbwire: Run, sim_device: SimulatedDevice) -> None:
    model = sim_device.userland.properties["ro.product.model"]
    status, out, _ = adbwire("devices", "-l", sim_device.serial)
    assert status == 0
    assert out.splitlines()[0] == "List of devices attached"
    assert f"{sim_device.serial}" in out and f"model:{model.replace(' ', '_')}" in out
    status, out, _ = adbwire("devices", "--json", sim_device.serial)
    rows = [row for row in json.loads(out) if row["serial"] == sim_device.serial]
    assert rows and rows[0]["state"] == "device" and "shell_v2" in rows[0]["features"]


def test_devices_reports_an_untrusted_key_as_unauthorized(
    adbwire: Run, sim_device_factory: Callable[..., SimulatedDevice]
) -> None:
    stranger = sim_device_factory(authorized_keys=())
    status, out, _ = adbwire("devices", stranger.serial)
    assert status == 0 and f"{stranger.serial}" in out and "unauthorized" in out


def test_unreachable_device_is_one_line_without_traceback(adbwire: Run) -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    status, out, _ = adbwire("devices", f"127.0.0.1:{port}")
    assert status == 0 and "offline" in out
    status, _, err = adbwire("-s", f"127.0.0.1:{port}", "shell", "-n", "true")
    assert status == 1
    assert err.startswith("adbwire: error: cannot connect to") and "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--timeout", "0", "-s", "127.0.0.1:1", "shell", "true"], "--timeout must be a positive"),
        (["devices", "host:99999"], "port must be a number"),
    ],
)
def test_bad_arguments_exit_2_with_the_reason(adbwire: Run, args: list[str], message: str) -> None:
    status, _, err = adbwire(*args)
    assert status == 2 and message in err


def test_keygen_writes_a_pair_and_refuses_to_overwrite(adbwire: Run, tmp_path: object) -> None:
    target = f"{tmp_path}/mykey"
    status, out, _ = adbwire("keygen", target)
    assert status == 0 and "mykey.pub" in out
    status, _, err = adbwire("keygen", target)
    assert status == 1 and "already exists" in err


@pytest.mark.parametrize(
    ("flags", "problem"),
    [
        (["--port", "70000"], "--port"),
        (["--max-payload", "100"], "--max-payload"),
        (["--accept-delay", "-1"], "--accept-delay"),
    ],
)
def test_simulate_refuses_bad_options(flags: list[str], problem: str) -> None:
    parser = cli_main.build_parser()
    args = parser.parse_args(["simulate", "--accept-any-key", *flags])
    with pytest.raises(Exception, match=problem):
        build_options(args)


def test_simulate_without_shell_v2_drops_the_feature() -> None:
    args = cli_main.build_parser().parse_args(["simulate", "--accept-any-key", "--no-shell-v2"])
    options = build_options(args)
    assert "shell_v2" not in options.features and options.accept_any_key


def test_a_double_dash_before_the_command_is_dropped(
    adbwire: Run, sim_device: SimulatedDevice
) -> None:
    status, out, _ = adbwire("-s", sim_device.serial, "shell", "-n", "--", "echo", "x")
    assert (status, out) == (0, "x\n")


def test_a_timeout_of_nan_is_refused(adbwire: Run) -> None:
    status, _, err = adbwire("--timeout", "nan", "-s", "127.0.0.1:1", "shell", "-n", "true")
    assert status == 2 and "--timeout" in err


def test_shell_exits_cleanly_while_forwarded_stdin_is_still_open(
    adbwire: Run, sim_device: SimulatedDevice
) -> None:
    """`producer | adbwire shell CMD` where CMD ends first: the stdin pump is still blocked in a
    read at exit, which must not abort the interpreter (it did with a buffered stdin)."""
    command = ["shell", "echo done; exit 3"]
    with subprocess.Popen(
        [sys.executable, "-m", "adbwire", "--timeout", "10", "-s", sim_device.serial, *command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ.copy(),
    ) as child:
        assert child.stdout and child.stderr
        try:
            child.wait(timeout=30)  # not communicate(), which would close stdin
        finally:
            child.kill()
        out, err = child.stdout.read(), child.stderr.read()
    assert (child.returncode, out, err) == (3, b"done\n", b"")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--redact-serial", "shell", "ls"], ["--redact-serial=", "shell", "ls"]),
        (["--redact-serial", "-s", "x", "shell"], ["--redact-serial=", "-s", "x", "shell"]),
        (["--redact-serial", "wait-for-device"], ["--redact-serial=", "wait-for-device"]),
        (["--redact-serial"], ["--redact-serial="]),
        (["--redact-serial", "ABC123", "shell"], ["--redact-serial", "ABC123", "shell"]),
        (["-s", "--redact-serial", "shell"], ["-s", "--redact-serial", "shell"]),
        (["shell", "--redact-serial", "ls"], ["shell", "--redact-serial", "ls"]),
    ],
)
def test_redact_serial_never_takes_the_command_word_as_its_value(
    argv: list[str], expected: list[str]
) -> None:
    assert cli_main.normalise(argv) == expected
    assert cli_main.command_module(argv) == cli_main.command_module(expected)


@pytest.mark.parametrize(("value", "parsed"), [([], True), (["ABC123"], "ABC123")])
def test_a_recording_with_redact_serial_before_the_command_runs_it(
    adbwire: Run, sim_device: SimulatedDevice, tmp_path: Path, value: list[str], parsed: object
) -> None:
    record = tmp_path / "session.jsonl"
    argv = ["-s", sim_device.serial, "--record", str(record), "--redact-serial", *value]
    argv += ["shell", "-n", "echo", "hi"]
    normalised = cli_main.normalise(argv)
    args = cli_main.build_parser(normalised).parse_args(normalised)
    assert (args.redact_serial, args.command) == (parsed, "shell")
    status, out, err = adbwire(*argv)
    assert (status, out) == (0, "hi\n"), err
    # The simulator's banner names no serial: only a given one is there to redact.
    assert load_fixture(record).header.serial_redacted == bool(value)
