"""Packet captures (pcap, pcapng) of ADB over TCP, turned into replayable fixtures.

`import_capture(capture, output, port=5555)` reads a tcpdump/Wireshark capture with the
standard library only, reassembles both directions of the ADB connection and writes it in
the fixture format of `adbwire.wire.recording` (origin "imported capture").
"""

from adbwire.wire.pcap.adb_import import DEFAULT_PORT, ImportReport, import_capture
from adbwire.wire.pcap.capture_file import Frame, read_frames
from adbwire.wire.pcap.reassembly import TcpConnection, connections_on_port
from adbwire.wire.pcap.segments import Segment, segment_of

__all__ = [
    "DEFAULT_PORT",
    "Frame",
    "ImportReport",
    "Segment",
    "TcpConnection",
    "connections_on_port",
    "import_capture",
    "read_frames",
    "segment_of",
]
