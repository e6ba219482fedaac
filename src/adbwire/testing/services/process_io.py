"""ProcessIO for the userland, over a stream: raw (shell v1, exec) or the shell protocol (v2).

Shell protocol packets (shell_protocol.h) are id (1 byte) + le32 length + data, with ids
stdin 0, stdout 1, stderr 2, exit 3, close-stdin 4, window-size-change 5. A pty merges stderr
into stdout and turns "\\n" into "\\r\\n" (the tty's ONLCR); raw mode keeps bytes as they are.
"""

from __future__ import annotations

import struct
from typing import Final

from adbwire.testing.stream import DeviceStream, StreamClosed
from adbwire.wire.packets import MAX_PAYLOAD

__all__ = ["RawProcessIO", "ShellProtocolIO"]

ID_STDIN: Final = 0
ID_STDOUT: Final = 1
ID_STDERR: Final = 2
ID_EXIT: Final = 3
ID_CLOSE_STDIN: Final = 4
ID_WINDOW_SIZE: Final = 5
_PACKET_HEADER = struct.Struct("<BI")


def _to_bytes(data: bytes | bytearray | memoryview) -> bytes:
    return data if isinstance(data, bytes) else bytes(data)


class RawProcessIO:
    """shell: (v1) and exec: — one byte stream each way; stdin ends when the stream does."""

    def __init__(self, stream: DeviceStream, *, pty: bool = False) -> None:
        self._stream = stream
        self._pty = pty

    def read_stdin(self, max_bytes: int = 65536) -> bytes:
        return self._stream.read(max_bytes)

    def write_stdout(self, data: bytes) -> None:
        data = _to_bytes(data)
        if self._pty:
            data = data.replace(b"\n", b"\r\n")
        self._stream.write(data)

    write_stderr = write_stdout

    @property
    def cancelled(self) -> bool:
        return self._stream.cancelled


class ShellProtocolIO:
    """shell,v2 — stdin, close-stdin and window size in; stdout, stderr and exit out."""

    def __init__(self, stream: DeviceStream, *, pty: bool = False) -> None:
        self._stream = stream
        self._pty = pty
        self._stdin_pending = b""
        self._stdin_closed = False
        self.window_size: str | None = None

    def read_stdin(self, max_bytes: int = 65536) -> bytes:
        while not self._stdin_pending:
            if self._stdin_closed or not self._read_packet():
                return b""
        chunk = self._stdin_pending[:max_bytes]
        self._stdin_pending = self._stdin_pending[len(chunk) :]
        return chunk

    def _read_packet(self) -> bool:
        """Read one packet from the host; False at the end of the stream."""
        try:
            packet_id, length = _PACKET_HEADER.unpack(self._stream.read_exact(5))
            data = self._stream.read_exact(length) if length else b""
        except StreamClosed:
            self._stdin_closed = True
            return False
        if packet_id == ID_STDIN:
            self._stdin_pending = data
        elif packet_id == ID_CLOSE_STDIN and not self._pty:
            self._stdin_closed = True  # a pty cannot close only its input (adbd ignores it)
        elif packet_id == ID_WINDOW_SIZE:
            self.window_size = data.rstrip(b"\0").decode("ascii", errors="replace")
        return True

    def write_stdout(self, data: bytes) -> None:
        data = _to_bytes(data)
        if self._pty:
            data = data.replace(b"\n", b"\r\n")
        self._send(ID_STDOUT, data)

    def write_stderr(self, data: bytes) -> None:
        if self._pty:
            self.write_stdout(data)
        else:
            self._send(ID_STDERR, _to_bytes(data))

    def exit_and_close(self, status: int) -> None:
        """The exit packet, then the end of the stream (the service's last words)."""
        self._stream.write_and_close(_PACKET_HEADER.pack(ID_EXIT, 1) + bytes([status & 0xFF]))

    def _send(self, packet_id: int, data: bytes) -> None:
        # adbd sends each packet from a buffer of at most MAX_PAYLOAD bytes.
        for start in range(0, len(data), MAX_PAYLOAD):
            piece = data[start : start + MAX_PAYLOAD]
            self._stream.write(_PACKET_HEADER.pack(packet_id, len(piece)) + piece)

    @property
    def cancelled(self) -> bool:
        return self._stream.cancelled
