"""A captured ADB-over-TCP session (Google's adb and a device) turned into a fixture.

Both directions of the chosen connection are reassembled, cut into ADB packets, and fed to
the same `StreamLog` a recording uses, in the order the capture saw each packet complete
(a device's answer is always captured after the request that caused it).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from adbwire.errors import UsageError
from adbwire.wire import packets as P
from adbwire.wire.pcap.capture_file import Frame, read_frames
from adbwire.wire.pcap.reassembly import (
    Assembled,
    TcpConnection,
    adb_server_ports,
    connections_on_port,
)
from adbwire.wire.pcap.segments import SUPPORTED_LINK_TYPES, Segment, segment_of
from adbwire.wire.pcap.usb import USB_LINK_TYPES, adb_usb_connections
from adbwire.wire.recording.events import ORIGIN_IMPORTED, Side
from adbwire.wire.recording.fixture_file import FixtureWriter
from adbwire.wire.recording.packet_stream import PacketSplitter, PacketStreamError
from adbwire.wire.recording.stream_log import StreamLog

DEFAULT_PORT = 5555


@dataclass
class ImportReport:
    connections: list[str]
    chosen: int
    port: int
    host_packets: int = 0
    device_packets: int = 0
    streams: int = 0
    warnings: list[str] = field(default_factory=list)


def _segments(path: Path, frames: list[Frame]) -> list[Segment]:
    segments: list[Segment] = []
    link_types: set[int] = set()
    for frame in frames:
        link_types.add(frame.link_type)
        segment = segment_of(frame)
        if segment is not None:
            segments.append(segment)
    unknown = sorted(link_types - set(SUPPORTED_LINK_TYPES))
    if not segments and unknown:
        raise UsageError(
            f"{path}: link type {', '.join(map(str, unknown))} is not supported (Ethernet, "
            "Linux cooked, loopback/null, raw IP, usbmon and USBPcap are)"
        )
    return segments


def _packets(
    path: Path, assembled: Assembled, direction: str
) -> tuple[list[tuple[int, int, P.Packet]], int]:
    """(frame, position, packet) for each whole packet, and the bytes left after the last."""
    splitter = PacketSplitter(direction)
    try:
        packets = splitter.feed(assembled.data)
    except PacketStreamError as exc:
        raise UsageError(
            f"{path}: {exc}; the capture does not hold this connection from its start "
            "(start the capture before `adb connect`)"
        ) from exc
    found: list[tuple[int, int, P.Packet]] = []
    offset = latest = 0
    for position, packet in enumerate(packets):
        end = offset + P.HEADER_SIZE + len(packet.payload)
        # A packet is complete no earlier than the one before it (segments can arrive late).
        latest = max(latest, assembled.complete_at(offset, end))
        found.append((latest, position, packet))
        offset = end
    return found, splitter.pending


def _timestamp(seconds: float) -> str:
    moment = datetime.fromtimestamp(seconds, timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _choose(
    path: Path, connections: list[TcpConnection], number: int, port: int, segments: list[Segment]
) -> TcpConnection:
    with_data = [item for item in connections if item.has_data]
    if not with_data:
        elsewhere = ", ".join(str(item) for item in adb_server_ports(segments))
        hint = f"; ADB is on port {elsewhere} (or use --port auto)" if elsewhere else ""
        raise UsageError(f"{path}: no TCP connection with data on port {port}{hint}")
    if not 1 <= number <= len(with_data):
        listing = "; ".join(f"{i}: {c.describe()}" for i, c in enumerate(with_data, 1))
        raise UsageError(f"{path}: there is no connection {number}; the capture has {listing}")
    return with_data[number - 1]


def import_capture(
    capture: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    port: int | None = DEFAULT_PORT,
    connection: int = 1,
    note: str | None = None,
    redact_serial: bool | str = False,
) -> ImportReport:
    """Write the ADB session of connection `connection` (1-based) on `port` as a fixture.

    `port=None` finds the device's port: that of the first connection that opens with CNXN.
    A USB capture (usbmon, USBPcap) has no port: `connection` picks among its devices' ADB
    sessions, and the fixture says `transport: usb`.
    """
    path = Path(capture)
    frames = list(read_frames(path))
    if any(frame.link_type in USB_LINK_TYPES for frame in frames):
        return _import_usb(
            path, frames, output, connection=connection, note=note, redact_serial=redact_serial
        )
    segments = _segments(path, frames)
    if port is None:
        found = adb_server_ports(segments)
        if not found:
            raise UsageError(f"{path}: no ADB connection in the capture (none starts with CNXN)")
        port = found[0]
    connections = [item for item in connections_on_port(segments, port) if item.has_data]
    chosen = _choose(path, connections, connection, port, segments)
    report = ImportReport([item.describe() for item in connections], connection, port)
    _write_fixture(
        path,
        output,
        report,
        chosen.to_server.assemble(),
        chosen.to_client.assemble(),
        transport="tcp",
        note=note,
        redact_serial=redact_serial,
        recorded_at=_timestamp(chosen.first_time),
        end=_how_it_ended(chosen),
    )
    return report


def _import_usb(
    path: Path,
    frames: list[Frame],
    output: str | os.PathLike[str],
    *,
    connection: int,
    note: str | None,
    redact_serial: bool | str,
) -> ImportReport:
    found = adb_usb_connections(frames)
    if not found:
        raise UsageError(
            f"{path}: no ADB session on USB in the capture (no bulk OUT endpoint starts with "
            "CNXN: start the capture before adb connects to the device)"
        )
    if not 1 <= connection <= len(found):
        listing = "; ".join(f"{i}: {c.describe()}" for i, c in enumerate(found, 1))
        raise UsageError(f"{path}: there is no connection {connection}; the capture has {listing}")
    chosen = found[connection - 1]
    report = ImportReport([item.describe() for item in found], connection, 0)
    _write_fixture(
        path,
        output,
        report,
        chosen.to_device.assemble(),
        chosen.to_host.assemble(),
        transport="usb",
        note=note,
        redact_serial=redact_serial,
        recorded_at=_timestamp(chosen.first_time),
        end=("host", "the capture ends here"),
    )
    return report


def _write_fixture(
    path: Path,
    output: str | os.PathLike[str],
    report: ImportReport,
    host_stream: Assembled,
    device_stream: Assembled,
    *,
    transport: str,
    note: str | None,
    redact_serial: bool | str,
    recorded_at: str,
    end: tuple[Side, str],
) -> None:
    host, host_left = _packets(path, host_stream, "host to device")
    device, device_left = _packets(path, device_stream, "device to host")
    if not host or host[0][2].command != P.A_CNXN:
        first = host[0][2].name if host else "nothing"
        raise UsageError(
            f"{path}: the host's first packet is {first}, not CNXN: the capture starts in the "
            "middle of the ADB session (start the capture before `adb connect`)"
        )
    for name, assembled, left in (
        ("host to device", host_stream, host_left),
        ("device to host", device_stream, device_left),
    ):
        if assembled.gap is not None:
            report.warnings.append(
                f"the {name} stream misses bytes after byte {assembled.gap} (the capture "
                "dropped segments); the fixture stops there"
            )
        elif left:
            report.warnings.append(f"the {name} stream ends inside a packet ({left} bytes)")
    writer = FixtureWriter(output)
    try:
        log = StreamLog(
            writer,
            origin=ORIGIN_IMPORTED,
            note=note if note is not None else f"imported from {path.name}",
            transport=transport,
            redact_serial=redact_serial,
            recorded_at=recorded_at,
        )
        merged = sorted(
            [(frame, 0, position, packet) for frame, position, packet in host]
            + [(frame, 1, position, packet) for frame, position, packet in device],
            key=lambda item: (item[0], item[1], item[2]),
        )
        for _frame, side, _position, packet in merged:
            if side == 0:
                log.host_packet(packet)
                report.host_packets += 1
                if packet.command == P.A_OPEN:
                    report.streams += 1
            else:
                log.device_packet(packet)
                report.device_packets += 1
        log.end(*end)
    finally:
        writer.close()
    report.warnings += log.anomalies
    if report.warnings:
        _add_import_notes(Path(output), report.warnings)


def _add_import_notes(fixture: Path, notes: list[str]) -> None:
    """Put what the import noticed into the header (`import_notes`), so it travels with the
    fixture: nothing in a capture is dropped without a word."""
    staged = fixture.with_name(fixture.name + ".partial")
    with fixture.open("rb") as source, staged.open("wb") as target:
        header = json.loads(source.readline())
        header["import_notes"] = notes
        target.write(json.dumps(header, ensure_ascii=False).encode() + b"\n")
        shutil.copyfileobj(source, target)
    staged.replace(fixture)


def _how_it_ended(connection: TcpConnection) -> tuple[Side, str]:
    host_end = connection.to_server.closed_at
    device_end = connection.to_client.closed_at
    if device_end is not None and (host_end is None or device_end < host_end):
        return "device", f"the device closed the TCP connection (frame {device_end})"
    if host_end is not None:
        return "host", f"the host closed the TCP connection (frame {host_end})"
    return "host", "the capture ends here"
