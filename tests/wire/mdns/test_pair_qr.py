"""`adbwire pair --qr` end to end: the host shows the QR code, a simulated phone "scans" it
(`adbwire simulate --wireless --qr-payload`), advertises its pairing port under the QR's name,
and the host finds it by mDNS and pairs with the QR's password; then a shell over TLS works.
Both run as separate processes in one private network namespace (namespace.py)."""

from __future__ import annotations

import io
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

import pytest
import segno

from adbwire.cli import main as cli_main
from adbwire.wire.keys import AdbKey, default_key_path
from adbwire.wire.mdns.names import parse_qr_payload
from tests.wire.mdns.namespace import run_in_multicast_namespace

ADBWIRE = [sys.executable, "-m", "adbwire"]
WAIT = 60.0


def lines_of(stream: IO[str]) -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()

    def forward() -> None:
        for line in stream:
            lines.put(line)

    threading.Thread(target=forward, daemon=True).start()
    return lines


def line_matching(lines: queue.Queue[str], pattern: str, seen: list[str]) -> re.Match[str]:
    deadline = time.monotonic() + WAIT
    while (remaining := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=remaining)
        except queue.Empty:
            break
        seen.append(line)
        if match := re.search(pattern, line):
            return match
    pytest.fail(f"no line matching {pattern!r} within {WAIT:g} s; saw {seen!r}")


@contextmanager
def started(*args: str) -> Iterator[subprocess.Popen[str]]:
    with subprocess.Popen(
        [*ADBWIRE, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    ) as child:
        try:
            yield child
        finally:
            child.terminate()
            child.wait(timeout=30)


@pytest.fixture
def user_key(adb_key: AdbKey) -> AdbKey:
    default_key_path().parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(adb_key.path, default_key_path())
    return adb_key


def test_pair_qr_with_a_phone_that_scans_the_code(user_key: AdbKey) -> None:
    def body() -> tuple[str, str, str, str]:
        with started("pair", "--qr", "--qr-wait", str(WAIT)) as host:
            assert host.stdout is not None and host.stderr is not None
            host_err: list[str] = []
            payload = line_matching(lines_of(host.stderr), r"QR code: (\S+)", host_err)[1]
            with started("simulate", "--wireless", "--port", "0", "--qr-payload", payload) as phone:
                assert phone.stdout is not None
                phone_out = lines_of(phone.stdout)
                main_address = phone_out.get(timeout=WAIT).strip()
                pairing_address = phone_out.get(timeout=WAIT).strip()
                host_out, rest = host.communicate(timeout=WAIT)
                assert host.returncode == 0, [*host_err, rest]
                shell = shell_when_trusted(main_address)
        return payload, host_out, pairing_address, shell

    payload, host_out, pairing_address, shell = run_in_multicast_namespace(body)
    qr = parse_qr_payload(payload)
    assert qr.name.startswith("studio-")
    drawn = io.StringIO()
    segno.make(payload, error="m").terminal(out=drawn, compact=True)
    qr_drawing, _, result = host_out.rpartition("Successfully")
    assert qr_drawing == drawn.getvalue()  # the code on screen holds exactly this payload
    assert re.fullmatch(
        rf"Successfully paired to {re.escape(pairing_address)} \[guid=adb-\S+\]\n",
        "Successfully" + result,
    )
    assert shell == "over tls\n"


def shell_when_trusted(address: str) -> str:
    """The phone stores the key just after it answered: a refusal in that instant is retried
    (at most 10 s), as in tests/wire/pairing/test_cli_pair.py."""
    deadline = time.monotonic() + 10
    while True:
        result = subprocess.run(
            [*ADBWIRE, "-s", address, "shell", "-n", "echo", "over tls"],
            capture_output=True,
            text=True,
            timeout=WAIT,
            check=False,
        )
        refused = "Pair first" in result.stderr or "closed the connection" in result.stderr
        if result.returncode == 0 or not refused or time.monotonic() > deadline:
            assert (result.returncode, result.stderr) == (0, "")
            return result.stdout
        time.sleep(0.05)


def test_pair_qr_gives_up_after_qr_wait(
    user_key: AdbKey, capsys: pytest.CaptureFixture[str]
) -> None:
    def body() -> tuple[int, float]:
        started_at = time.monotonic()
        status = cli_main.main(["pair", "--qr", "--qr-wait", "1"])
        return status, time.monotonic() - started_at

    status, elapsed = run_in_multicast_namespace(body)
    captured = capsys.readouterr()
    assert status == 1
    assert "no phone advertised the pairing service studio-" in captured.err
    assert "▀" in captured.out or "█" in captured.out  # the QR code was drawn
    assert elapsed < 10


@pytest.mark.parametrize("extra", [["192.168.1.5:4000"], ["--", "", "123456"]])
def test_pair_qr_takes_no_address_or_code(
    user_key: AdbKey, capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    assert cli_main.main(["pair", "--qr", *extra]) == 2
    assert "--qr takes no address or code" in capsys.readouterr().err


def test_pair_qr_stops_at_once_on_ctrl_c(user_key: AdbKey) -> None:
    def body() -> tuple[int, float, str]:
        with started("pair", "--qr", "--qr-wait", str(WAIT)) as host:
            assert host.stderr is not None
            lines = lines_of(host.stderr)
            line_matching(lines, r"Waiting up to", [])
            interrupted = time.monotonic()
            host.send_signal(signal.SIGINT)
            status = host.wait(timeout=WAIT)
            elapsed = time.monotonic() - interrupted
        rest: list[str] = []
        while not lines.empty():
            rest.append(lines.get())
        return status, elapsed, "".join(rest)

    status, elapsed, err = run_in_multicast_namespace(body)
    assert status == 130
    assert "Traceback" not in err
    assert elapsed < 10  # measured 0.6 s, most of it zeroconf closing
