"""The simulated wireless device against hosts that get TLS wrong: it drops them, as adbd
does (one handshake attempt per connection), and stays up for the next host."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.testing import tls as device_tls
from adbwire.wire import packets as P
from adbwire.wire.banner import host_banner
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey
from adbwire.wire.timeouts import Timeouts

DeviceFactory = Callable[..., SimulatedDevice]


def wireless(factory: DeviceFactory, trusted: AdbKey) -> SimulatedDevice:
    key_text = trusted.public_key_bytes().rstrip(b"\0").decode()
    return factory(DeviceOptions(tls=True, authorized_keys=(key_text,)))


def read_packet(sock: socket.socket) -> P.Packet:
    header = P.decode_header(_exactly(sock, P.HEADER_SIZE), max_payload=P.MAX_PAYLOAD)
    payload = _exactly(sock, header.length) if header.length else b""
    return P.Packet(header.command, header.arg0, header.arg1, payload)


def _exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def start_tls_by_hand(device: SimulatedDevice) -> socket.socket:
    """CNXN, the device's STLS, our STLS: the device now waits for a ClientHello."""
    sock = socket.create_connection(("127.0.0.1", device.port), timeout=10)
    cnxn = P.Packet(P.A_CNXN, P.VERSION_SKIP_CHECKSUM, P.MAX_PAYLOAD, host_banner().encode())
    sock.sendall(cnxn.encode(with_checksum=False))
    stls = read_packet(sock)
    assert (stls.command, stls.arg0, stls.arg1, stls.payload) == (P.A_STLS, 0x01000000, 0, b"")
    sock.sendall(P.Packet(P.A_STLS, 0x01000000, 0, b"").encode(with_checksum=False))
    return sock


def wait_for_close(sock: socket.socket) -> float:
    started = time.monotonic()
    sock.settimeout(10)
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        pass
    return time.monotonic() - started


def test_a_host_that_stalls_in_the_handshake_is_dropped(
    sim_device_factory: DeviceFactory,
    adb_key: AdbKey,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(device_tls, "HANDSHAKE_TIMEOUT", 0.5)
    device = wireless(sim_device_factory, adb_key)
    with start_tls_by_hand(device) as sock:
        assert wait_for_close(sock) < 8  # dropped after its handshake timeout, not never
    with AdbClient.connect_tcp(device.serial, [adb_key], timeouts=Timeouts(connect=10)) as c:
        assert c.shell("echo still up").stdout == b"still up\n"


def test_a_host_that_sends_garbage_instead_of_tls_is_dropped(
    sim_device_factory: DeviceFactory, adb_key: AdbKey
) -> None:
    device = wireless(sim_device_factory, adb_key)
    with start_tls_by_hand(device) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\n\r\n" * 10)
        assert wait_for_close(sock) < 8  # the alert, then the end: well before the timeout


def test_no_plain_service_before_tls(sim_device_factory: DeviceFactory, adb_key: AdbKey) -> None:
    """OPEN in the clear after STLS is not served (the device only speaks TLS now)."""
    device = wireless(sim_device_factory, adb_key)
    with socket.create_connection(("127.0.0.1", device.port), timeout=10) as sock:
        cnxn = P.Packet(P.A_CNXN, P.VERSION_SKIP_CHECKSUM, P.MAX_PAYLOAD, host_banner().encode())
        sock.sendall(cnxn.encode(with_checksum=False))
        assert read_packet(sock).command == P.A_STLS
        sock.sendall(P.Packet(P.A_OPEN, 1, 0, b"shell:echo leak\0").encode(with_checksum=False))
        sock.settimeout(0.5)
        with pytest.raises(TimeoutError):
            sock.recv(1)  # no OKAY, no output: ignored as before the handshake
