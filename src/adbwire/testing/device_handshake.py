"""The device side of a connection's handshake: CNXN, STLS (wireless debugging's TLS) and
AUTH, as adbd answers them (adb.cpp handle_packet, adb_auth). `DeviceConnection` (connection.py)
mixes it in and routes the stream packets that follow once the connection is online.

CNXN settles the terms (protocol version, max payload, delayed_ack, the host's features);
then the device asks for TLS, an AUTH signature, or goes online at once, as its options
say. A key the device does not know waits for the user (`on_key_authorized`), or is allowed
after `accept_delay` when the options accept new keys.
"""

from __future__ import annotations

import contextlib
import enum
import logging
import os
import socket
import threading
from typing import TYPE_CHECKING, Final

from adbwire.errors import RemoteProtocolError
from adbwire.testing.device_state import DeviceState
from adbwire.testing.link_rate import LinkPacer, paced_reader
from adbwire.testing.packet_reader import PacketReader, Payload
from adbwire.testing.packet_socket import PacketSocket
from adbwire.testing.reverse_listeners import HostLink
from adbwire.testing.services.base import ServiceContext
from adbwire.testing.stream import ConnectionGone, StreamClosed
from adbwire.testing.tls import STLS_VERSION, accept_tls
from adbwire.testing.workers import TaskGroup
from adbwire.wire import packets as P
from adbwire.wire.banner import parse_banner

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["DeviceHandshake", "Phase"]

log = logging.getLogger("adbwire.testing")

TOKEN_SIZE: Final = 20


class Phase(enum.Enum):
    WAIT_CNXN = "waiting for CNXN"
    TLS_REQUESTED = "STLS sent"
    AUTHORIZING = "AUTH token sent"
    AWAITING_USER = "waiting for the user to allow the key"
    ONLINE = "online"


class DeviceHandshake:
    """Mixed into `DeviceConnection`, which sets these up and provides the methods below."""

    phase: Phase
    version: int
    negotiated: bool
    max_payload: int
    delayed_ack: bool
    host_features: frozenset[str]
    reader_done: threading.Event
    _state: DeviceState
    _sock: socket.socket
    _io: PacketSocket
    _packets: PacketReader
    _inbound: LinkPacer | None
    _link: HostLink
    _tasks: TaskGroup
    _context: ServiceContext
    _token: bytes
    _offered_key: str | None

    def kick(self) -> None:
        raise NotImplementedError  # DeviceConnection's

    def send_packet(
        self, command: int, arg0: int, arg1: int, payload: ReadableBuffer = b""
    ) -> None:
        raise NotImplementedError  # DeviceConnection's

    def _drop_streams(self) -> None:
        raise NotImplementedError  # DeviceConnection's

    def _on_cnxn(self, version: int, max_payload: int, payload: Payload) -> None:
        if self.phase is Phase.ONLINE:
            self._drop_streams()
        if max_payload == 0:
            raise RemoteProtocolError("CNXN with a maximum payload of 0")
        banner = parse_banner(payload)
        options = self._state.options
        self.version = min(version, options.protocol_version)
        self._io.with_checksum = self.version < P.VERSION_SKIP_CHECKSUM
        self.max_payload = min(max_payload, options.max_payload)
        self.negotiated = True
        self.host_features = banner.features
        self._context = ServiceContext(self._state, self.kick, self.host_features, self._link)
        self.delayed_ack = options.delayed_ack and banner.has("delayed_ack")
        if options.tls:
            self.phase = Phase.TLS_REQUESTED
            self.send_packet(P.A_STLS, STLS_VERSION, 0)
        elif options.auth_required:
            self._send_token()
        else:
            self._go_online()

    def _on_stls(self) -> None:
        """The host answered our STLS: the TLS handshake follows at once (adb.cpp A_STLS)."""
        if self.phase is not Phase.TLS_REQUESTED:
            return
        options = self._state.options
        # Bytes received past the host's STLS are its ClientHello; no plain read follows.
        early = self._packets.switch_source(_ended)
        link = accept_tls(
            self._sock,
            self._state.keys.authorized,
            auth_required=options.auth_required and not options.accept_any_key,
            initial=early,
        )
        if link is None:  # one attempt only: adbd kicks the transport
            raise ConnectionGone("TLS handshake failed")
        self._packets.switch_source(paced_reader(link.recv_into, self._inbound))
        self._io.use_tls(link)
        self._go_online()

    def _send_token(self) -> None:
        self.phase = Phase.AUTHORIZING
        self._token = os.urandom(TOKEN_SIZE)
        self.send_packet(P.A_AUTH, P.AUTH_TOKEN, 0, self._token)

    def _on_auth(self, kind: int, payload: Payload) -> None:
        if self.phase not in (Phase.AUTHORIZING, Phase.AWAITING_USER):
            return
        keys = self._state.keys
        if kind == P.AUTH_SIGNATURE:
            if self._state.options.accept_any_key or keys.find_signer(self._token, bytes(payload)):
                self._go_online()
            else:
                self._send_token()
        elif kind == P.AUTH_RSAPUBLICKEY:
            key_text = bytes(payload).split(b"\0", 1)[0].decode("ascii", errors="replace")
            self._offer_key(key_text)

    def _offer_key(self, key_text: str) -> None:
        options = self._state.options
        keys = self._state.keys
        if options.accept_any_key:
            self._go_online()
            return
        try:
            if keys.is_authorized(key_text):
                self._go_online()
                return
        except ValueError:
            return
        self.phase = Phase.AWAITING_USER
        self._offered_key = key_text
        if options.accept_new_keys:
            self._tasks.submit(f"allow {key_text[:12]}", self._allow_later, key_text)
        else:
            keys.add_pending(key_text)

    def _allow_later(self, key_text: str) -> None:
        if self.reader_done.wait(self._state.options.accept_delay):
            return
        try:
            self._state.keys.authorize(key_text)
        except ValueError:
            log.warning("the offered public key is malformed; not allowing it")
            return
        self.on_key_authorized(key_text)

    def on_key_authorized(self, key_text: str) -> None:
        """The user allowed a key: a connection that offered it comes online."""
        if self.phase is Phase.AWAITING_USER and self._offered_key == key_text:
            with contextlib.suppress(StreamClosed):
                self._go_online()

    def _go_online(self) -> None:
        self.phase = Phase.ONLINE
        self.send_packet(
            P.A_CNXN, self._state.options.protocol_version, self.max_payload, self._state.banner()
        )


def _ended(_view: memoryview) -> int:
    return 0
