"""Writing small pcap/pcapng files for the capture-import tests (stdlib only).

A "conversation" is the bytes each side of a TCP connection sent, in order; it becomes
segments (optionally with the handshake, split, reordered, retransmitted), then frames of
a chosen link type, then a file.
"""

from __future__ import annotations

import ipaddress
import random
import struct
from dataclasses import dataclass
from pathlib import Path

CLIENT = ("127.0.0.1", 40001)
SERVER = ("127.0.0.1", 5555)
CLIENT6 = ("::1", 40001)
SERVER6 = ("::1", 5555)
FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10


@dataclass
class Seg:
    source: tuple[str, int]
    destination: tuple[str, int]
    seq: int
    flags: int
    payload: bytes = b""


def segments_of(
    conversation: list[tuple[bool, bytes]],
    *,
    client: tuple[str, int] = CLIENT,
    server: tuple[str, int] = SERVER,
    handshake: bool = True,
    max_segment: int = 1000,
    seed: int = 7,
    client_isn: int = 0xFFFFF000,  # wraps around 2**32 during the session
    server_isn: int = 1000,
    fin_from_server: bool = False,
) -> list[Seg]:
    """`conversation`: (sent by the client?, bytes) in the order they were sent."""
    rng = random.Random(seed)
    seq = {True: client_isn, False: server_isn}
    out: list[Seg] = []
    if handshake:
        out.append(Seg(client, server, seq[True], SYN))
        out.append(Seg(server, client, seq[False], SYN | ACK))
    seq = {True: (client_isn + 1) % 2**32, False: (server_isn + 1) % 2**32}
    for from_client, data in conversation:
        source, destination = (client, server) if from_client else (server, client)
        offset = 0
        while offset < len(data):
            size = rng.randint(1, max_segment)
            piece = data[offset : offset + size]
            out.append(Seg(source, destination, seq[from_client], PSH | ACK, piece))
            seq[from_client] = (seq[from_client] + len(piece)) % 2**32
            offset += len(piece)
    closer = (server, client) if fin_from_server else (client, server)
    out.append(Seg(*closer, seq[not fin_from_server], FIN | ACK))
    return out


def disorder(segments: list[Seg], seed: int = 3) -> list[Seg]:
    """Swap neighbours sent the same way, and retransmit some segments (some overlapping)."""
    rng = random.Random(seed)
    result = list(segments)
    for index in range(len(result) - 1):
        a, b = result[index], result[index + 1]
        if a.source == b.source and a.payload and b.payload and rng.random() < 0.3:
            result[index], result[index + 1] = b, a
    final: list[Seg] = []
    for segment in result:
        final.append(segment)
        if segment.payload and rng.random() < 0.2:
            final.append(segment)  # plain retransmission
        if len(segment.payload) > 4 and rng.random() < 0.2:
            half = len(segment.payload) // 2
            final.append(Seg(segment.source, segment.destination, segment.seq, PSH | ACK,
                             segment.payload[:half]))  # fmt: skip
    return final


def tcp_ip(segment: Seg) -> tuple[int, bytes]:
    """(IP version, IP packet) carrying the segment."""
    tcp = struct.pack(
        "!HHIIBBHHH", segment.source[1], segment.destination[1], segment.seq, 0, 5 << 4,
        segment.flags, 65535, 0, 0,
    ) + segment.payload  # fmt: skip
    source = ipaddress.ip_address(segment.source[0])
    destination = ipaddress.ip_address(segment.destination[0])
    if source.version == 4:
        header = struct.pack(
            "!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0x4000, 64, 6, 0,
            source.packed, destination.packed,
        )  # fmt: skip
        return 4, header + tcp
    header = struct.pack("!IHBB16s16s", 6 << 28, len(tcp), 6, 64, source.packed,
                         destination.packed)  # fmt: skip
    return 6, header + tcp


def frame(link_type: int, segment: Seg) -> bytes:
    version, packet = tcp_ip(segment)
    ethertype = 0x0800 if version == 4 else 0x86DD
    if link_type == 1:  # Ethernet, with padding after short packets as real NICs add
        return b"\0" * 12 + struct.pack("!H", ethertype) + packet + b"\0" * 6
    if link_type == 113:  # Linux cooked v1
        return struct.pack("!HHH8sH", 0, 772, 6, b"\0" * 8, ethertype) + packet
    if link_type == 276:  # Linux cooked v2
        return struct.pack("!HHIHBB8s", ethertype, 0, 1, 772, 0, 6, b"\0" * 8) + packet
    if link_type == 0:  # BSD null, family in the capturing host's (little-endian) order
        return struct.pack("<I", 2 if version == 4 else 30) + packet
    if link_type == 108:  # OpenBSD loop, family big-endian
        return struct.pack(">I", 2 if version == 4 else 24) + packet
    return packet  # raw IP


