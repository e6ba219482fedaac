"""Reading frames from pcap and pcapng files (what tcpdump, tshark and Wireshark write).

Only the standard library: the formats are small. pcap: microsecond and nanosecond
variants, either byte order. pcapng: several sections and interfaces, enhanced, simple and
obsolete packet blocks, each interface's timestamp resolution; other blocks are skipped.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from adbwire.errors import UsageError

PCAP_MAGICS: Final = {
    b"\xd4\xc3\xb2\xa1": ("<", 1e-6),
    b"\xa1\xb2\xc3\xd4": (">", 1e-6),
    b"\x4d\x3c\xb2\xa1": ("<", 1e-9),
    b"\xa1\xb2\x3c\x4d": (">", 1e-9),
}
PCAPNG_SECTION: Final = b"\x0a\x0d\x0d\x0a"
PCAPNG_BYTE_ORDER: Final = 0x1A2B3C4D
_IDB, _OPB, _SPB, _EPB = 1, 2, 3, 6
_TSRESOL_OPTION = 9


@dataclass(frozen=True)
class Frame:
    index: int
    """Position in the file (1-based, as Wireshark numbers frames)."""
    time: float
    """Seconds since the Unix epoch (0.0 when the block has no timestamp)."""
    link_type: int
    data: bytes


def read_frames(path: Path) -> Iterator[Frame]:
    """Every frame of a pcap or pcapng file, in file order."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read the capture {path}: {exc.strerror}") from exc
    if raw[:4] in PCAP_MAGICS:
        yield from _pcap_frames(path, raw)
    elif raw[:4] == PCAPNG_SECTION:
        yield from _pcapng_frames(path, raw)
    else:
        raise UsageError(f"{path}: not a pcap or pcapng file (it starts with {raw[:4]!r})")


def _pcap_frames(path: Path, raw: bytes) -> Iterator[Frame]:
    order, unit = PCAP_MAGICS[raw[:4]]
    if len(raw) < 24:
        raise UsageError(f"{path}: the pcap header is cut off")
    link_type = struct.unpack_from(order + "I", raw, 20)[0] & 0xFFFF
    record = struct.Struct(order + "IIII")
    offset, index = 24, 0
    while offset < len(raw):
        if offset + record.size > len(raw):
            raise UsageError(f"{path}: the last frame's header is cut off (byte {offset})")
        seconds, fraction, captured, _original = record.unpack_from(raw, offset)
        offset += record.size
        if offset + captured > len(raw):
            raise UsageError(f"{path}: frame {index + 1} is cut off (the file is truncated)")
        index += 1
        yield Frame(index, seconds + fraction * unit, link_type, raw[offset : offset + captured])
        offset += captured


@dataclass
class _Interface:
    link_type: int
    resolution: float = 1e-6


def _tsresol(order: str, options: bytes) -> float:
    offset = 0
    while offset + 4 <= len(options):
        code, length = struct.unpack_from(order + "HH", options, offset)
        offset += 4
        if code == 0:
            break
        if code == _TSRESOL_OPTION and length >= 1:
            value = options[offset]
            return 2.0 ** -(value & 0x7F) if value & 0x80 else 10.0**-value
        offset += (length + 3) & ~3
    return 1e-6


def _pcapng_frames(path: Path, raw: bytes) -> Iterator[Frame]:
    order = "<"
    interfaces: list[_Interface] = []
    offset, index = 0, 0
    while offset < len(raw):
        if offset + 12 > len(raw):
            raise UsageError(f"{path}: the block at byte {offset} is cut off")
        if raw[offset : offset + 4] == PCAPNG_SECTION:
            magic = raw[offset + 8 : offset + 12]
            order = "<" if struct.unpack("<I", magic)[0] == PCAPNG_BYTE_ORDER else ">"
            if struct.unpack(order + "I", magic)[0] != PCAPNG_BYTE_ORDER:
                raise UsageError(f"{path}: bad pcapng byte-order magic at byte {offset}")
            interfaces = []
        block_type, length = struct.unpack_from(order + "II", raw, offset)
        if length < 12 or length % 4 or offset + length > len(raw):
            raise UsageError(
                f"{path}: the block at byte {offset} has a bad length {length} "
                "(the file is truncated or corrupted)"
            )
        body = raw[offset + 8 : offset + length - 4]
        offset += length
        if block_type == _IDB:
            link_type = struct.unpack_from(order + "H", body, 0)[0]
            interfaces.append(_Interface(link_type, _tsresol(order, body[8:])))
            continue
        frame = _packet_block(path, order, block_type, body, interfaces)
        if frame is not None:
            index += 1
            interface, ticks, data = frame
            yield Frame(index, ticks * interface.resolution, interface.link_type, data)


def _packet_block(
    path: Path, order: str, block_type: int, body: bytes, interfaces: list[_Interface]
) -> tuple[_Interface, int, bytes] | None:
    if block_type == _EPB:
        iface, high, low, captured, _original = struct.unpack_from(order + "IIIII", body, 0)
        start = 20
    elif block_type == _OPB:
        iface, _drops, high, low, captured, _original = struct.unpack_from(
            order + "HHIIII", body, 0
        )
        start = 20
    elif block_type == _SPB:
        original = struct.unpack_from(order + "I", body, 0)[0]
        iface, high, low, start = 0, 0, 0, 4
        captured = min(original, len(body) - 4)
    else:
        return None
    if iface >= len(interfaces):
        raise UsageError(f"{path}: a packet names interface {iface}, which is not described")
    return interfaces[iface], (high << 32) | low, body[start : start + captured]
