"""Counting TLS records in a byte stream, so the reader knows when OpenSSL has more to give.

Every TLS record starts with a 5-byte header whose last two bytes are the length of what
follows (RFC 8446 section 5.1; handshake, alert and application records alike). Feeding the
received bytes through a `RecordCounter` tells how many records they completed, whatever
sizes they arrived in. The TLS channel asks OpenSSL for plaintext only while it has been
given complete records it has not returned yet, instead of asking once more each time just
to hear "want read": every OpenSSL call through pyOpenSSL hands Python's GIL to another
thread and back, which costs far more than the call itself on a busy machine.
"""

from __future__ import annotations

from typing import Final

__all__ = ["RECORD_HEADER_SIZE", "RecordCounter"]

RECORD_HEADER_SIZE: Final = 5


class RecordCounter:
    """Feed the bytes of one direction of a TLS connection in order; get whole records."""

    def __init__(self) -> None:
        self._header = bytearray()
        self._body_left = 0
        """Bytes of the current record's body still to come; 0 while reading a header."""

    def feed(self, data: bytes | bytearray | memoryview) -> int:
        """How many records `data` completed (a record's header and its whole body)."""
        completed = 0
        position, size = 0, len(data)
        while position < size:
            if self._body_left:
                taken = min(self._body_left, size - position)
                position += taken
                self._body_left -= taken
                if not self._body_left:
                    completed += 1
                continue
            wanted = RECORD_HEADER_SIZE - len(self._header)
            piece = data[position : position + wanted]
            self._header += piece
            position += len(piece)
            if len(self._header) == RECORD_HEADER_SIZE:
                self._body_left = (self._header[3] << 8) | self._header[4]
                self._header.clear()
                if not self._body_left:
                    completed += 1
        return completed
