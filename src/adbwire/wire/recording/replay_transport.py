"""ReplayTransport: a recorded device played back in place of a real one.

No thread of its own: the device engine runs inside `write_packet` (in the writer's
thread) and queues its answer, which `read_exactly` hands to the connection's reader.
A mismatch is raised to the writer at once and, from then on, to the reader (so every
waiting call learns of it); `close()` unblocks the reader with DisconnectedError.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings

from adbwire.errors import DisconnectedError, ReplayMismatchError
from adbwire.wire import packets as P
from adbwire.wire.recording.fixture_file import Fixture, FixtureWarning, load_fixture
from adbwire.wire.recording.replay_device import ReplayDevice
from adbwire.wire.recording.script import build_script


class ReplayTransport:
    """Plays the device side of the fixture at `path`; see docs/fixtures.md.

    `strict`: a request the recording does not have stops the connection, and recorded
    traffic the client never used is an error at `close()`. Otherwise such a request fails
    its stream only (an OPEN is refused, a stream is closed; a `FixtureWarning` and
    `mismatches` say why) and unused traffic is a `FixtureWarning`.
    """

    def __init__(self, path: str | os.PathLike[str], *, strict: bool = False) -> None:
        self.fixture: Fixture = load_fixture(path)
        self.strict = strict
        self._script = build_script(self.fixture)
        for stream in self._script.unclosed:
            warnings.warn(
                f"{self.fixture.path}: {stream.describe()} was still open when the recording "
                "ended; the replay ends it after its recorded bytes",
                FixtureWarning,
                stacklevel=2,
            )
        self._cond = threading.Condition()
        self._device: ReplayDevice | None = None
        self._incoming = bytearray()
        self._closed = False
        self._failure: ReplayMismatchError | None = None

    @property
    def kind(self) -> str:
        return "replay"

    @property
    def address(self) -> str:
        return f"replay:{self.fixture.path.name}"

    @property
    def failure(self) -> ReplayMismatchError | None:
        return self._failure

    def connect(self, timeout: float) -> None:
        with self._cond:
            if self._device is not None:
                raise DisconnectedError(f"{self.address}: a replay plays one connection only")
            self._device = ReplayDevice(self._script, strict=self.strict)

    def write_packet(self, header: bytes, payload: bytes | bytearray | memoryview) -> None:
        with self._cond:
            device = self._live_device()
            command, arg0, arg1, _length, _check, _magic = P.HEADER.unpack(header)
            noted, stood_in = len(device.mismatches), len(device.stand_ins)
            try:
                device.receive(P.Packet(command, arg0, arg1, bytes(payload)))
            except ReplayMismatchError as exc:
                self._failure = exc
                raise
            finally:
                for message in device.mismatches[noted:]:
                    warnings.warn(f"{message}; that stream fails", FixtureWarning, stacklevel=2)
                for message in device.stand_ins[stood_in:]:
                    warnings.warn(f"{self.address}: {message}", FixtureWarning, stacklevel=2)
                if device.outbox:
                    self._incoming += device.outbox
                    device.outbox.clear()
                self._cond.notify_all()

    def read_exactly(self, size: int) -> bytes | bytearray:
        with self._cond:
            while len(self._incoming) < size:
                if self._failure is not None:
                    failure = self._failure
                    raise ReplayMismatchError(
                        str(failure), fixture=failure.fixture, line=failure.line
                    )
                if self._closed:
                    raise DisconnectedError(f"{self.address}: the replay was closed")
                if self._device is not None and self._device.finished:
                    where = self.fixture.where(self._script.end_line or 1)
                    raise DisconnectedError(
                        f"{self.address}: the recorded device closed the connection ({where})"
                    )
                self._cond.wait()
            data = bytes(self._incoming[:size])
            del self._incoming[:size]
            return data

    def close(self) -> None:
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        leftovers = self.unused()
        if not leftovers or self._failure is not None:
            return
        unused = "; ".join(leftovers)
        message = f"{self.fixture.path}: the client did not use all of the recording: {unused}"
        # Never hide the error that is making the caller close (a failed handshake, a test's
        # assertion inside `with client:`): then the unused traffic is only a warning.
        if self.strict and sys.exc_info()[1] is None:
            raise ReplayMismatchError(message, fixture=self.fixture.path)
        warnings.warn(message, FixtureWarning, stacklevel=2)

    @property
    def mismatches(self) -> list[str]:
        """Requests that failed their stream (not strict), in order, one sentence each."""
        with self._cond:
            return list(self._device.mismatches) if self._device is not None else []

    def refusal_reason(self, service: str) -> str | None:
        """Why the replay refused `service` (the connection puts it in StreamRefusedError)."""
        with self._cond:
            return self._device.refusals.get(service) if self._device is not None else None

    def unused(self) -> list[str]:
        """Recorded traffic the client has not used (so far), one sentence each; nothing
        when the connection never came online (the handshake's error says what happened)."""
        with self._cond:
            device = self._device
            return device.leftovers() if device is not None and device.online else []

    def _live_device(self) -> ReplayDevice:
        if self._closed:
            raise DisconnectedError(f"{self.address}: the replay was closed")
        if self._failure is not None:
            raise DisconnectedError(f"{self.address}: the replay stopped: {self._failure}")
        if self._device is None:
            raise DisconnectedError(f"{self.address}: not connected")
        return self._device
