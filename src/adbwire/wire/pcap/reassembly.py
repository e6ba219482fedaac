"""TCP reassembly by sequence numbers: each direction of a connection as one byte stream.

Segments may be captured out of order, retransmitted or overlapping; only sequence numbers
decide where bytes go. Without the SYN (capture started after the connection), the stream
starts at the lowest sequence number seen. A hole (segments the capture missed) ends the
stream there, and is reported.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from adbwire.wire.pcap.segments import FIN, RST, SYN, Segment

Endpoint = tuple[str, int]
_MOD = 1 << 32
_HALF = 1 << 31


def _signed(delta: int) -> int:
    return ((delta + _HALF) % _MOD) - _HALF


@dataclass
class Piece:
    start: int
    end: int
    frame: int


@dataclass
class Direction:
    """One direction of a TCP connection."""

    source: Endpoint
    destination: Endpoint
    syn_seq: int | None = None
    segments: list[Segment] = field(default_factory=list)
    closed_at: int | None = None
    """Frame of the first FIN or RST sent this way."""

    def add(self, segment: Segment) -> None:
        if segment.flags & SYN and self.syn_seq is None:
            self.syn_seq = segment.seq
        if segment.flags & (FIN | RST) and self.closed_at is None:
            self.closed_at = segment.frame
        if segment.payload:
            self.segments.append(segment)

    def assemble(self) -> Assembled:
        if not self.segments:
            return Assembled(b"", [], None)
        if self.syn_seq is not None:
            base = (self.syn_seq + 1) % _MOD
        else:
            first = self.segments[0].seq
            base = (first + min(_signed(s.seq - first) for s in self.segments)) % _MOD
        ordered = sorted(self.segments, key=lambda s: (_signed(s.seq - base), s.frame))
        data = bytearray()
        pieces: list[Piece] = []
        gap: int | None = None
        for segment in ordered:
            start = _signed(segment.seq - base)
            end = start + len(segment.payload)
            if end <= len(data):
                continue  # a retransmission of bytes we have
            if start > len(data):
                gap = len(data)
                break
            fresh = segment.payload[len(data) - start :]
            pieces.append(Piece(len(data), len(data) + len(fresh), segment.frame))
            data += fresh
        return Assembled(bytes(data), pieces, gap)


@dataclass(frozen=True)
class Assembled:
    data: bytes
    pieces: list[Piece]
    gap: int | None
    """Byte offset where segments are missing (the stream is cut there), if any."""

    def complete_at(self, start: int, end: int) -> int:
        """The frame in which the last of the bytes start..end arrived."""
        starts = [piece.start for piece in self.pieces]
        index = max(0, bisect.bisect_right(starts, start) - 1)
        latest = 0
        while index < len(self.pieces) and self.pieces[index].start < end:
            latest = max(latest, self.pieces[index].frame)
            index += 1
        return latest


@dataclass
class TcpConnection:
    client: Endpoint
    server: Endpoint
    first_frame: int
    first_time: float
    to_server: Direction
    to_client: Direction

    @property
    def has_data(self) -> bool:
        return bool(self.to_server.segments or self.to_client.segments)

    def describe(self) -> str:
        sent = sum(len(s.payload) for s in self.to_server.segments)
        received = sum(len(s.payload) for s in self.to_client.segments)
        return (
            f"{self.client[0]}:{self.client[1]} -> {self.server[0]}:{self.server[1]} "
            f"from frame {self.first_frame} ({sent} bytes sent, {received} received)"
        )


def connections_on_port(segments: list[Segment], port: int) -> list[TcpConnection]:
    """TCP connections whose server side uses `port`, in order of their first frame.

    A new SYN from the client with a new sequence number starts a new connection even on
    the same addresses and ports.
    """
    found: list[TcpConnection] = []
    current: dict[tuple[Endpoint, Endpoint], TcpConnection] = {}
    for segment in segments:
        if segment.destination[1] == port and segment.source[1] != port:
            client, server, outbound = segment.source, segment.destination, True
        elif segment.source[1] == port and segment.destination[1] != port:
            client, server, outbound = segment.destination, segment.source, False
        else:
            continue
        key = (client, server)
        connection = current.get(key)
        starts_anew = (
            outbound
            and segment.flags & SYN
            and connection is not None
            and connection.to_server.syn_seq not in (None, segment.seq)
        )
        if connection is None or starts_anew:
            connection = TcpConnection(
                client,
                server,
                segment.frame,
                segment.time,
                Direction(client, server),
                Direction(server, client),
            )
            current[key] = connection
            found.append(connection)
        (connection.to_server if outbound else connection.to_client).add(segment)
    return found


def adb_server_ports(segments: list[Segment]) -> list[int]:
    """Ports of the devices in the capture: where a connection's first bytes were a CNXN.

    In order of first appearance; the host always speaks first in ADB, so the receiver of
    the first payload of a connection is the device.
    """
    seen: set[frozenset[Endpoint]] = set()
    ports: list[int] = []
    for segment in segments:
        if not segment.payload:
            continue
        pair = frozenset((segment.source, segment.destination))
        if pair in seen:
            continue
        seen.add(pair)
        port = segment.destination[1]
        if segment.payload.startswith(b"CNXN") and port not in ports:
            ports.append(port)
    return ports
