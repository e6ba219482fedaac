"""`adb reverse` and `adbwire reverse` on the same simulated device: relaying, listing,
removing, both clients' forwards at once, and the device's own `nc` through one."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys

import pytest

from tests.interop.adb_oracle import ADB, free_port
from tests.interop.cli_parity import Both
from tests.wire.services.loopback_servers import echo, loopback_server, speak_then_close

pytestmark = [
    pytest.mark.interop,
    pytest.mark.skipif(not ADB.exists(), reason="Google's adb is not installed at /usr/bin/adb"),
]


def _reverse_echo(port: int, payload: bytes) -> bytes:
    """Connect as an app on the device would (its loopback is this machine's) and echo."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.settimeout(30)
        sock.sendall(payload)
        received = bytearray()
        while len(received) < len(payload):
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
        return bytes(received)


def test_adb_reverse_relays_through_the_simulated_device(both: Both) -> None:
    """Google's adb sets a reverse forward up on the simulated device, accepts the streams
    the device opens for connections made there, and lists and removes it."""
    with loopback_server(echo) as server:
        device_port = free_port()
        assert both.adb_run("reverse", f"tcp:{device_port}", f"tcp:{server.port}") == (0, b"", b"")
        assert _reverse_echo(device_port, b"through adb reverse" * 1000) == (
            b"through adb reverse" * 1000
        )
        status, listing, _ = both.adb_run("reverse", "--list")
        line, blank = listing.decode().splitlines()
        assert status == 0 and line.split()[1:] == [f"tcp:{device_port}", f"tcp:{server.port}"]
        assert blank == ""
        # adbd keeps one table: adbwire, on its own connection, lists the same listener.
        assert both.adbwire_run("reverse", "--list") == (0, listing, b"")
        assert both.adb_run("reverse", "--remove", f"tcp:{device_port}") == (0, b"", b"")
        assert both.adb_run("reverse", "--list") == (0, b"\n", b"")


def test_adb_reverse_tcp_0_prints_the_port_the_device_picked(both: Both) -> None:
    with loopback_server(echo) as server:
        status, out, err = both.adb_run("reverse", "tcp:0", f"tcp:{server.port}")
        assert (status, err) == (0, b"") and out.strip().isdigit()
        assert _reverse_echo(int(out), b"picked") == b"picked"
        both.adb_run("reverse", "--remove-all")


def test_reverse_management_matches_adb(both: Both) -> None:
    """An unknown listener, --remove-all and an empty --list: the same words and status."""
    for args in (["--remove", "tcp:1"], ["--remove-all"], ["--list"]):
        expected, actual = both.both("reverse", *args)
        assert actual == (expected[0], expected[1], expected[2].replace(b"adb:", b"adbwire:"))


def test_reverse_no_rebind_matches_adb(both: Both) -> None:
    """A listener adb set up: --no-rebind on it fails in adbd's words for both clients."""
    with loopback_server(echo) as server:
        port = free_port()
        assert both.adb_run("reverse", f"tcp:{port}", f"tcp:{server.port}")[0] == 0
        try:
            expected, actual = both.both("reverse", "--no-rebind", f"tcp:{port}", "tcp:1")
            assert expected == (1, b"", b"adb: error: cannot rebind existing socket\n")
            assert actual == (1, b"", b"adbwire: error: cannot rebind existing socket\n")
        finally:
            both.adb_run("reverse", "--remove-all")


def test_adbwire_reverse_beside_adbs(both: Both) -> None:
    """Both clients hold a reverse forward on the device at once; each relays its own."""
    with loopback_server(echo) as server:
        adb_port, our_port = free_port(), free_port()
        assert both.adb_run("reverse", f"tcp:{adb_port}", f"tcp:{server.port}")[0] == 0
        ours = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "adbwire",
                "-s",
                both.device.serial,
                "reverse",
                f"tcp:{our_port}",
                f"tcp:{server.port}",
            ],
            env=both.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            assert ours.stderr is not None
            assert ours.stderr.readline().startswith(b"adbwire: reversing device")
            assert _reverse_echo(our_port, b"ours") == b"ours"
            assert _reverse_echo(adb_port, b"adb's") == b"adb's"
            _, listing, _ = both.adb_run("reverse", "--list")
            assert sorted(
                line.split()[1] for line in listing.decode().splitlines() if line
            ) == sorted([f"tcp:{adb_port}", f"tcp:{our_port}"])
            ours.send_signal(signal.SIGINT)
            assert ours.wait(30) == 130
            _, listing, _ = both.adb_run("reverse", "--list")
            assert [line.split()[1] for line in listing.decode().splitlines() if line] == [
                f"tcp:{adb_port}"
            ]
        finally:
            if ours.poll() is None:
                ours.kill()
                ours.wait(30)
            both.adb_run("reverse", "--remove-all")


def test_the_devices_nc_reaches_the_host_through_reverse(both: Both) -> None:
    """From the device's own shell: `nc localhost PORT` (toybox netcat) through adb's
    reverse forward, both directions (the host speaks first; the device sends a line)."""
    heard: list[bytes] = []

    def record(conn: socket.socket) -> None:
        received = bytearray()
        while chunk := conn.recv(65536):
            received += chunk
        heard.append(bytes(received))

    with loopback_server(speak_then_close(b"hello from the host\n")) as speaker:
        device_port = free_port()
        assert both.adb_run("reverse", f"tcp:{device_port}", f"tcp:{speaker.port}")[0] == 0
        # nc's stdin stays open (sleep) while the host's greeting arrives and the host closes.
        assert both.adb_run("shell", f"sleep 2 | nc localhost {device_port}") == (
            0,
            b"hello from the host\n",
            b"",
        )
    with loopback_server(record) as recorder:
        device_port = free_port()
        assert both.adb_run("reverse", f"tcp:{device_port}", f"tcp:{recorder.port}")[0] == 0
        status = both.adb_run("shell", f"echo from the device | nc localhost {device_port}")
        assert status == (0, b"", b"")
        assert recorder.finished.acquire(timeout=30)
        assert heard == [b"from the device\n"]
    both.adb_run("reverse", "--remove-all")
