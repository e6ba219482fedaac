"""The legacy `shell:` service, for devices without shell_v2 and for `adbwire shell -x`.

One byte stream each way: stdout and stderr arrive merged, no exit status comes back, and
the stream cannot say "end of input" without ending the command. So:

- keystrokes from a terminal are written to the stream as they are typed (`RawShell`);
- piped input is first copied whole to a file on the device, and the command reads it from
  there (`spool_stdin` + `reading_from`): the command sees the end of its input, as it
  would with shell_v2 (`printf 'a\\n' | adbwire shell cat` ends).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from typing import BinaryIO, cast

from adbwire.errors import AdbwireError
from adbwire.wire.client import AdbClient
from adbwire.wire.shell_quote import quote
from adbwire.wire.stream import Stream
from adbwire.wire.timeouts import Deadline

SPOOL_DIRECTORY = "/data/local/tmp"


class _AfterFirstChunk:
    """A reader giving `first`, then the rest of `descriptor` (what `read` of a file does)."""

    def __init__(self, first: bytes, descriptor: int) -> None:
        self._first = first
        self._descriptor = descriptor

    def read(self, size: int = -1) -> bytes:
        if self._first:
            chunk = self._first if size < 0 else self._first[:size]
            self._first = self._first[len(chunk) :]
            return chunk
        return os.read(self._descriptor, size if size > 0 else 64 * 1024)


def piped_input(descriptor: int) -> BinaryIO | None:
    """Piped stdin as a reader, or None when it is empty: nothing to spool, so no file on
    the device is needed (an adbd without a writable /data/local/tmp still runs commands
    from scripts whose stdin is /dev/null)."""
    first = os.read(descriptor, 64 * 1024)
    return cast("BinaryIO", _AfterFirstChunk(first, descriptor)) if first else None


def spool_stdin(client: AdbClient, source: BinaryIO, timeout: float | None) -> str:
    """Copy `source` to a fresh file on the device (over sync); returns its path."""
    path = f"{SPOOL_DIRECTORY}/adbwire-stdin-{os.urandom(8).hex()}"
    client.push_stream(source, path, mode=0o600, timeout=timeout)
    return path


def reading_from(path: str, command: str) -> str:
    """`command` with its stdin redirected from `path`, which is removed once opened.

    The newline ends a trailing comment in `command`; the braces keep the redirection for
    the whole command line (a pipeline or a list)."""
    quoted = quote(path)
    return f"{{ rm -f {quoted}; {command}\n}} <{quoted}"


class RawShell:
    """A `shell:` stream: write input as it comes, read the merged output until it ends."""

    def __init__(self, client: AdbClient, service: str, timeout: float | None) -> None:
        self._stream: Stream = client.open_stream(service, timeout=timeout)

    def write(self, data: bytes) -> bool:
        """Send input; False once the command ended (the stream is closed)."""
        try:
            self._stream.write(data)
        except AdbwireError:
            return False
        return True

    def output(self, deadline: Deadline | None) -> Iterator[bytes]:
        while data := self._stream.read(None, deadline):
            yield data

    def close(self) -> None:
        self._stream.close()

    @property
    def closed(self) -> bool:
        return self._stream.closed

    def __enter__(self) -> RawShell:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def start_key_pump(shell: RawShell, stdin_fd: int) -> threading.Thread:
    """Forward what is typed (or read from `stdin_fd`) to the stream until either ends."""

    # os.read on the descriptor, not sys.stdin.buffer: this daemon thread may still be
    # blocked in a read at exit, and one holding the BufferedReader's lock aborts the
    # interpreter ("could not acquire lock for <stdin>").
    def pump() -> None:
        try:
            while chunk := os.read(stdin_fd, 64 * 1024):
                if not shell.write(chunk):
                    return
        except OSError:
            pass  # stdin went away; the output loop decides when the session ends

    thread = threading.Thread(target=pump, name="adbwire-stdin", daemon=True)
    thread.start()
    return thread
