"""A device that asks for TLS and then misbehaves: each gives a clear error within the
connect timeout, never a hang."""

from __future__ import annotations

import socket
import struct
import time

import pytest

from adbwire.errors import (
    AdbTimeoutError,
    DisconnectedError,
    RemoteProtocolError,
    TlsRejectedError,
    UsageError,
)
from adbwire.testing import tls as device_tls
from adbwire.wire import packets as P
from adbwire.wire.client import AdbClient
from adbwire.wire.connection import Connection
from adbwire.wire.keys import AdbKey
from adbwire.wire.recording import ReplayKey
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.transport import TcpTransport
from tests.wire.fake_peer import PeerSocket, fake_device
from tests.wire.recording.helpers import SpyTransport

FAST = Timeouts(connect=1.5, auth=1.0, operation=2.0)
STLS = P.Packet(P.A_STLS, 0x01000000, 0, b"")


def ask_for_tls(peer: PeerSocket) -> None:
    """CNXN answered with STLS, and the host's STLS read, as a wireless adbd does."""
    hello = peer.recv_packet()
    assert hello.command == P.A_CNXN
    peer.send(STLS)
    answer = peer.recv_packet()
    assert (answer.command, answer.arg0, answer.arg1, answer.payload) == (
        P.A_STLS,
        0x01000000,
        0,
        b"",
    )


def drain_until_closed(peer: PeerSocket) -> None:
    peer.sock.settimeout(10)
    while peer.sock.recv(65536):
        pass


def test_a_device_that_stalls_in_the_handshake_times_out(adb_key: AdbKey) -> None:
    def script(peer: PeerSocket) -> None:
        ask_for_tls(peer)
        drain_until_closed(peer)  # takes the ClientHello, never answers

    with fake_device(script) as (address, _):
        started = time.monotonic()
        with pytest.raises(AdbTimeoutError, match="TLS handshake"):
            AdbClient.connect_tcp(address, [adb_key], timeouts=FAST)
        assert time.monotonic() - started < FAST.connect + 3.0


def test_garbage_instead_of_tls_is_a_protocol_error(adb_key: AdbKey) -> None:
    def script(peer: PeerSocket) -> None:
        ask_for_tls(peer)
        peer.send_raw(b"HTTP/1.1 400 Bad Request\r\n\r\n" * 8)
        drain_until_closed(peer)

    with fake_device(script) as (address, _):
        started = time.monotonic()
        with pytest.raises(RemoteProtocolError, match="TLS handshake failed"):
            AdbClient.connect_tcp(address, [adb_key], timeouts=FAST)
        assert time.monotonic() - started < FAST.connect


def test_plain_adb_instead_of_tls_is_a_protocol_error(adb_key: AdbKey) -> None:
    def script(peer: PeerSocket) -> None:
        ask_for_tls(peer)
        peer.send(P.Packet(P.A_CNXN, 0x01000001, 4096, b"device::"))
        drain_until_closed(peer)

    with fake_device(script) as (address, _), pytest.raises(RemoteProtocolError, match="TLS"):
        AdbClient.connect_tcp(address, [adb_key], timeouts=FAST)


def test_a_device_that_hangs_up_in_the_handshake(adb_key: AdbKey) -> None:
    def script(peer: PeerSocket) -> None:
        ask_for_tls(peer)
        peer.sock.recv(10)
        peer.sock.shutdown(socket.SHUT_RDWR)

    with (
        fake_device(script) as (address, _),
        pytest.raises(DisconnectedError, match="during the TLS handshake"),
    ):
        AdbClient.connect_tcp(address, [adb_key], timeouts=FAST)


def test_tls_needs_an_adb_key_file(adb_key: AdbKey) -> None:
    def script(peer: PeerSocket) -> None:
        hello = peer.recv_packet()
        assert hello.command == P.A_CNXN
        peer.send(STLS)
        drain_until_closed(peer)

    with (
        fake_device(script) as (address, _),
        pytest.raises(UsageError, match="requires TLS"),
    ):
        AdbClient.connect_tcp(address, [ReplayKey()], timeouts=FAST)


def test_a_link_that_cannot_carry_tls_says_so(adb_key: AdbKey) -> None:
    def script(peer: PeerSocket) -> None:
        hello = peer.recv_packet()
        assert hello.command == P.A_CNXN
        peer.send(STLS)
        drain_until_closed(peer)

    with fake_device(script) as (address, _):
        host, port = address.split(":")
        spy = SpyTransport(TcpTransport(host, int(port), io_timeout=5))  # no start_tls
        with pytest.raises(RemoteProtocolError, match="does not carry"):
            Connection.open(spy, [adb_key], timeouts=FAST)


def test_a_device_silent_after_the_handshake_times_out(adb_key: AdbKey) -> None:
    """TLS completes, then no CNXN comes: the connect timeout still bounds it."""

    def script(peer: PeerSocket) -> None:
        ask_for_tls(peer)
        server = device_tls.accept_tls(peer.sock, [], auth_required=False, initial=b"")
        assert server is not None
        drain_until_closed(peer)

    with fake_device(script) as (address, _):
        started = time.monotonic()
        with pytest.raises(AdbTimeoutError, match="connecting"):
            AdbClient.connect_tcp(address, [adb_key], timeouts=FAST)
        assert time.monotonic() - started < FAST.connect + 3.0


def test_a_device_that_hangs_up_after_the_handshake_means_pair_first(adb_key: AdbKey) -> None:
    """TLS 1.3 ends the client's handshake before the device has judged its certificate, so a
    device that refuses the key may just close the link (its alert lost to a reset): before
    the device's CNXN that still means the key is unknown."""

    def script(peer: PeerSocket) -> None:
        ask_for_tls(peer)
        server = device_tls.accept_tls(peer.sock, [], auth_required=False, initial=b"")
        assert server is not None
        peer.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        peer.sock.close()  # a reset, no alert and no CNXN

    with (
        fake_device(script) as (address, _),
        pytest.raises(TlsRejectedError, match="adbwire pair") as caught,
    ):
        AdbClient.connect_tcp(address, [adb_key], timeouts=FAST)
    assert "right after the TLS handshake" in str(caught.value)
