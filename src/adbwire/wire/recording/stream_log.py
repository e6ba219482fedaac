"""StreamLog: packets of both directions in, fixture events out (sans-IO).

It follows the connection the way the host protocol does, but only to learn what each
stream carried: the service, the bytes each side wrote (coalesced while one side keeps
writing), and how the stream ended. AUTH payloads (tokens, signatures, the host's public
key) are dropped; only the fact and the outcome of authentication are kept.
"""

from __future__ import annotations

import functools
import importlib.metadata
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Final, Protocol

from adbwire.wire import packets as P
from adbwire.wire.banner import parse_banner
from adbwire.wire.recording.events import (
    AuthOutcome,
    AuthSummary,
    Call,
    Close,
    Data,
    End,
    Event,
    FixtureHeader,
    Open,
    Refused,
    Side,
)

EVENT_DATA_LIMIT: Final = 1024 * 1024
"""Coalesced bytes are written out at this size, so a long transfer is not held in memory."""
SHORTEST_REDACTED_SERIAL: Final = 4
MAX_ANOMALIES: Final = 100
"""Import notes kept per session; more are counted in one last note."""


class LogSink(Protocol):
    def write_header(self, header: FixtureHeader) -> None: ...

    def write_event(self, event: Event) -> None: ...


@functools.cache
def adbwire_version() -> str:
    try:
        return importlib.metadata.version("adbwire")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class _Stream:
    number: int
    service: str
    opened: bool = False
    side: Side | None = None
    pending: bytearray = field(default_factory=bytearray)


_KNOWN_COMMANDS: Final = frozenset(
    {P.A_SYNC, P.A_CNXN, P.A_AUTH, P.A_OPEN, P.A_OKAY, P.A_CLSE, P.A_WRTE, P.A_STLS}
)


def service_of(payload: bytes | bytearray | memoryview) -> str:
    """The service an OPEN names: its payload without the one terminating NUL (`abb:` and
    `abb_exec:` services separate their arguments with NULs, which belong to the name)."""
    raw = bytes(payload)
    return raw.removesuffix(b"\0").decode("utf-8", errors="replace")