def write_pcap(path: Path, link_type: int, frames: list[bytes], *, nanoseconds: bool = False,
               big_endian: bool = False) -> Path:  # fmt: skip
    order = ">" if big_endian else "<"
    magic = 0xA1B23C4D if nanoseconds else 0xA1B2C3D4
    out = bytearray(struct.pack(order + "IHHiIII", magic, 2, 4, 0, 0, 262144, link_type))
    for index, data in enumerate(frames):
        seconds, fraction = 1_700_000_000 + index // 1000, (index % 1000) * 1000
        out += struct.pack(order + "IIII", seconds, fraction, len(data), len(data)) + data
    path.write_bytes(bytes(out))
    return path


def _block(block_type: int, body: bytes) -> bytes:
    body += b"\0" * (-len(body) % 4)
    length = 12 + len(body)
    return struct.pack("<II", block_type, length) + body + struct.pack("<I", length)


def write_pcapng(path: Path, link_type: int, frames: list[bytes]) -> Path:
    section = _block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    tsresol = struct.pack("<HHB3x", 9, 1, 9) + struct.pack("<HH", 0, 0)  # nanoseconds
    interface = _block(1, struct.pack("<HHI", link_type, 0, 262144) + tsresol)
    name_only = _block(1, struct.pack("<HHI", 1, 0, 262144))  # an unused second interface
    out = bytearray(section + name_only + interface)
    out += _block(5, b"ignored statistics block")
    for index, data in enumerate(frames):
        ticks = 1_700_000_000 * 10**9 + index * 1000
        body = struct.pack("<IIIII", 1, ticks >> 32, ticks & 0xFFFFFFFF, len(data), len(data))
        out += _block(6, body + data)
    path.write_bytes(bytes(out))
    return path


# ------------------------------------------------------------------ USB captures
# usbmon (Linux, link types 220 and 189) and USBPcap (Windows, 249), built from the
# formats' descriptions: one record per URB submission and completion; bulk OUT data in the
# submission, bulk IN data in the completion.

_USBMON = struct.Struct("<QBBBBHbbqiiII8s")
_NO_DATA_IN, _NO_DATA_OUT = ord("<"), ord(">")


def _usbmon(urb: int, event: str, transfer: int, endpoint: int, device: int, data: bytes,
            *, mmapped: bool, length: int | None = None, flag: int = 0) -> bytes:  # fmt: skip
    header = _USBMON.pack(
        urb, ord(event), transfer, endpoint, device, 1, 0, 0 if data else flag,
        1_700_000_000, 0, 0, len(data) if length is None else length, len(data), b"\0" * 8,
    )  # fmt: skip
    if mmapped:
        header += struct.pack("<iiII", 0, 0, 0, 0)
    return header + data


def usbmon_frames(conversation: list[tuple[bool, bytes]], *, mmapped: bool = True,
                  device: int = 5) -> list[bytes]:  # fmt: skip
    """The conversation as usbmon records of a device's ADB interface (bulk OUT 0x01, bulk IN
    0x81), with a zero-length packet, control traffic and another device's bulk data."""
    out = [
        _usbmon(1, "S", 2, 0x80, device, b"", mmapped=mmapped, length=18, flag=_NO_DATA_IN),
        _usbmon(1, "C", 2, 0x80, device, b"\x12\x01" + b"\0" * 16, mmapped=mmapped),
        _usbmon(2, "S", 3, 0x02, 7, b"CNXN is not what this device speaks", mmapped=mmapped),
    ]
    for index, (from_host, data) in enumerate(conversation, start=10):
        if from_host:
            out.append(_usbmon(index, "S", 3, 0x01, device, data, mmapped=mmapped))
            out.append(_usbmon(index, "C", 3, 0x01, device, b"", mmapped=mmapped,
                               length=len(data), flag=_NO_DATA_OUT))  # fmt: skip
        else:
            out.append(_usbmon(index, "S", 3, 0x81, device, b"", mmapped=mmapped,
                               length=16384, flag=_NO_DATA_IN))  # fmt: skip
            out.append(_usbmon(index, "C", 3, 0x81, device, data, mmapped=mmapped))
            if len(data) % 512 == 0:  # a zero-length packet ends a transfer of whole packets
                out.append(_usbmon(index, "C", 3, 0x81, device, b"", mmapped=mmapped, length=0))
    return out


_USBPCAP = struct.Struct("<HQIHBHHBBI")


def _usbpcap(irp: int, from_device: bool, endpoint: int, data: bytes, transfer: int = 3) -> bytes:
    return _USBPCAP.pack(_USBPCAP.size, irp, 0, 9, int(from_device), 1, 5, endpoint, transfer,
                         len(data)) + data  # fmt: skip


def usbpcap_frames(conversation: list[tuple[bool, bytes]]) -> list[bytes]:
    """The conversation as USBPcap records (Windows): request and completion per transfer."""
    out = [_usbpcap(1, True, 0x80, b"\x12\x01" + b"\0" * 16, transfer=2)]
    for index, (from_host, data) in enumerate(conversation, start=10):
        if from_host:
            out += [_usbpcap(index, False, 0x01, data), _usbpcap(index, True, 0x01, b"")]
        else:
            out += [_usbpcap(index, False, 0x81, b""), _usbpcap(index, True, 0x81, data)]
    return out
