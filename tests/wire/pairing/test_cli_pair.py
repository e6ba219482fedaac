"""`adbwire pair` and `adbwire simulate --wireless`, end to end."""

from __future__ import annotations

import io
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from adbwire.cli import main as cli_main
from adbwire.cli.simulate import build_options
from adbwire.errors import UsageError
from adbwire.testing import SimulatedDevice
from adbwire.testing.pairing_server import PairingServer
from adbwire.wire.keys import AdbKey, default_key_comment, encode_android_pubkey
from tests.conftest import CliRun
from tests.wire.pairing.peers import Peer, scripted_device

CODE = "482913"
Run = CliRun


@pytest.fixture
def adbwire(run_cli: CliRun) -> Run:
    return run_cli


@pytest.fixture
def device(sim_device_factory: Callable[..., SimulatedDevice]) -> SimulatedDevice:
    return sim_device_factory(authorized_keys=())


@pytest.fixture
def pairing(device: SimulatedDevice, other_key: AdbKey) -> Iterator[PairingServer]:
    with PairingServer(device, CODE, device_key=other_key) as server:
        yield server


def trusted(device: SimulatedDevice, key: AdbKey) -> bool:
    return device.keys.is_authorized(
        encode_android_pubkey(key.public_key, default_key_comment()).decode()
    )


def test_pair_prints_what_adb_prints(
    adbwire: Run, pairing: PairingServer, device: SimulatedDevice, adb_key: AdbKey
) -> None:
    status, out, err = adbwire("pair", pairing.address, CODE)
    assert (status, err) == (0, "")
    assert out == f"Successfully paired to {pairing.address} [guid={pairing.guid}]\n"
    assert pairing.paired.wait(10)  # the device stores the key after it answered
    assert trusted(device, adb_key)


def test_pair_with_another_key(
    adbwire: Run, pairing: PairingServer, device: SimulatedDevice, other_key: AdbKey
) -> None:
    status, _, err = adbwire("pair", "--key", str(other_key.path), pairing.address, CODE)
    assert (status, err) == (0, "")
    assert pairing.paired.wait(10)
    assert trusted(device, other_key)