class StreamLog:
    """Turns one connection's packets into fixture events written to `sink`."""

    def __init__(
        self,
        sink: LogSink,
        *,
        origin: str,
        note: str = "",
        transport: str = "tcp",
        redact_serial: bool | str = False,
        transport_serial: str | None = None,
        recorded_at: str | None = None,
    ) -> None:
        self._sink = sink
        self._origin = origin
        self._note = note
        self._transport = transport
        self._redact = redact_serial
        self._transport_serial = transport_serial
        self._recorded_at = recorded_at
        self._serials: list[bytes] = []
        self._host_version: int | None = None
        self._host_max_payload: int | None = None
        self._host_features: tuple[str, ...] = ()
        self._tokens = 0
        self._signatures = 0
        self._public_key_offered = False
        self._header_written = False
        self._early_calls: list[Call] = []
        self._streams: dict[int, _Stream] = {}
        self._next_number = 1
        self.ended = False
        self.anomalies: list[str] = []
        """What the packets did that a well-behaved session does not (an import notes them)."""
        self._anomaly_count = 0
        self._packets = 0
        self._closed_ids: set[int] = set()
        """Host local ids of closed streams: bytes racing a close are normal, not noted."""

    def _record_anomaly(self, anomaly: str) -> None:
        """Keep the first MAX_ANOMALIES notes; past them only count (a capture of junk must
        not make a header line of millions of notes)."""
        self._anomaly_count += 1
        if self._anomaly_count <= MAX_ANOMALIES:
            self.anomalies.append(anomaly)
        elif self._anomaly_count == MAX_ANOMALIES + 1:
            self.anomalies.append(f"more than {MAX_ANOMALIES} anomalies: the rest are not noted")

    # ----------------------------------------------------------- packets in

    def _seen(self, side: str, packet: P.Packet) -> None:
        self._packets += 1
        if packet.command not in _KNOWN_COMMANDS:
            self._record_anomaly(
                f"packet {self._packets} from the {side} has the unknown command "
                f"{packet.command:#010x}; left out"
            )

    def host_packet(self, packet: P.Packet) -> None:
        if self.ended:
            return
        self._seen("host", packet)
        command = packet.command
        if command == P.A_CNXN:
            self._host_version, self._host_max_payload = packet.arg0, packet.arg1
            self._host_features = tuple(sorted(parse_banner(packet.payload).features))
        elif command == P.A_AUTH:
            if packet.arg0 == P.AUTH_SIGNATURE:
                self._signatures += 1
            elif packet.arg0 == P.AUTH_RSAPUBLICKEY:
                self._public_key_offered = True
        elif command == P.A_OPEN:
            stream = _Stream(self._next_number, service_of(packet.payload))
            self._next_number += 1
            self._streams[packet.arg0] = stream
            self._closed_ids.discard(packet.arg0)
            self._emit(Open(stream.number, stream.service))
        elif command == P.A_WRTE:
            live = self._streams.get(packet.arg0)
            if live is not None and live.opened and packet.payload:
                self._append(live, "host", packet.payload)
            elif packet.payload:
                self._stray("host", packet, packet.arg0)
        elif command == P.A_CLSE:
            live = self._streams.pop(packet.arg0, None)
            self._closed_ids.add(packet.arg0)
            if live is not None:
                self._flush(live)
                self._emit(Close(live.number, "host"))

    def device_packet(self, packet: P.Packet) -> None:
        if self.ended:
            return
        self._seen("device", packet)
        command = packet.command
        if command == P.A_CNXN:
            if not self._header_written:
                self._write_header(packet)
            else:
                self._record_anomaly(
                    f"packet {self._packets}: the device sent CNXN again; the header keeps "
                    "the first one's banner"
                )
        elif command == P.A_AUTH:
            if packet.arg0 == P.AUTH_TOKEN:
                self._tokens += 1
        elif command == P.A_OKAY:
            live = self._streams.get(packet.arg1)
            if live is not None:
                live.opened = True
        elif command == P.A_WRTE:
            live = self._streams.get(packet.arg1)
            if live is not None and live.opened and packet.payload:
                self._append(live, "device", packet.payload)
            elif packet.payload:
                self._stray("device", packet, packet.arg1)
        elif command == P.A_CLSE:
            live = self._streams.pop(packet.arg1, None)
            self._closed_ids.add(packet.arg1)
            if live is None:
                return  # the answer to the host's own CLSE
            if live.opened:
                self._flush(live)
                self._emit(Close(live.number, "device"))
            else:
                self._emit(Refused(live.number))

    def call(self, name: str, args: dict[str, Any], result: dict[str, Any]) -> None:
        """Note what the caller did (for test drivers); kept until the header is out, and
        allowed after the end line (a failed connection is noted once it has ended)."""
        event = Call(name, args, result)
        if self._header_written:
            self._sink.write_event(event)
        else:
            self._early_calls.append(event)

    def _stray(self, side: str, packet: P.Packet, local_id: int) -> None:
        if local_id in self._closed_ids:
            return  # data racing the close (a close-stdin against an ended command)
        self._record_anomaly(
            f"packet {self._packets}: the {side} wrote {len(packet.payload)} bytes on stream id "
            f"{local_id}, which is not open (packets out of order, or after its close); left out"
        )

    def end(self, by: Side, reason: str = "") -> None:
        """The connection is over: write what is pending, then the end line (once)."""
        if self.ended:
            return
        for live in sorted(self._streams.values(), key=lambda item: item.number):
            self._record_anomaly(
                f"stream {live.number} ({live.service!r}) was still open at the end; a replay "
                "ends it after its recorded bytes"
            )
        for live in sorted(self._streams.values(), key=lambda item: item.number):
            self._flush(live)
        if not self._header_written:
            self._write_header(None)
        self._sink.write_event(End(by, reason))
        self.ended = True

    # ----------------------------------------------------------- helpers

    def _append(self, live: _Stream, side: Side, payload: bytes | bytearray | memoryview) -> None:
        if live.side != side:
            self._flush(live)
            live.side = side
        live.pending += payload
        if len(live.pending) >= EVENT_DATA_LIMIT:
            self._flush(live)
            live.side = side

    def _flush(self, live: _Stream) -> None:
        if live.pending and live.side is not None:
            data = bytes(live.pending)
            if live.side == "device":
                data = self._redacted(data)
            self._emit(Data(live.number, live.side, data))
        live.pending = bytearray()
        live.side = None

    def _emit(self, event: Event) -> None:
        if not self._header_written:
            self._write_header(None)
        self._sink.write_event(event)

    def _redacted(self, data: bytes) -> bytes:
        for serial in self._serials:
            data = data.replace(serial, b"X" * len(serial))
        return data

    def _choose_serials(self, banner_serial: str) -> None:
        if self._redact is False:
            return
        names = {self._redact} if isinstance(self._redact, str) else set()
        if self._redact is True:
            names |= {banner_serial, self._transport_serial or ""}
        self._serials = sorted(
            (name.encode() for name in names if len(name) >= SHORTEST_REDACTED_SERIAL),
            key=len,
            reverse=True,
        )

    def _write_header(self, cnxn: P.Packet | None) -> None:
        banner_text: str | None = None
        features: tuple[str, ...] = ()
        version = max_payload = device_version = device_max_payload = None
        delayed_ack = False
        if cnxn is not None:
            raw = bytes(cnxn.payload).split(b"\0", 1)[0]
            banner = parse_banner(raw)
            self._choose_serials(banner.serial)
            banner_text = self._redacted(raw).decode("utf-8", errors="replace")
            features = tuple(sorted(banner.features))
            device_version, device_max_payload = cnxn.arg0, cnxn.arg1
            version = min(cnxn.arg0, self._host_version or cnxn.arg0)
            max_payload = min(cnxn.arg1, self._host_max_payload or cnxn.arg1)
            delayed_ack = "delayed_ack" in features and "delayed_ack" in self._host_features
        outcome: AuthOutcome
        if cnxn is None:
            outcome = "incomplete"
        elif self._tokens == 0:
            outcome = "none"
        else:
            outcome = "public_key" if self._public_key_offered else "signature"
        auth = AuthSummary(outcome, self._tokens, self._signatures, self._public_key_offered)
        self._sink.write_header(
            FixtureHeader(
                origin=self._origin,
                note=self._note,
                adbwire_version=adbwire_version(),
                transport=self._transport,
                recorded_at=self._recorded_at or utc_now(),
                banner=banner_text,
                features=features,
                device_version=device_version,
                device_max_payload=device_max_payload,
                version=version,
                max_payload=max_payload,
                delayed_ack=delayed_ack,
                host_features=self._host_features,
                auth=auth,
                serial_redacted=bool(self._serials),
            )
        )
        self._header_written = True
        for call in self._early_calls:
            self._sink.write_event(call)
        self._early_calls.clear()
