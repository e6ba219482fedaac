"""The device side of pairing (what Android's pairing server does), for the simulated device.

One accepted connection: TLS 1.3 as the server, SPAKE2 as Bob with the code shown to the
user, then the host's PeerInfo (its public key) in exchange for ours (the device GUID).
The caller decides what a success means (the simulator trusts the key) and how many
attempts it allows (Android: up to 10 at once, 20 failures in all).
"""

from __future__ import annotations

import socket

from OpenSSL import SSL

from adbwire.errors import PairingError
from adbwire.wire.pairing.channel import PairingChannel
from adbwire.wire.pairing.messages import PeerInfo, PeerInfoType
from adbwire.wire.pairing.session import exchange
from adbwire.wire.pairing.spake2 import Spake2Role
from adbwire.wire.timeouts import Deadline

__all__ = ["serve_pairing"]


def serve_pairing(
    sock: socket.socket,
    context: SSL.Context,
    password: bytes,
    guid: str,
    *,
    peer: str,
    deadline: Deadline,
) -> str:
    """Pair with the host on the accepted `sock` (closed on return); the host's public key.

    `context` comes from `pairing_context` with the device's certificate. Raises
    PairingCodeError when the host used another code, PairingError or AdbTimeoutError when
    it broke the protocol or stalled.
    """
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    with PairingChannel.open(sock, context, server=True, peer=peer, deadline=deadline) as channel:
        theirs = exchange(
            channel,
            Spake2Role.BOB,
            password,
            PeerInfo(PeerInfoType.ADB_DEVICE_GUID, guid.encode()),
            deadline,
        )
    if theirs.type != PeerInfoType.ADB_RSA_PUB_KEY or not theirs.value:
        raise PairingError(
            f"{peer} sent a PeerInfo of type {theirs.type} where its public key was due"
        )
    return theirs.text
