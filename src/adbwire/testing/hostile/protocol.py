"""Protocol-level hostile modes: scripts for `HostileAdbd` that break the ADB framing,
the handshake, or the sync and shell v2 framing inside a stream.

Packet level: `lying_length` (a header promises more payload than follows),
`oversized_packet` (a length beyond the negotiated maximum), `bad_magic`, `repeated_cnxn`
(CNXN again once online), `auth_loop` (an AUTH TOKEN for every answer, forever).
Stream level: `answer(prefix, reply)` accepts the first OPEN of a service starting with
`prefix`, reads one request and answers `reply` bytes as they are; `MALFORMED_SYNC` and
`MALFORMED_SHELL_V2` are catalogues of broken replies for it.
"""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass
from typing import Final, Literal

from adbwire.testing.hostile.adbd import DEVICE_BANNER, V1_BANNER, DevicePeer, Script
from adbwire.wire import packets as P

__all__ = [
    "MALFORMED_SHELL_V2",
    "MALFORMED_SYNC",
    "Malformed",
    "answer",
    "auth_loop",
    "bad_magic",
    "lying_length",
    "oversized_packet",
    "repeated_cnxn",
]

Then = Literal["silence", "close", "packets"]
"""After the misbehaviour: stay silent (the connection stays open), close the connection,
or go on sending ordinary packets (which the host then reads as the promised payload)."""

_FOLLOW_UP_PACKETS: Final = 8
_CHUNK: Final = 64 * 1024
_ZEROS: Final = bytes(_CHUNK)


def _after(peer: DevicePeer, then: Then, local: int, remote: int) -> None:
    if then == "close":
        peer.sock.shutdown(socket.SHUT_WR)
    elif then == "packets":
        for index in range(_FOLLOW_UP_PACKETS):
            peer.send(P.A_WRTE, local, remote, b"more output %d\n" % index)


def lying_length(extra: int = 1000, *, then: Then = "silence") -> Script:
    """Online, the first OPEN is accepted and answered with a WRTE whose header says its
    payload is `extra` bytes longer than what follows."""

    def script(peer: DevicePeer) -> None:
        peer.handshake()
        stream = peer.accept_open()
        payload = b"output\n"
        peer.send(P.A_WRTE, stream.local, stream.remote, payload, length=len(payload) + extra)
        _after(peer, then, stream.local, stream.remote)

    return script


def oversized_packet(length: int = 16 * P.MAX_PAYLOAD, *, then: Then = "silence") -> Script:
    """The first OPEN is answered with a WRTE header claiming `length` bytes, beyond any
    negotiated maximum payload; 64 KiB of it follow."""

    def script(peer: DevicePeer) -> None:
        peer.handshake()
        stream = peer.accept_open()
        peer.send(P.A_WRTE, stream.local, stream.remote, bytes(64 * 1024), length=length)
        _after(peer, then, stream.local, stream.remote)

    return script


def bad_magic(*, then: Then = "silence") -> Script:
    """The first OPEN is answered with an OKAY whose magic is not command ^ 0xFFFFFFFF."""

    def script(peer: DevicePeer) -> None:
        peer.handshake()
        while (packet := peer.recv()).command != P.A_OPEN:
            pass
        peer.send(P.A_OKAY, 1, packet.arg0, magic=0x12345678)
        _after(peer, then, 1, packet.arg0)

    return script


def repeated_cnxn(times: int = 1) -> Script:
    """Online, the first OPEN is accepted, then the device sends CNXN `times` more times
    (as a device whose adbd restarted without closing the link would)."""

    def script(peer: DevicePeer) -> None:
        peer.handshake()
        peer.accept_open()
        for _ in range(times):
            peer.handshake_answer()

    return script


def auth_loop(*, rounds: int | None = None) -> Script:
    """Every CNXN and every AUTH from the host is answered with a fresh AUTH TOKEN; None
    rounds: forever (until the host gives up)."""

    def script(peer: DevicePeer) -> None:
        peer.read_cnxn()
        sent = 0
        while rounds is None or sent < rounds:
            peer.send(P.A_AUTH, P.AUTH_TOKEN, 0, bytes(range(sent % 200, sent % 200 + 20)))
            sent += 1
            while peer.recv().command not in (P.A_AUTH, P.A_CNXN):
                pass

    return script


def answer(
    prefix: str,
    reply: bytes,
    *,
    then: Literal["close", "silence", "flood"] = "close",
    banner: bytes = DEVICE_BANNER,
) -> Script:
    """Online, the first OPEN of a service starting with `prefix` is accepted; after the
    host's first WRTE (the request; skipped for shell and exec, which send none) the device
    sends `reply` as it is, in WRTEs of at most 64 KiB, then closes the stream
    (then="close"), stays silent, or floods: zero bytes, 64 KiB per WRTE, until the host
    closes the stream (what follows a length that promises gigabytes). `banner` says what
    the device supports (`V1_BANNER`: sync v1 replies)."""

    def script(peer: DevicePeer) -> None:
        peer.handshake(banner)
        stream = peer.accept_open(prefix)
        if stream.service.startswith("sync:"):
            peer.read(stream)
        for start in range(0, len(reply), _CHUNK):
            peer.write(stream, reply[start : start + _CHUNK])
        if then == "close":
            peer.close(stream)
        elif then == "flood":
            while not peer.stopping.is_set():
                peer.write(stream, _ZEROS)  # EOFError once the host closes the stream

    return script


