"""`adbwire serve` over stdio, ended cleanly by Ctrl-C or SIGTERM.

The MCP SDK reads stdin in a worker thread that cancellation cannot interrupt, so on a signal
the server would go on waiting for the client's next line (Ctrl-C did nothing; SIGTERM killed
the process before recordings, connections and the audit log were closed). Here fd 0 is a
pipe that this module feeds from the real stdin; the first SIGINT or SIGTERM stops the feed,
so the SDK sees end of input: the same orderly shutdown as a client closing the pipe. A
second signal ends the process at once.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
from collections.abc import Iterator

import anyio
import anyio.abc
from mcp.server.mcpserver import MCPServer

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_CHUNK = 64 * 1024
_FEED_JOIN_SECONDS = 5.0


async def run_stdio(server: MCPServer) -> int | None:
    """Serve until the client closes stdin (None) or a stop signal arrives (its number)."""
    if (
        sys.platform == "win32"  # no signal receivers, no select() on pipes
        or threading.current_thread() is not threading.main_thread()  # signals need it
        or not _stdin_is_fd_0()
    ):
        await server.run_stdio_async()
        return None
    received: list[int] = []
    feed = _StdinFeed()
    try:
        async with anyio.create_task_group() as tasks:
            await tasks.start(_stop_feed_on_signal, feed, received)  # before fd 0 moves
            with feed:
                await server.run_stdio_async()
            tasks.cancel_scope.cancel()
    finally:
        feed.close()
    if not received:
        return None
    for number in STOP_SIGNALS:  # another one during the shutdown that follows: exit at once
        if signal.getsignal(number) is not signal.SIG_IGN:
            signal.signal(number, signal.SIG_DFL)
    return received[0]


async def _stop_feed_on_signal(
    feed: _StdinFeed,
    received: list[int],
    *,
    task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    # A signal the parent set to be ignored (a background job) stays ignored.
    wanted = [n for n in STOP_SIGNALS if signal.getsignal(n) is not signal.SIG_IGN]
    with anyio.open_signal_receiver(*wanted) as signals:
        task_status.started()
        async for number in signals:
            if received:  # the second one: no more waiting for a clean end
                signal.signal(number, signal.SIG_DFL)
                os.kill(os.getpid(), number)
            received.append(number)
            feed.stop()


def _stdin_is_fd_0() -> bool:
    """The SDK serves `sys.stdin` only when it is fd 0; otherwise it is left alone."""
    try:
        if sys.stdin is None or sys.stdin.fileno() != 0:
            return False
        os.fstat(0)
    except (OSError, ValueError):
        return False
    return True


class _StdinFeed:
    """Replaces fd 0 with a pipe and copies the real stdin into it until `stop()`.

    `stop()` works at any time from creation on, even before the feed is entered."""

    def __init__(self) -> None:
        self._source = -1
        self._sink = -1
        self._wake_read, self._wake_write = os.pipe()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> _StdinFeed:
        self._source = os.dup(0)
        pipe_read, self._sink = os.pipe()
        os.set_blocking(self._sink, False)
        os.dup2(pipe_read, 0)
        os.close(pipe_read)
        self._thread = threading.Thread(target=self._copy, name="adbwire-stdin-feed", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_write, b"x")

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
        if self._thread is not None:
            self._thread.join(_FEED_JOIN_SECONDS)
        os.dup2(self._source, 0)
        os.close(self._source)
        self.close()

    def close(self) -> None:
        """Release the stop pipe (idempotent; for a feed that was never entered too)."""
        for fd in (self._wake_read, self._wake_write):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._wake_read = self._wake_write = -1

    def _copy(self) -> None:
        try:
            for data in self._chunks():
                if not self._write_all(data):
                    break
        finally:
            os.close(self._sink)  # end of input for the SDK's reader

    def _chunks(self) -> Iterator[bytes]:
        while True:
            readable, _, _ = select.select([self._source, self._wake_read], [], [])
            if self._wake_read in readable:
                return
            try:
                data = os.read(self._source, _CHUNK)
            except BlockingIOError:  # the client may have made its end of stdin non-blocking
                continue
            except OSError:
                return
            if not data:
                return
            yield data

    def _write_all(self, data: bytes) -> bool:
        """False once stopped (the SDK may no longer be reading, so the pipe may be full)."""
        view = memoryview(data)
        while view:
            readable, _, _ = select.select([self._wake_read], [self._sink], [])
            if readable:
                return False
            try:
                view = view[os.write(self._sink, view) :]
            except BlockingIOError:
                continue
            except OSError:
                return False
        return True
