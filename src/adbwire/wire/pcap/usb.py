"""ADB over USB in a capture: Linux usbmon (link types 220 and 189) and Windows USBPcap (249).

Each record is one URB event. Bulk OUT data travels in the submission (host to device), bulk
IN data in the completion (device to host); zero-length packets carry nothing and add
nothing. The bytes of each bulk endpoint are concatenated in capture order; the ADB pair is
the OUT endpoint whose bytes start with a CNXN packet and the IN endpoint of the same device
that answers with CNXN or AUTH. Formats: the pcap link-type registry and Wireshark's usbmon
and USBPcap dissectors (header layouts only; nothing is copied).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from adbwire.wire import packets as P
from adbwire.wire.pcap.capture_file import Frame
from adbwire.wire.pcap.reassembly import Assembled, Piece

LINKTYPE_USB_LINUX: Final = 189
"""usbmon, 48-byte header (the binary interface without the mmap fields)."""
LINKTYPE_USB_LINUX_MMAPPED: Final = 220
"""usbmon, 64-byte header (what Wireshark and tcpdump write on Linux)."""
LINKTYPE_USBPCAP: Final = 249
USB_LINK_TYPES: Final = (LINKTYPE_USB_LINUX, LINKTYPE_USB_LINUX_MMAPPED, LINKTYPE_USBPCAP)

_BULK: Final = 3
_USBMON: Final = struct.Struct("<QBBBBHbbqiiII")
"""id, event type, transfer type, endpoint, device, bus, setup flag, data flag, seconds,
microseconds, status, URB length, captured length (the first 40 bytes of both layouts)."""
_USBPCAP: Final = struct.Struct("<HQIHBHHBBI")
"""header length, IRP id, status, function, info, bus, device, endpoint, transfer, length."""
_USBPCAP_FROM_DEVICE: Final = 0x01


@dataclass(frozen=True)
class UsbChunk:
    frame: int
    time: float
    bus: int
    device: int
    endpoint: int
    """With the direction bit: 0x80 set for IN (device to host)."""
    data: bytes


def usb_chunk(frame: Frame) -> UsbChunk | None:
    """The bulk data a record carries in its direction (None for anything else)."""
    if frame.link_type in (LINKTYPE_USB_LINUX, LINKTYPE_USB_LINUX_MMAPPED):
        size = 64 if frame.link_type == LINKTYPE_USB_LINUX_MMAPPED else 48
        if len(frame.data) < size:
            return None
        fields = _USBMON.unpack_from(frame.data)
        event, transfer, endpoint, device, bus = fields[1:6]
        data_flag, captured = fields[7], fields[12]
        if transfer != _BULK or data_flag != 0 or captured == 0:
            return None
        inbound = bool(endpoint & 0x80)
        if (event == ord("S") and inbound) or (event == ord("C") and not inbound):
            return None  # an IN request or an OUT completion: no bytes of the stream
        if event not in (ord("S"), ord("C")):
            return None
        data = frame.data[size : size + captured]
        return UsbChunk(frame.index, frame.time, bus, device, endpoint, data)
    if frame.link_type == LINKTYPE_USBPCAP:
        if len(frame.data) < _USBPCAP.size:
            return None
        header_length, _irp, _status, _function, info, bus, device, endpoint, transfer, length = (
            _USBPCAP.unpack_from(frame.data)
        )
        if transfer != _BULK or length == 0 or header_length < _USBPCAP.size:
            return None
        from_device = bool(info & _USBPCAP_FROM_DEVICE)
        if from_device != bool(endpoint & 0x80):
            return None  # an IN request or an OUT completion
        data = frame.data[header_length : header_length + length]
        return UsbChunk(frame.index, frame.time, bus, device, endpoint, data)
    return None


@dataclass
class UsbEndpoint:
    bus: int
    device: int
    endpoint: int
    chunks: list[UsbChunk] = field(default_factory=list)

    def assemble(self) -> Assembled:
        data = bytearray()
        pieces: list[Piece] = []
        for chunk in self.chunks:
            pieces.append(Piece(len(data), len(data) + len(chunk.data), chunk.frame))
            data += chunk.data
        return Assembled(bytes(data), pieces, None)

    def starts_with(self, *commands: int) -> bool:
        head = b"".join(chunk.data for chunk in self.chunks[:4])[: P.HEADER_SIZE]
        if len(head) < P.HEADER_SIZE:
            return False
        command, *_rest, magic = P.HEADER.unpack(head)
        return command in commands and magic == command ^ 0xFFFFFFFF

    def describe(self) -> str:
        size = sum(len(chunk.data) for chunk in self.chunks)
        return f"bus {self.bus} device {self.device} endpoint {self.endpoint:#04x} ({size} bytes)"


@dataclass(frozen=True)
class UsbConnection:
    to_device: UsbEndpoint
    to_host: UsbEndpoint

    @property
    def first_time(self) -> float:
        return self.to_device.chunks[0].time

    def describe(self) -> str:
        return f"{self.to_device.describe()} / {self.to_host.describe()}"


def adb_usb_connections(frames: Iterable[Frame]) -> list[UsbConnection]:
    """Each device's ADB pair of bulk endpoints, in the order their CNXN was captured."""
    endpoints: dict[tuple[int, int, int], UsbEndpoint] = {}
    for frame in frames:
        chunk = usb_chunk(frame)
        if chunk is None:
            continue
        key = (chunk.bus, chunk.device, chunk.endpoint)
        endpoints.setdefault(key, UsbEndpoint(*key)).chunks.append(chunk)
    found: list[UsbConnection] = []
    for (bus, device, endpoint), out in endpoints.items():
        if endpoint & 0x80 or not out.starts_with(P.A_CNXN):
            continue
        answers = [
            item
            for (b, d, e), item in endpoints.items()
            if (b, d) == (bus, device) and e & 0x80 and item.starts_with(P.A_CNXN, P.A_AUTH)
        ]
        if answers:
            found.append(UsbConnection(out, answers[0]))
    return sorted(found, key=lambda item: item.to_device.chunks[0].frame)
