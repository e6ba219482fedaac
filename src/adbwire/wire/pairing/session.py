"""One pairing exchange over an open channel, the same steps for both sides.

As AOSP's PairingConnectionCtx (pairing_connection.cpp), each side in turn:

1. sends its SPAKE2 message (SPAKE2_MSG packet), reads the peer's, derives the key
   (the password is the pairing code followed by the TLS exporter's 64 bytes);
2. sends its PeerInfo sealed with AES-128-GCM (PEER_INFO packet), reads the peer's and opens it.

Both sides write before they read, so neither waits on the other. With different codes the
two keys differ and opening the peer's PeerInfo fails: `PairingCodeError`. Everything the
peer sends is bounded (the header's size limit) and read within the deadline.
"""

from __future__ import annotations

import logging
from typing import Final

from adbwire.errors import PairingCodeError, PairingError
from adbwire.wire.pairing.channel import PairingChannel
from adbwire.wire.pairing.cipher import DecryptionFailed, PairingCipher
from adbwire.wire.pairing.messages import (
    HEADER_SIZE,
    PEER_INFO_SIZE,
    PacketType,
    PeerInfo,
    decode_header,
    encode_header,
)
from adbwire.wire.pairing.spake2 import MESSAGE_SIZE, Spake2, Spake2Role
from adbwire.wire.timeouts import Deadline

__all__ = ["CLIENT_NAME", "SERVER_NAME", "exchange"]

log = logging.getLogger(__name__)

CLIENT_NAME: Final = b"adb pair client\0"
SERVER_NAME: Final = b"adb pair server\0"


def _send_packet(
    channel: PairingChannel, packet_type: PacketType, payload: bytes, deadline: Deadline
) -> None:
    channel.send(encode_header(packet_type, len(payload)) + payload, deadline, packet_type.name)


def _receive_packet(
    channel: PairingChannel, expected: PacketType, deadline: Deadline, what: str
) -> bytes:
    header = channel.receive_exact(HEADER_SIZE, deadline, what)
    size = decode_header(header, expected)
    return channel.receive_exact(size, deadline, what)


def exchange(
    channel: PairingChannel,
    role: Spake2Role,
    code: bytes,
    ours: PeerInfo,
    deadline: Deadline,
) -> PeerInfo:
    """Authenticate with `code` and swap PeerInfos; the peer's PeerInfo on success."""
    peer = "the device" if role is Spake2Role.ALICE else "the host"
    names = (CLIENT_NAME, SERVER_NAME) if role is Spake2Role.ALICE else (SERVER_NAME, CLIENT_NAME)
    spake2 = Spake2(role, *names)
    message = spake2.generate_message(code + channel.exported_key())
    _send_packet(channel, PacketType.SPAKE2_MSG, message, deadline)
    their_message = _receive_packet(
        channel, PacketType.SPAKE2_MSG, deadline, f"{peer}'s SPAKE2 message"
    )
    if len(their_message) != MESSAGE_SIZE:
        raise PairingError(
            f"{peer} sent a {len(their_message)}-byte SPAKE2 message; it must be {MESSAGE_SIZE}"
        )
    cipher = PairingCipher(spake2.process_message(their_message))
    log.debug("%s: SPAKE2 messages exchanged, key derived", channel.peer)

    _send_packet(channel, PacketType.PEER_INFO, cipher.encrypt(ours.encode()), deadline)
    sealed = _receive_packet(channel, PacketType.PEER_INFO, deadline, f"{peer}'s PeerInfo")
    try:
        record = cipher.decrypt(sealed)
    except DecryptionFailed:
        raise PairingCodeError(
            "wrong pairing code: "
            + (
                "the device's reply cannot be opened with this code. Check the 6 digits "
                "under 'Pair device with pairing code' (a new code is shown each time)"
                if role is Spake2Role.ALICE
                else "the host used another code"
            )
        ) from None
    log.debug("%s: PeerInfo opened (%d bytes)", channel.peer, len(record))
    if len(record) != PEER_INFO_SIZE:
        raise PairingError(
            f"{peer} sent a {len(record)}-byte PeerInfo; it must be {PEER_INFO_SIZE} bytes"
        )
    return PeerInfo.decode(record)
