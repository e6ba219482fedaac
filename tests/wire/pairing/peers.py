"""Scripted pairing peers on loopback: a device (or host) that misbehaves on purpose."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator

from OpenSSL import SSL

from adbwire.wire.keys import AdbKey
from adbwire.wire.pairing.channel import PairingChannel, pairing_context
from adbwire.wire.pairing.cipher import PairingCipher
from adbwire.wire.pairing.messages import HEADER_SIZE, PacketType, decode_header, encode_header
from adbwire.wire.pairing.session import CLIENT_NAME, SERVER_NAME
from adbwire.wire.pairing.spake2 import Spake2, Spake2Role
from adbwire.wire.timeouts import Deadline

PEER_TIMEOUT = 10.0
"""Bounds every scripted peer, so no test thread outlives its test for long."""


class Peer:
    """What a script gets: the raw socket, a way to start TLS, and a release event."""

    def __init__(self, sock: socket.socket, context: SSL.Context, release: threading.Event):
        self.sock = sock
        self.release = release
        self._context = context
        self.deadline = Deadline(PEER_TIMEOUT, "scripted peer")

    def hold(self) -> None:
        """Keep the connection open, doing nothing, until the test ends (or PEER_TIMEOUT)."""
        self.release.wait(PEER_TIMEOUT)

    def tls(self, *, server: bool = True) -> PairingChannel:
        return PairingChannel.open(
            self.sock, self._context, server=server, peer="host", deadline=self.deadline
        )

    def read_packet(self, channel: PairingChannel, expected: PacketType) -> bytes:
        header = channel.receive_exact(HEADER_SIZE, self.deadline, "header")
        return channel.receive_exact(decode_header(header, expected), self.deadline, "payload")

    def send_raw(self, channel: PairingChannel, data: bytes) -> None:
        channel.send(data, self.deadline, "scripted bytes")

    def send_packet(self, channel: PairingChannel, kind: PacketType, payload: bytes) -> None:
        self.send_raw(channel, encode_header(kind, len(payload)) + payload)

    def spake2(self, channel: PairingChannel, code: bytes, *, server: bool = True) -> PairingCipher:
        """The honest SPAKE2 step: read the peer's message, send ours, return the cipher."""
        role, names = (
            (Spake2Role.BOB, (SERVER_NAME, CLIENT_NAME))
            if server
            else (Spake2Role.ALICE, (CLIENT_NAME, SERVER_NAME))
        )
        ours = Spake2(role, *names)
        message = ours.generate_message(code + channel.exported_key())
        self.send_packet(channel, PacketType.SPAKE2_MSG, message)
        theirs = self.read_packet(channel, PacketType.SPAKE2_MSG)
        return PairingCipher(ours.process_message(theirs))


Script = Callable[[Peer], None]


@contextlib.contextmanager
def scripted_device(key: AdbKey, script: Script) -> Iterator[tuple[str, list[BaseException]]]:
    """A pairing port on loopback whose one connection runs `script`; yields its address and
    the errors the script raised. On exit the script is released and joined."""
    listener = socket.create_server(("127.0.0.1", 0))
    context = pairing_context(key)
    release = threading.Event()
    errors: list[BaseException] = []

    def serve() -> None:
        try:
            sock, _ = listener.accept()
        except OSError:
            return
        with sock:
            try:
                script(Peer(sock, context, release))
            except Exception as error:  # reported to the test
                errors.append(error)

    thread = threading.Thread(target=serve, name="scripted pairing peer", daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{listener.getsockname()[1]}", errors
    finally:
        release.set()
        listener.close()
        thread.join(PEER_TIMEOUT)


@contextlib.contextmanager
def connected_host(
    key: AdbKey, address: tuple[str, int], script: Script
) -> Iterator[list[BaseException]]:
    """A host connecting to `address` and running `script` (as the TLS client)."""
    context = pairing_context(key)
    release = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with socket.create_connection(address, timeout=PEER_TIMEOUT) as sock:
                script(Peer(sock, context, release))
        except Exception as error:  # reported to the test
            errors.append(error)

    thread = threading.Thread(target=run, name="scripted pairing host", daemon=True)
    thread.start()
    try:
        yield errors
    finally:
        release.set()
        thread.join(PEER_TIMEOUT)
