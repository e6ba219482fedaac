"""A host side of the sync: service that builds every request by hand (file_sync_protocol.h)."""

from __future__ import annotations

import struct
from collections.abc import Iterator

from tests.simulator.protocol_peer import Stream

STAT_V2 = struct.Struct("<4sIQQIIIIQqqq")
DENT_V2 = struct.Struct("<4sIQQIIIIQqqqI")


class Sync:
    def __init__(self, stream: Stream) -> None:
        self.stream = stream

    def request(self, request_id: bytes, path: str | bytes) -> None:
        raw = path.encode() if isinstance(path, str) else path
        self.stream.write(struct.pack("<4sI", request_id, len(raw)) + raw)

    def read(self, size: int) -> bytes:
        return self.stream.read_exactly(size)

    def stat_v1(self, path: str) -> tuple[bytes, int, int, int]:
        self.request(b"STAT", path)
        return struct.unpack("<4sIII", self.read(16))

    def stat_v2(self, request_id: bytes, path: str) -> tuple[int, ...]:
        self.request(request_id, path)
        fields = STAT_V2.unpack(self.read(STAT_V2.size))
        assert fields[0] == request_id
        return fields[1:]

    def listing(self, path: str, *, v2: bool) -> dict[str, tuple[int, ...]]:
        self.request(b"LIS2" if v2 else b"LIST", path)
        entries: dict[str, tuple[int, ...]] = {}
        layout = DENT_V2 if v2 else struct.Struct("<4sIIII")
        while True:
            fields = layout.unpack(self.read(layout.size))
            if fields[0] == b"DONE":
                assert set(fields[1:]) == {0}
                return entries
            assert fields[0] == (b"DNT2" if v2 else b"DENT")
            entries[self.read(fields[-1]).decode()] = fields[1:-1]

    def status(self) -> tuple[bytes, bytes]:
        status_id, length = struct.unpack("<4sI", self.read(8))
        message = self.read(length) if status_id == b"FAIL" else b""
        assert status_id == b"FAIL" or length == 0
        return status_id, message

    def send_data(self, data: bytes, mtime: int, chunk: int = 65536) -> None:
        out = b"".join(
            struct.pack("<4sI", b"DATA", len(data[i : i + chunk])) + data[i : i + chunk]
            for i in range(0, len(data), chunk)
        )
        self.stream.write(out + struct.pack("<4sI", b"DONE", mtime))

    def push_v1(
        self, path: str, data: bytes, *, mode: int = 0o100644, mtime: int = 1_600_000_000
    ) -> tuple[bytes, bytes]:
        self.request(b"SEND", f"{path},{mode}")
        self.send_data(data, mtime)
        return self.status()

    def pull_chunks(self) -> Iterator[tuple[bytes, bytes]]:
        while True:
            message_id, size = struct.unpack("<4sI", self.read(8))
            if message_id == b"DONE":
                return
            yield message_id, self.read(size)
            if message_id == b"FAIL":
                return
