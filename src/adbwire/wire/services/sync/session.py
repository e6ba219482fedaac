"""`SyncSession`: one `sync:` stream that carries many requests, reopened after a FAIL.

adbd ends its sync service after it answers FAIL (it closes the stream), so the session
forgets a stream once a FAIL or an unexpected close is seen and opens a fresh one for the
next request. A session is not thread-safe: use one per thread.

`timeout` here bounds every single wait for the device (the idle time), not a whole
transfer: a large file may take minutes, but a device that stops answering for `timeout`
seconds makes the call fail with AdbTimeoutError.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from adbwire.errors import AdbTimeoutError, DisconnectedError, RemoteProtocolError
from adbwire.wire.services.sync.codec import Expect, NeedData, SyncEvent
from adbwire.wire.services.sync.parser import ResponseParser
from adbwire.wire.stream import Buffer, Stream
from adbwire.wire.timeouts import Deadline

if TYPE_CHECKING:
    from adbwire.wire.connection import Connection


class StreamEnded(DisconnectedError):
    """The device closed the `sync:` stream (while the connection itself lives on)."""


class SyncSession:
    """One device's file-sync service; pass it to the request functions to share one stream."""

    def __init__(self, connection: Connection, *, timeout: float | None = None) -> None:
        self.connection = connection
        features = connection.features
        self.features = features
        self.stat_v2 = "stat_v2" in features
        self.ls_v2 = "ls_v2" in features
        self.sendrecv_v2 = "sendrecv_v2" in features
        self.fixed_push_mkdir = "fixed_push_mkdir" in features
        self.shell_v2 = "shell_v2" in features
        self.idle_timeout = connection.timeouts.operation if timeout is None else timeout
        self._stream: Stream | None = None
        self._parser = ResponseParser()

    def __enter__(self) -> SyncSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ---------------------------------------------------------------- the stream

    def deadline(self, what: str = "sync") -> Deadline:
        return Deadline(self.idle_timeout, f"{what} (the device sent nothing for a while)")

    @property
    def stream(self) -> Stream:
        if self._stream is None:
            self._stream = self.connection.open_stream("sync:", self.idle_timeout)
            self._parser = ResponseParser()
        return self._stream

    @property
    def is_open(self) -> bool:
        return self._stream is not None

    def send(self, data: Buffer, what: str = "sync") -> None:
        """Write request bytes. If the device closed the stream, raise StreamEnded but keep
        the stream: what the device said before closing (a FAIL) can still be read."""
        stream = self.stream
        try:
            stream.write(data, self.deadline(what))
        except DisconnectedError as exc:
            if self.connection.failure is None and not isinstance(exc, StreamEnded):
                raise StreamEnded(f"the device closed the sync stream during {what}") from exc
            self.discard()
            raise
        except BaseException:
            self.discard()  # a request cut short would confuse the next one
            raise

    def next_event(
        self, expect: Expect, what: str = "sync", *, limit: Deadline | None = None
    ) -> SyncEvent:
        """The next reply, waiting at most the idle timeout for each piece of it (and never
        past `limit`, an overall deadline of the caller's, when one is given).

        Any failure (timeout, broken reply, closed stream) discards the stream, since a
        late or partial reply would otherwise be taken for the answer to the next request.
        """
        stream = self.stream
        try:
            while True:
                event = self._parser.next_event(expect)
                if not isinstance(event, NeedData):
                    return event
                wait = self.deadline(what)
                if limit is not None and sooner(limit, wait):
                    wait = limit
                data = stream.read_view(None, wait)
                if not data:
                    raise StreamEnded(f"the device closed the sync stream during {what}")
                self._parser.feed(data)
        except BaseException:
            self.discard()
            raise

    def poll_event(self, expect: Expect) -> SyncEvent | None:
        """A reply if one has already arrived; never waits."""
        stream = self.stream
        try:
            while True:
                event = self._parser.next_event(expect)
                if not isinstance(event, NeedData):
                    return event
                if stream.at_eof:
                    return None
                try:
                    data = stream.read_view(None, Deadline(0, "sync poll"))
                except AdbTimeoutError:
                    return None
                if not data:
                    return None
                self._parser.feed(data)
        except BaseException:
            self.discard()
            raise

    def discard(self) -> None:
        """Forget the stream (after FAIL the device closes it): the next request reopens."""
        stream, self._stream = self._stream, None
        self._parser = ResponseParser()
        if stream is not None:
            stream.close()

    def close(self) -> None:
        """Close the stream (idempotent). adbd ends the service on CLSE as it does on QUIT,
        and a SEND cut short this way is deleted on the device, not left half-written."""
        self.discard()

    def unexpected(self, event: SyncEvent, what: str) -> RemoteProtocolError:
        self.discard()
        return RemoteProtocolError(f"sync: unexpected {type(event).__name__} during {what}")


def sooner(first: Deadline, second: Deadline) -> bool:
    """True when `first` expires before `second` (no deadline is the latest of all)."""
    left = first.remaining()
    if left is None:
        return False
    other = second.remaining()
    return other is None or left < other


@contextmanager
def session_for(target: Connection | SyncSession, timeout: float | None) -> Iterator[SyncSession]:
    """Use a caller's session as it is, or open one on a connection for one call."""
    if isinstance(target, SyncSession):
        yield target
        return
    with SyncSession(target, timeout=timeout) as session:
        yield session
