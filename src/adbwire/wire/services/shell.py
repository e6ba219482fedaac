"""Running shell commands: shell v2 (separate stdout/stderr, exit code, stdin) with a v1
fallback for devices that lack `shell_v2` (merged output; exit code from a sentinel).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from enum import Enum
from typing import TYPE_CHECKING, Final

from adbwire.errors import (
    DisconnectedError,
    OperationCancelledError,
    OutputTooLargeError,
    RemoteProtocolError,
    UsageError,
)
from adbwire.wire.connection import Connection
from adbwire.wire.services.shell_protocol import (
    HEADER_SIZE,
    ShellPacketDecoder,
    ShellPacketId,
    encode,
)
from adbwire.wire.stream import Stream
from adbwire.wire.timeouts import Deadline

if TYPE_CHECKING:
    from adbwire.wire.services.shell_result import ShellResult as ShellResult  # noqa: PLC0414 - export

EXIT_STATUS_UNKNOWN: Final = -1
"""`ShellResult.exit_code` when the device gave no exit status: only a replayed capture of a
legacy `shell:` stream (Google's adb on a device without shell_v2) does; see docs/fixtures.md."""


class Channel(str, Enum):
    STDOUT = "stdout"
    STDERR = "stderr"


class ShellProcess:
    """A running command; iterate it for (channel, bytes) as output arrives.

    Without shell_v2 everything arrives on STDOUT and stdin is not supported; the exit code
    is recovered from a sentinel the command line prints last.
    """

    def __init__(
        self,
        connection: Connection,
        command: str,
        *,
        pty: bool = False,
        timeout: float | None = None,
        max_output: int | None = None,
    ) -> None:
        if max_output is not None and max_output <= 0:
            raise UsageError("max_output must be a positive number of bytes")
        self.command = command
        self.max_output = max_output
        """Cap on stdout + stderr bytes (None: no cap); `output` raises past it."""
        self.received = 0
        """Output bytes taken so far (stdout and stderr)."""
        self.over_cap = False
        """The device sent more than `max_output`: what fitted was emitted, then `output`
        raised OutputTooLargeError."""
        self.v2 = "shell_v2" in connection.features
        self.exit_code: int | None = None
        self._decoder = ShellPacketDecoder()
        self._marker = "" if self.v2 else f"ADBWIRE_EXIT_{os.urandom(8).hex()}:"
        if self.v2:
            service = f"shell,v2,{'pty' if pty else 'raw'}:{command}"
        else:
            # The subshell keeps `exit N` in the command from skipping our sentinel.
            service = f"shell:({command}\n); echo {self._marker}$?"
        self._stream: Stream = connection.open_stream(service, timeout)
        self._tail = b""
        self._payload_limit = connection.max_payload - HEADER_SIZE

    def __enter__(self) -> ShellProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def write_stdin(self, data: bytes, deadline: Deadline | None = None) -> bool:
        """Send input; False when the command already ended (its output is still readable)."""
        self._require_v2("writing to stdin")
        for start in range(0, len(data), self._payload_limit):
            chunk = data[start : start + self._payload_limit]
            if not self._send(encode(ShellPacketId.STDIN, chunk), deadline):
                return False
        return True

    def close_stdin(self, deadline: Deadline | None = None) -> None:
        if self.v2:
            self._send(encode(ShellPacketId.CLOSE_STDIN), deadline)

    def _send(self, packet: bytes, deadline: Deadline | None) -> bool:
        try:
            self._stream.write(packet, deadline)
        except DisconnectedError:
            if self._stream.connection.failure is not None:
                raise
            return False  # a command that exited closes its stream: input no longer matters
        return True

    def resize(self, rows: int, cols: int, deadline: Deadline | None = None) -> None:
        self._require_v2("resizing the terminal")
        size = f"{rows}x{cols},0x0\0".encode()
        self._stream.write(encode(ShellPacketId.WINDOW_SIZE_CHANGE, size), deadline)

    def output(self, deadline: Deadline | None = None) -> Iterator[tuple[Channel, bytes]]:
        """Output as it arrives, until the command exits (then `exit_code` is set).

        Past `max_output` bytes (stdout and stderr together, counting a packet still being
        received) it emits the bytes up to the cap, then raises OutputTooLargeError instead of
        reading more; closing the process then ends the command.
        """
        while self.exit_code is None:
            data = self._stream.read(None, deadline)
            if not data:
                break
            yield from self._decode(data)
            if self.over_cap:
                raise self._too_large()
        if not self.v2:
            self._finish_v1()
            if self.max_output is not None and self.received + len(self._tail) > self.max_output:
                raise self._too_large()
        elif self.exit_code is None:
            raise RemoteProtocolError(
                f"{self.command!r}: the device closed the shell without an exit code"
            )

    def _decode(self, data: bytes) -> list[tuple[Channel, bytes]]:
        out: list[tuple[Channel, bytes]] = []
        if self.v2:
            for packet_id, payload in self._decoder.feed(data):
                if packet_id is ShellPacketId.STDOUT:
                    out.append((Channel.STDOUT, payload))
                elif packet_id is ShellPacketId.STDERR:
                    out.append((Channel.STDERR, payload))
                elif packet_id is ShellPacketId.EXIT:
                    # adb reads a missing status as a failure, never as success.
                    self.exit_code = payload[0] if payload else 255
        else:
            emit = self._split_v1(data)
            if emit:
                out.append((Channel.STDOUT, emit))
        if self.max_output is None:
            self.received += sum(len(payload) for _, payload in out)
            return out
        kept: list[tuple[Channel, bytes]] = []
        for channel, payload in out:
            room = self.max_output - self.received
            if len(payload) > room:
                self.over_cap = True
            fitting = payload[:room]
            if fitting:
                kept.append((channel, fitting))
            self.received += len(fitting)
        if self.v2 and self.received + self._decoder.pending_output > self.max_output:
            self.over_cap = True  # output still arriving is already past the cap
        return kept

    def _too_large(self) -> OutputTooLargeError:
        assert self.max_output is not None
        return OutputTooLargeError(f"shell {self.command[:200]!r}", self.max_output)

    def close(self) -> None:
        self._stream.close()

    @property
    def closed(self) -> bool:
        return self._stream.closed

    def _require_v2(self, what: str) -> None:
        if not self.v2:
            raise UsageError(f"{what} needs a device with the shell_v2 feature (Android 7+)")

    def _split_v1(self, data: bytes) -> bytes:
        """Hold back just enough bytes that a sentinel split across reads is still found."""
        buffered = self._tail + data
        keep = len(self._marker) + 8
        self._tail = buffered[-keep:]
        return buffered[:-keep]

    def _finish_v1(self) -> None:
        marker = self._marker.encode()
        tail = self._tail
        at = tail.rfind(marker)
        if at < 0:
            # The sentinel never ran: the command line did not parse (the shell's message is
            # in the output) or the shell was killed. Report a failure, keep the output.
            self.exit_code = 255
            return
        status = tail[at + len(marker) :].strip()
        self._tail = tail[:at]
        if status == b"unknown":  # a replayed capture that carries no exit status
            self.exit_code = EXIT_STATUS_UNKNOWN
            return
        self.exit_code = int(status) if status.isdigit() else 255

    @property
    def leftover_v1(self) -> bytes:
        """Output held back while looking for the v1 sentinel (emitted by `run`)."""
        return self._tail


def run(
    connection: Connection,
    command: str,
    *,
    stdin: bytes | None = None,
    timeout: float | None = None,
    max_output: int | None = None,
) -> ShellResult:
    """Run `command` to completion and return its output and exit code.

    Input is written from a helper thread while the output is read, so a command that
    answers as it reads (`cat`) never deadlocks against a large input.

    `max_output` caps stdout and stderr together (bytes, None for no cap): once the device
    has sent more, the stream is closed (which ends the command), nothing more is read and
    OutputTooLargeError is raised.
    """
    deadline = Deadline(
        connection.timeouts.operation if timeout is None else timeout, f"shell {command!r}"
    )
    if stdin and "shell_v2" not in connection.features:
        raise UsageError("stdin needs a device with the shell_v2 feature (Android 7+)")
    stdout: list[bytes] = []
    stderr: list[bytes] = []
    with ShellProcess(
        connection, command, timeout=deadline.remaining(), max_output=max_output
    ) as process:
        feeder = _StdinFeeder(process, stdin, deadline) if stdin else None
        if feeder is None:
            process.close_stdin(deadline)
        else:
            feeder.start()
        try:
            for channel, data in process.output(deadline):
                (stdout if channel is Channel.STDOUT else stderr).append(data)
        except BaseException as exc:
            if feeder is not None:
                feeder.finish(process)
                feeder.raise_failure(cause=exc)  # the input's failure is the root cause
            raise
        if feeder is not None:
            feeder.finish(process)
            feeder.raise_failure()
        if not process.v2:
            stdout.append(process.leftover_v1)
    assert process.exit_code is not None
    from adbwire.wire.services.shell_result import ShellResult  # noqa: PLC0415 - see __getattr__

    return ShellResult(command, b"".join(stdout), b"".join(stderr), process.exit_code)


class _StdinFeeder(threading.Thread):
    """Writes a command's input, then close-stdin (shell v2), beside the output reader."""

    def __init__(self, process: ShellProcess, data: bytes, deadline: Deadline) -> None:
        super().__init__(name="adbwire-shell-stdin", daemon=True)
        self._process = process
        self._data = data
        self._deadline = deadline
        self._failure: BaseException | None = None

    def run(self) -> None:
        try:
            if self._process.write_stdin(self._data, self._deadline):
                self._process.close_stdin(self._deadline)
        except OperationCancelledError:
            pass  # the reader finished or gave up first and closed the stream
        except BaseException as exc:
            self._failure = exc

    def finish(self, process: ShellProcess) -> None:
        if self.is_alive():
            process.close()  # unblocks a feeder still waiting for flow-control credit
        self.join()

    def raise_failure(self, cause: BaseException | None = None) -> None:
        if self._failure is not None:
            raise self._failure from cause


def __getattr__(name: str) -> object:
    """`ShellResult` lives in shell_result.py, loaded when first asked for: streaming a
    command (`adbwire shell`) needs no dataclasses (issue #20)."""
    if name == "ShellResult":
        from adbwire.wire.services.shell_result import ShellResult  # noqa: PLC0415

        return ShellResult
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