@dataclass(frozen=True)
class Malformed:
    """A broken reply to one client operation ("stat", "list", "pull" or "shell"), from a
    current device or (v1) one that only speaks sync v1."""

    name: str
    operation: str
    reply: bytes
    v1: bool = False

    def script(self, *, then: Literal["close", "silence", "flood"] = "close") -> Script:
        """`answer` with this reply, on the service the operation opens."""
        prefix = "shell" if self.operation == "shell" else "sync:"
        return answer(prefix, self.reply, then=then, banner=V1_BANNER if self.v1 else DEVICE_BANNER)


def _sync(message_id: bytes, *fields: int, fmt: str = "") -> bytes:
    return message_id + struct.pack("<" + (fmt or "I" * len(fields)), *fields)


_STA2_FIELDS: Final = "IQQIIIIQqqq"
_DNT2_FIELDS: Final = "IQQIIIIQqqqI"
_REGULAR: Final = 0o100644
_U32_MAX: Final = 0xFFFFFFFF


def _sta2(errno: int = 0, mode: int = _REGULAR, size: int = 5) -> bytes:
    return _sync(b"STA2", errno, 1, 2, mode, 1, 0, 0, size, 0, 0, 0, fmt=_STA2_FIELDS)


def _dnt2(name_length: int, mode: int = _REGULAR) -> bytes:
    return _sync(b"DNT2", 0, 1, 2, mode, 1, 0, 0, 5, 0, 0, 0, name_length, fmt=_DNT2_FIELDS)


_LIST_DONE: Final = b"DONE" + bytes(72)

MALFORMED_SYNC: Final = (
    Malformed("stat: unknown id", "stat", b"JUNK" + bytes(68)),
    Malformed("stat: cut short", "stat", b"STA2" + bytes(10)),
    Malformed("stat: errno out of range", "stat", _sta2(errno=0x7FFFFFFF)),
    Malformed("stat: FAIL with a 4 GiB message", "stat", _sync(b"FAIL", _U32_MAX) + b"x" * 64),
    Malformed("stat: FAIL whose message is cut short", "stat", _sync(b"FAIL", 100) + b"short"),
    Malformed("list: unknown id", "list", b"JUNK" + bytes(72)),
    Malformed("list: a 4 GiB name", "list", _dnt2(_U32_MAX) + b"name"),
    Malformed("list: name cut short", "list", _dnt2(100) + b"name"),
    Malformed("list: no DONE", "list", _dnt2(4) + b"name"),
    Malformed("list: v1 DENT in a v2 listing", "list", _sync(b"DENT", 0, 0, 0, 4) + b"name"),
    Malformed("list: name with a slash", "list", _dnt2(9) + b"../escape" + _LIST_DONE),
    Malformed("pull: DATA over 64 KiB", "pull", _sync(b"DATA", 1 << 20) + bytes(1 << 16)),
    Malformed("pull: DATA of 4 GiB", "pull", _sync(b"DATA", _U32_MAX) + bytes(1024)),
    Malformed("pull: DATA cut short", "pull", _sync(b"DATA", 1000) + b"short"),
    Malformed("pull: unknown id", "pull", _sync(b"JUNK", 0)),
    Malformed("pull: no DONE", "pull", _sync(b"DATA", 5) + b"hello"),
    Malformed("pull: a STAT reply instead of DATA", "pull", _sta2()),
    Malformed("pull: FAIL with a 4 GiB message", "pull", _sync(b"FAIL", _U32_MAX) + b"x" * 64),
    Malformed(
        "list: DONE with garbage fields", "list", _dnt2(4) + b"name" + b"DONE" + b"\xff" * 72
    ),
    Malformed("pull: DONE with a length", "pull", _sync(b"DATA", 2) + b"hi" + _sync(b"DONE", 7)),
    Malformed("stat v1: unknown id", "stat", b"JUNK" + bytes(12), v1=True),
    Malformed("stat v1: cut short", "stat", b"STAT" + bytes(6), v1=True),
    Malformed("list v1: a 4 GiB name", "list", _sync(b"DENT", 0, 0, 0, _U32_MAX), v1=True),
    Malformed("list v1: a v2 entry", "list", _dnt2(4) + b"name", v1=True),
    Malformed("pull v1: DATA of 4 GiB", "pull", _sync(b"DATA", _U32_MAX) + bytes(64), v1=True),
)
"""Broken sync replies, each for the operation that reads it (STA2/LIS2/RCV2 from a current
device, STAT/LIST/RECV from a v1 one); the last few are odd but harmless."""


def _shell_packet(packet_id: int, data: bytes, *, length: int | None = None) -> bytes:
    return struct.pack("<BI", packet_id, len(data) if length is None else length) + data


_EXIT_0: Final = _shell_packet(3, b"\x00")

MALFORMED_SHELL_V2: Final = (
    Malformed("shell: unknown packet id", "shell", _shell_packet(9, b"abc") + _EXIT_0),
    Malformed("shell: stdout cut short", "shell", _shell_packet(1, b"short", length=1000)),
    Malformed(
        "shell: a 4 GiB stdout packet", "shell", _shell_packet(1, b"x" * 64, length=_U32_MAX)
    ),
    Malformed("shell: exit without a status", "shell", _shell_packet(3, b"")),
    Malformed("shell: exit with 4 status bytes", "shell", _shell_packet(3, b"\x01\x02\x03\x04")),
    Malformed("shell: no exit packet", "shell", _shell_packet(1, b"hello\n")),
    Malformed("shell: a header cut short", "shell", b"\x01\x05\x00"),
    Malformed("shell: stdin id from the device", "shell", _shell_packet(0, b"abc") + _EXIT_0),
)
"""Broken shell v2 replies (`shell,v2,raw:` streams)."""
