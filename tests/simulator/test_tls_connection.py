"""Our client and our simulated wireless-debugging device: STLS, then ADB inside TLS 1.3."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from adbwire.cli import main
from adbwire.errors import TlsRejectedError
from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.wire import packets as P
from adbwire.wire.client import AdbClient
from adbwire.wire.connection import Connection
from adbwire.wire.keys import AdbKey
from adbwire.wire.recording import ReplayKey, ReplayTransport, load_fixture
from adbwire.wire.recording.events import Data
from adbwire.wire.services.shell import ShellResult
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.transport import TcpTransport
from tests.wire.recording.helpers import recorded_client

DeviceFactory = Callable[..., SimulatedDevice]
TIMEOUTS = Timeouts(connect=10, auth=10, operation=20)


def public_key_text(key: AdbKey) -> str:
    return key.public_key_bytes().rstrip(b"\0").decode()


def wireless(factory: DeviceFactory, *trusted: AdbKey, **options: object) -> SimulatedDevice:
    keys = tuple(public_key_text(key) for key in trusted)
    return factory(DeviceOptions(tls=True, authorized_keys=keys, **options))  # type: ignore[arg-type]


def connect(device: SimulatedDevice, keys: list[AdbKey]) -> AdbClient:
    return AdbClient.connect_tcp(device.serial, keys, timeouts=TIMEOUTS)


def test_shell_runs_over_tls(sim_device_factory: DeviceFactory, adb_key: AdbKey) -> None:
    device = wireless(sim_device_factory, adb_key)
    with connect(device, [adb_key]) as client:
        transport = client.connection.transport
        assert isinstance(transport, TcpTransport)
        assert transport.tls
        assert client.shell("echo over tls; echo err >&2; exit 3") == ShellResult(
            "echo over tls; echo err >&2; exit 3", b"over tls\n", b"err\n", 3
        )


class Relay:
    """A loopback TCP relay to `port` that keeps every byte passing each way."""

    def __init__(self, port: int) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.target = port
        self.to_device = bytearray()
        self.to_host = bytearray()
        self.threads: list[threading.Thread] = []
        accepting = threading.Thread(target=self._accept, daemon=True)
        accepting.start()
        self.threads.append(accepting)

    def _accept(self) -> None:
        host, _ = self.listener.accept()
        device = socket.create_connection(("127.0.0.1", self.target), timeout=10)
        host.settimeout(10)
        for source, sink, log in ((host, device, self.to_device), (device, host, self.to_host)):
            pump = threading.Thread(target=_pump, args=(source, sink, log), daemon=True)
            pump.start()
            self.threads.append(pump)

    def close(self) -> None:
        self.listener.close()
        for thread in self.threads:
            thread.join(timeout=10)


def _pump(source: socket.socket, sink: socket.socket, log: bytearray) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            log += data
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


def test_after_stls_the_socket_carries_only_tls(
    sim_device_factory: DeviceFactory, adb_key: AdbKey
) -> None:
    device = wireless(sim_device_factory, adb_key)
    relay = Relay(device.port)
    try:
        with AdbClient.connect_tcp(f"127.0.0.1:{relay.port}", [adb_key], timeouts=TIMEOUTS) as c:
            assert c.shell("echo secret-word").stdout == b"secret-word\n"
    finally:
        relay.close()
    host, device_bytes = bytes(relay.to_device), bytes(relay.to_host)
    # Host: CNXN, STLS, then a TLS handshake record (0x16, version 0x0301 in a ClientHello).
    cnxn_length = P.HEADER.unpack_from(host)[3]
    stls_at = P.HEADER_SIZE + cnxn_length
    assert P.HEADER.unpack_from(host, stls_at)[:4] == (P.A_STLS, 0x01000000, 0, 0)
    assert host[stls_at + P.HEADER_SIZE : stls_at + P.HEADER_SIZE + 3] == b"\x16\x03\x01"
    # Device: STLS (no CNXN in the clear), then TLS; the shell output is never in the clear.
    assert P.HEADER.unpack_from(device_bytes)[:4] == (P.A_STLS, 0x01000000, 0, 0)
    assert device_bytes[P.HEADER_SIZE] == 0x16
    assert b"secret-word" not in host + device_bytes
    assert b"sdk_gphone64" not in device_bytes  # the device's banner went encrypted


def test_push_and_pull_over_tls(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, tmp_path: Path
) -> None:
    device = wireless(sim_device_factory, adb_key)
    data = bytes(range(256)) * 8192 + b"tail"  # 2 MiB and a bit: many records, full payloads
    source = tmp_path / "up.bin"
    source.write_bytes(data)
    with connect(device, [adb_key]) as client:
        client.push([source], "/data/local/tmp/up.bin")
        client.pull(["/data/local/tmp/up.bin"], tmp_path / "down.bin")
    assert (tmp_path / "down.bin").read_bytes() == data


def test_unknown_key_is_refused_with_pair_first(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, other_key: AdbKey
) -> None:
    device = wireless(sim_device_factory, adb_key)
    started = time.monotonic()
    with pytest.raises(TlsRejectedError, match=r"[Pp]air first: adbwire pair"):
        connect(device, [other_key])
    assert time.monotonic() - started < TIMEOUTS.connect  # refused, not timed out


def test_the_key_the_device_lists_is_presented(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, other_key: AdbKey
) -> None:
    """The device names adb_key in its CertificateRequest; other_key comes first here."""
    device = wireless(sim_device_factory, adb_key)
    with connect(device, [other_key, adb_key]) as client:
        assert client.shell("echo chosen").stdout == b"chosen\n"


def test_a_device_without_auth_takes_the_first_key(
    sim_device_factory: DeviceFactory, other_key: AdbKey
) -> None:
    device = wireless(sim_device_factory, auth_required=False)
    with connect(device, [other_key]) as client:
        assert client.shell("echo open").stdout == b"open\n"


def test_a_key_authorized_later_is_trusted_on_the_next_connection(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, other_key: AdbKey
) -> None:
    """What pairing does on the device: add the key; the next TLS handshake accepts it."""
    device = wireless(sim_device_factory, adb_key)
    with pytest.raises(TlsRejectedError):
        connect(device, [other_key])
    device.state.keys.authorize(public_key_text(other_key))
    with connect(device, [other_key]) as client:
        assert client.shell("echo paired").stdout == b"paired\n"


def test_a_recorded_tls_session_replays_without_tls(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, tmp_path: Path
) -> None:
    device = wireless(sim_device_factory, adb_key)
    path = tmp_path / "tls.jsonl"
    with recorded_client(device, path, [adb_key]) as (client, transport):
        assert isinstance(transport.inner, TcpTransport)
        assert transport.inner.tls
        recorded = [client.shell("echo recorded"), client.shell("cat", stdin=b"typed\n")]
    fixture = load_fixture(path)
    assert fixture.header.auth.outcome == "none"  # no AUTH: TLS authenticated us
    data = [item.event.data for item in fixture.events if isinstance(item.event, Data)]
    assert any(b"recorded" in chunk for chunk in data)
    replay = ReplayTransport(path, strict=True)
    with AdbClient(Connection.open(replay, [ReplayKey()], timeouts=TIMEOUTS)) as replayed:
        assert [replayed.shell("echo recorded"), replayed.shell("cat", stdin=b"typed\n")] == (
            recorded
        )


def test_cli_shell_over_tls(
    sim_device_factory: DeviceFactory,
    adb_key: AdbKey,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    device = wireless(sim_device_factory, adb_key)
    monkeypatch.setenv("ADB_VENDOR_KEYS", str(adb_key.path))
    assert main.main(["-s", device.serial, "shell", "-n", "echo", "via", "cli"]) == 0
    assert capsys.readouterr().out == "via cli\n"


def test_cli_unknown_key_says_pair_first_without_a_traceback(
    sim_device_factory: DeviceFactory,
    adb_key: AdbKey,
    capsys: pytest.CaptureFixture[str],
) -> None:
    device = wireless(sim_device_factory, adb_key)  # the CLI's own ~/.android/adbkey is new
    assert main.main(["-s", device.serial, "shell", "-n", "echo", "nope"]) == 1
    err = capsys.readouterr().err
    assert "adbwire pair" in err
    assert "Traceback" not in err
