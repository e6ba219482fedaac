"""A pty's input side: ^C is SIGINT for the foreground, CR is LF (the tty's ISIG and ICRNL).

With a terminal, the tty driver sees every byte as it arrives, not when a command reads
stdin: `adb shell -t sleep 30` then ^C stops the sleep. A thread reads the stream's input
ahead, turns ^C into an interrupt callback and queues the rest for the shell's reads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Final

from adbwire.testing.userland.process import ProcessIO

INTERRUPT: Final = b"\x03"
MAX_QUEUED: Final = 1 << 20
_POLL: Final = 0.1


class TerminalInput:
    def __init__(self, io: ProcessIO) -> None:
        self._io = io
        self._queued = bytearray()
        self._ended = False
        self._cond = threading.Condition()
        self.on_interrupt: Callable[[], None] = lambda: None
        threading.Thread(target=self._pump, name="device tty input", daemon=True).start()

    def _pump(self) -> None:
        while True:
            try:
                data = self._io.read_stdin(4096)
            except Exception:  # the stream is gone: input ends
                data = b""
            if not data:
                break
            if INTERRUPT in data:
                self.on_interrupt()
                data = data.replace(INTERRUPT, b"")
            data = data.replace(b"\r", b"\n")
            with self._cond:
                while len(self._queued) > MAX_QUEUED and not self._io.cancelled:
                    self._cond.wait(_POLL)  # nobody reads: hold the sender back
                self._queued += data
                self._cond.notify_all()
        with self._cond:
            self._ended = True
            self._cond.notify_all()

    def read(self, max_bytes: int = 65536) -> bytes:
        with self._cond:
            while not self._queued and not self._ended and not self._io.cancelled:
                self._cond.wait(_POLL)
            chunk = bytes(self._queued[:max_bytes])
            del self._queued[:max_bytes]
            self._cond.notify_all()
            return chunk

    def read_within(self, max_bytes: int, seconds: float) -> bytes | None:
        """Like `read`, but None once `seconds` passed with nothing typed (`read -t`)."""
        deadline = time.monotonic() + seconds
        with self._cond:
            while not self._queued and not self._ended and not self._io.cancelled:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(min(left, _POLL))
        return self.read(max_bytes)
