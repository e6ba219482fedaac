"""Bad peers and bad networks: each gives a specific error within its deadline, never a hang."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from adbwire.errors import (
    AuthPendingError,
    ConnectFailedError,
    DisconnectedError,
    RemoteProtocolError,
    StreamRefusedError,
)
from adbwire.wire import packets as P
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey
from adbwire.wire.protocol import ConnectionState
from adbwire.wire.timeouts import Timeouts

from .fake_peer import DEVICE_BANNER, PeerSocket, fake_device

FAST = Timeouts(connect=2.0, auth=1.0, operation=2.0)


def connect(address: str, keys: list[AdbKey] | None = None, **kw: object) -> AdbClient:
    return AdbClient.connect_tcp(address, keys or [], timeouts=FAST, **kw)  # type: ignore[arg-type]


def test_nothing_listening_is_a_connect_failure() -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(ConnectFailedError, match=f"127.0.0.1:{port}"):
        connect(f"127.0.0.1:{port}")
    assert time.monotonic() - started < FAST.connect


def test_garbage_is_not_adb() -> None:
    def script(peer: PeerSocket) -> None:
        peer.recv_packet()
        peer.send_raw(b"HTTP/1.1 400 Bad Request\r\n\r\n")
        peer.recv_exactly(1)  # hold the socket open until the host gives up

    with fake_device(script) as (address, _), pytest.raises(RemoteProtocolError, match="magic"):
        connect(address)


def test_silence_times_out_within_the_connect_timeout() -> None:
    release = threading.Event()

    def script(peer: PeerSocket) -> None:
        peer.recv_packet()
        release.wait(10)

    started = time.monotonic()
    with fake_device(script) as (address, _), pytest.raises(TimeoutError, match="connecting"):
        try:
            connect(address)
        finally:
            release.set()
    assert time.monotonic() - started < FAST.connect + 1.5


def test_close_during_cnxn_is_a_disconnect() -> None:
    def script(peer: PeerSocket) -> None:
        peer.recv_packet()

    with fake_device(script) as (address, _), pytest.raises(DisconnectedError, match="closed"):
        connect(address)


def test_packet_longer_than_negotiated_is_refused() -> None:
    def script(peer: PeerSocket) -> None:
        peer.accept_cnxn(max_payload=4096)
        peer.recv_packet()  # OPEN
        peer.send(P.Packet(P.A_OKAY, 1, 1))
        peer.send_raw(P.Packet(P.A_WRTE, 1, 1, b"x" * 5000).encode(with_checksum=False))
        peer.recv_exactly(1)

    with fake_device(script) as (address, _), connect(address) as client:
        stream = client.open_stream("shell:")
        with pytest.raises(DisconnectedError) as caught:
            stream.read()
        assert "negotiated maximum of 4096" in str(caught.value)


def test_old_device_with_bad_checksum_is_refused() -> None:
    def script(peer: PeerSocket) -> None:
        peer.accept_cnxn(version=P.VERSION_CHECKSUMMED)
        peer.recv_packet()
        peer.send(P.Packet(P.A_OKAY, 1, 1), with_checksum=True)
        peer.send_raw(P.Packet(P.A_WRTE, 1, 1, b"abc").header(with_checksum=False) + b"abc")
        peer.recv_exactly(1)

    with fake_device(script) as (address, _), connect(address) as client:
        assert client.connection.version == P.VERSION_CHECKSUMMED
        stream = client.open_stream("shell:")
        with pytest.raises(DisconnectedError, match="checksum"):
            stream.read()


def test_refused_open_is_reported_at_once() -> None:
    def script(peer: PeerSocket) -> None:
        peer.accept_cnxn()
        opened = peer.recv_packet()
        peer.send(P.Packet(P.A_CLSE, 0, opened.arg0))
        peer.recv_exactly(1)

    patient = Timeouts(connect=2.0, auth=1.0, operation=15.0)
    with (
        fake_device(script) as (address, _),
        AdbClient.connect_tcp(address, [], timeouts=patient) as client,
    ):
        started = time.monotonic()
        with pytest.raises(StreamRefusedError, match="jdwp:1234"):
            client.open_stream("jdwp:1234")
        assert time.monotonic() - started < 5.0  # the refusal, not the 15 s operation timeout


def test_vanishing_device_fails_every_open_stream_promptly() -> None:
    both_open = threading.Event()

    def script(peer: PeerSocket) -> None:
        peer.accept_cnxn()
        for remote in (10, 11):
            opened = peer.recv_packet()
            peer.send(P.Packet(P.A_OKAY, remote, opened.arg0))
        both_open.wait(5)
        peer.sock.close()

    with fake_device(script) as (address, _), connect(address) as client:
        streams = [client.open_stream("shell:a"), client.open_stream("shell:b")]
        errors: list[BaseException] = []

        def read(stream: object) -> None:
            try:
                stream.read()  # type: ignore[attr-defined]
            except BaseException as exc:
                errors.append(exc)

        readers = [threading.Thread(target=read, args=(s,)) for s in streams]
        for reader in readers:
            reader.start()
        both_open.set()
        for reader in readers:
            reader.join(timeout=3)
        assert [type(e) for e in errors] == [DisconnectedError, DisconnectedError]
        assert client.connection.state is ConnectionState.CLOSED


def test_slow_consumer_does_not_block_another_stream() -> None:
    def script(peer: PeerSocket) -> None:
        peer.accept_cnxn()
        slow = peer.recv_packet()
        peer.send(P.Packet(P.A_OKAY, 20, slow.arg0))
        fast = peer.recv_packet()
        peer.send(P.Packet(P.A_OKAY, 21, fast.arg0))
        peer.send(P.Packet(P.A_WRTE, 20, slow.arg0, b"unread"))  # nobody reads this one
        for n in range(3):
            peer.send(P.Packet(P.A_WRTE, 21, fast.arg0, f"fast{n}".encode()))
            ack = peer.recv_packet()
            assert (ack.command, ack.arg0) == (P.A_OKAY, fast.arg0)
        peer.recv_exactly(1)

    with fake_device(script) as (address, _), connect(address) as client:
        client.open_stream("shell:slow")
        fast = client.open_stream("shell:fast")
        assert [fast.read() for _ in range(3)] == [b"fast0", b"fast1", b"fast2"]


def test_auth_signature_accepted(adb_key: AdbKey) -> None:
    states: list[ConnectionState] = []

    def script(peer: PeerSocket) -> None:
        peer.recv_packet()
        peer.send(P.Packet(P.A_AUTH, P.AUTH_TOKEN, 0, b"\x01" * 20))
        signature = peer.recv_packet()
        assert signature.arg0 == P.AUTH_SIGNATURE
        assert adb_key.sign(b"\x01" * 20) == bytes(signature.payload)
        peer.send(
            P.Packet(P.A_CNXN, P.VERSION_SKIP_CHECKSUM, P.MAX_PAYLOAD, DEVICE_BANNER.encode())
        )
        peer.recv_exactly(1)

    with (
        fake_device(script) as (address, _),
        connect(address, [adb_key], on_state=states.append) as client,
    ):
        assert client.banner.model == "Fake Phone"
    assert states[:2] == [ConnectionState.AUTHENTICATING, ConnectionState.ONLINE]


def test_unknown_key_waits_for_the_prompt_then_says_what_to_do(adb_key: AdbKey) -> None:
    states: list[ConnectionState] = []

    def script(peer: PeerSocket) -> None:
        peer.recv_packet()
        peer.send(P.Packet(P.A_AUTH, P.AUTH_TOKEN, 0, b"\x02" * 20))
        peer.recv_packet()  # signature: rejected
        peer.send(P.Packet(P.A_AUTH, P.AUTH_TOKEN, 0, b"\x03" * 20))
        offered = peer.recv_packet()
        assert offered.arg0 == P.AUTH_RSAPUBLICKEY
        assert bytes(offered.payload) == adb_key.public_key_bytes()
        peer.recv_exactly(1)  # the "user" never answers

    started = time.monotonic()
    with fake_device(script) as (address, _), pytest.raises(AuthPendingError) as caught:
        connect(address, [adb_key], on_state=states.append)
    assert "accept the 'Allow USB debugging?' prompt" in str(caught.value)
    assert ConnectionState.UNAUTHORIZED in states
    assert time.monotonic() - started < FAST.connect + FAST.auth + 1


def test_prompt_accepted_while_waiting(adb_key: AdbKey) -> None:
    def script(peer: PeerSocket) -> None:
        peer.recv_packet()
        peer.send(P.Packet(P.A_AUTH, P.AUTH_TOKEN, 0, b"\x02" * 20))
        peer.recv_packet()
        peer.send(P.Packet(P.A_AUTH, P.AUTH_TOKEN, 0, b"\x03" * 20))
        peer.recv_packet()
        peer.send(
            P.Packet(P.A_CNXN, P.VERSION_SKIP_CHECKSUM, P.MAX_PAYLOAD, DEVICE_BANNER.encode())
        )
        peer.recv_exactly(1)

    with fake_device(script) as (address, _), connect(address, [adb_key]) as client:
        assert client.connection.state is ConnectionState.ONLINE