def test_pair_asks_for_the_code_when_omitted(
    adbwire: Run, pairing: PairingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{CODE}\n"))
    status, out, _ = adbwire("pair", pairing.address)
    assert status == 0
    assert out.startswith("Enter pairing code: Successfully paired to ")


def test_pair_without_any_code_is_refused(
    adbwire: Run, pairing: PairingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    status, _, err = adbwire("pair", pairing.address)
    assert status == 2
    assert err == "adbwire: error: no pairing code provided\n"


@pytest.mark.parametrize("code", ["12345", "12ab56", "1234567"])
def test_a_malformed_code_is_refused_before_connecting(
    adbwire: Run, pairing: PairingServer, code: str
) -> None:
    status, _, err = adbwire("pair", pairing.address, code)
    assert status == 2
    assert "6 digits" in err and "Traceback" not in err
    assert err.count("\n") == 1
    assert not pairing.outcome.failures  # nothing reached the device


def test_a_wrong_code_is_one_clear_line(
    adbwire: Run, pairing: PairingServer, device: SimulatedDevice, adb_key: AdbKey
) -> None:
    status, out, err = adbwire("pair", pairing.address, "482914")
    assert (status, out) == (2, "")
    assert err.startswith("adbwire: error: wrong pairing code")
    assert err.count("\n") == 1
    assert not trusted(device, adb_key)


def test_the_port_is_required(adbwire: Run) -> None:
    status, _, err = adbwire("pair", "192.168.1.5", CODE)
    assert status == 2
    assert "pairing port" in err


def test_a_stalled_device_ends_within_the_connect_timeout(adbwire: Run, other_key: AdbKey) -> None:
    def stall(peer: Peer) -> None:
        with peer.tls():
            peer.hold()

    with scripted_device(other_key, stall) as (address, _):
        started = time.monotonic()
        status, _, err = adbwire("--connect-timeout", "1", "pair", address, CODE)
        elapsed = time.monotonic() - started
    assert status == 1
    assert "timed out" in err and "Traceback" not in err
    assert elapsed < 8


# --------------------------------------------------------------- adbwire simulate --wireless


def simulate_args(*flags: str) -> object:
    return cli_main.build_parser().parse_args(["simulate", *flags])


def test_wireless_turns_on_tls_and_trusts_no_key_by_default() -> None:
    options = build_options(simulate_args("--wireless"))  # type: ignore[arg-type]
    assert options.tls
    assert options.authorized_keys == ()
    assert not build_options(simulate_args()).tls  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("flags", "problem"),
    [
        (["--pair-code", "123456"], "need --wireless"),
        (["--pair-port", "4000"], "need --wireless"),
        (["--wireless", "--pair-port", "70000"], "--pair-port"),
    ],
)
def test_simulate_refuses_bad_pairing_flags(flags: list[str], problem: str) -> None:
    with pytest.raises(UsageError, match=problem):
        build_options(simulate_args(*flags))  # type: ignore[arg-type]


def test_simulate_wireless_then_pair(adbwire: Run, adb_key: AdbKey) -> None:
    """The documented commands: simulate --wireless prints the pairing address; pair works."""
    command = [sys.executable, "-m", "adbwire", "simulate", "--wireless", "--port", "0"]
    command += ["--pair-port", "0", "--pair-code", CODE]
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    ) as child:
        try:
            assert child.stdout is not None
            lines: queue.Queue[str] = queue.Queue()
            stdout = child.stdout

            def forward_lines() -> None:
                for line in stdout:
                    lines.put(line)

            threading.Thread(target=forward_lines, daemon=True).start()
            main_address = lines.get(timeout=60).strip()
            pairing_address = lines.get(timeout=60).strip()
            assert main_address.startswith("127.0.0.1:")
            assert pairing_address.startswith("127.0.0.1:")
            assert pairing_address != main_address
            status, out, err = adbwire("-s", main_address, "shell", "-n", "echo", "over tls")
            assert (status, out) == (1, "")  # not trusted yet: refused
            assert "Pair first" in err and "Traceback" not in err
            status, out, err = adbwire("pair", pairing_address, CODE)
            assert (status, err) == (0, "")
            assert out.startswith(f"Successfully paired to {pairing_address} [guid=adb-")
            assert shell_once_trusted(adbwire, main_address) == "over tls\n"
        finally:
            child.terminate()
            child.wait(timeout=30)


def shell_once_trusted(adbwire: Run, address: str) -> str:
    """`adbwire -s ADDRESS shell echo over tls` once the device has stored the paired key.

    The device stores the key just after it answered (a phone does too), and from another
    process there is no event to wait on: a refusal in that instant is tried again, for at
    most 10 s. Any other failure fails at once. (A refusal says "Pair first", whether the
    device's TLS alert arrives or its close overtakes it.)"""
    deadline = time.monotonic() + 10
    while True:
        status, out, err = adbwire("-s", address, "shell", "-n", "echo", "over tls")
        refused = "Pair first" in err
        if status == 0 or not refused or time.monotonic() > deadline:
            assert (status, err) == (0, "")
            return out
        time.sleep(0.05)


def test_a_hostile_guid_is_shown_escaped(
    adbwire: Run, device: SimulatedDevice, other_key: AdbKey
) -> None:
    """The guid is the device's text: terminal escapes in it are shown, never obeyed."""
    guid = "adb-\x1b]0;pwned\x07\x1b[2J"
    with PairingServer(device, CODE, guid=guid, device_key=other_key) as server:
        status, out, _ = adbwire("pair", server.address, CODE)
    assert status == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "[guid=adb-\\x1b]0;pwned\\x07\\x1b[2J]" in out
