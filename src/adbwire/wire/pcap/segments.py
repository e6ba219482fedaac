"""From a captured frame to a TCP segment: link layer, IPv4/IPv6, TCP.

Link types: Ethernet (with VLAN tags), Linux cooked capture v1 and v2 (`tcpdump -i any`),
BSD null/loopback (macOS `lo0`), OpenBSD loop, and raw IP. Frames that are not TCP, and
IP fragments, are skipped: ADB traffic on loopback is never fragmented.
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass
from typing import Final

from adbwire.wire.pcap.capture_file import Frame

LINK_NULL: Final = 0
LINK_ETHERNET: Final = 1
LINK_RAW: Final = 101
LINK_LOOP: Final = 108
LINK_SLL: Final = 113
LINK_SLL2: Final = 276
LINK_RAW_ALIASES: Final = (12, 14, LINK_RAW)
LINK_IPV4: Final = 228
LINK_IPV6: Final = 229
SUPPORTED_LINK_TYPES: Final = (
    LINK_NULL,
    LINK_ETHERNET,
    *LINK_RAW_ALIASES,
    LINK_LOOP,
    LINK_SLL,
    LINK_SLL2,
    LINK_IPV4,
    LINK_IPV6,
)

ETHERTYPE_IPV4: Final = 0x0800
ETHERTYPE_IPV6: Final = 0x86DD
_VLAN_TAGS: Final = (0x8100, 0x88A8, 0x9100)
_BSD_AF_INET6: Final = (10, 24, 28, 30)  # Linux, and the BSDs' values
_TCP: Final = 6
_IPV6_EXTENSIONS: Final = (0, 43, 60)  # hop-by-hop, routing, destination options
_IPV6_FRAGMENT: Final = 44

FIN: Final = 0x01
SYN: Final = 0x02
RST: Final = 0x04


@dataclass(frozen=True)
class Segment:
    frame: int
    time: float
    source: tuple[str, int]
    destination: tuple[str, int]
    seq: int
    flags: int
    payload: bytes


def _ip_packet(frame: Frame) -> bytes | None:
    data, link = frame.data, frame.link_type
    if link == LINK_ETHERNET:
        if len(data) < 14:
            return None
        ethertype, offset = struct.unpack_from("!H", data, 12)[0], 14
        while ethertype in _VLAN_TAGS and len(data) >= offset + 4:
            ethertype, offset = struct.unpack_from("!H", data, offset + 2)[0], offset + 4
        return data[offset:] if ethertype in (ETHERTYPE_IPV4, ETHERTYPE_IPV6) else None
    if link == LINK_SLL:
        if len(data) < 16:
            return None
        ethertype = struct.unpack_from("!H", data, 14)[0]
        return data[16:] if ethertype in (ETHERTYPE_IPV4, ETHERTYPE_IPV6) else None
    if link == LINK_SLL2:
        if len(data) < 20:
            return None
        ethertype = struct.unpack_from("!H", data, 0)[0]
        return data[20:] if ethertype in (ETHERTYPE_IPV4, ETHERTYPE_IPV6) else None
    if link in (LINK_NULL, LINK_LOOP):
        if len(data) < 4:
            return None
        families = {struct.unpack_from(">I", data)[0]}
        if link == LINK_NULL:  # the capturing host's byte order, which we do not know
            families.add(struct.unpack_from("<I", data)[0])
        ip_family = families & {2, *_BSD_AF_INET6}
        return data[4:] if ip_family else None
    if link in (*LINK_RAW_ALIASES, LINK_IPV4, LINK_IPV6):
        return data
    return None


def _tcp_in_ip(packet: bytes) -> tuple[str, str, bytes] | None:
    if not packet:
        return None
    version = packet[0] >> 4
    if version == 4:
        if len(packet) < 20:
            return None
        header = (packet[0] & 0x0F) * 4
        total = struct.unpack_from("!H", packet, 2)[0]
        fragment = struct.unpack_from("!H", packet, 6)[0]
        if packet[9] != _TCP or fragment & 0x3FFF:
            return None
        source = str(ipaddress.IPv4Address(packet[12:16]))
        destination = str(ipaddress.IPv4Address(packet[16:20]))
        return source, destination, packet[header : max(header, min(total, len(packet)))]
    if version == 6:
        if len(packet) < 40:
            return None
        length = struct.unpack_from("!H", packet, 4)[0]
        next_header, offset = packet[6], 40
        end = min(len(packet), 40 + length)
        while next_header in _IPV6_EXTENSIONS and offset + 2 <= end:
            next_header, offset = packet[offset], offset + (packet[offset + 1] + 1) * 8
        if next_header != _TCP:
            return None
        source = str(ipaddress.IPv6Address(packet[8:24]))
        destination = str(ipaddress.IPv6Address(packet[24:40]))
        return source, destination, packet[offset:end]
    return None


def segment_of(frame: Frame) -> Segment | None:
    """The TCP segment a frame carries, or None (not TCP, or a link type we do not read)."""
    ip_packet = _ip_packet(frame)
    if ip_packet is None:
        return None
    found = _tcp_in_ip(ip_packet)
    if found is None:
        return None
    source, destination, tcp = found
    if len(tcp) < 20:
        return None
    source_port, destination_port, seq = struct.unpack_from("!HHI", tcp, 0)
    header = (tcp[12] >> 4) * 4
    if header < 20 or header > len(tcp):
        return None
    return Segment(
        frame.index,
        frame.time,
        (source, source_port),
        (destination, destination_port),
        seq,
        tcp[13],
        tcp[header:],
    )
