"""RecordingTransport: any transport, with the session written to a fixture as it happens.

Recording never changes the session: the same bytes go to the inner transport in the same
order, its results and errors come back unchanged (not even wrapped), and a failure of
the recording itself (disk full, bytes that are not ADB) is logged and stops the recording,
never the session. Host packets are logged before they are sent, so an answer can never
appear in the fixture before the request that caused it.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adbwire.errors import DisconnectedError, RemoteProtocolError
from adbwire.wire import packets as P
from adbwire.wire.recording.events import ORIGIN_REAL
from adbwire.wire.recording.fixture_file import FixtureWriter
from adbwire.wire.recording.packet_stream import PacketSplitter
from adbwire.wire.recording.stream_log import StreamLog
from adbwire.wire.transport import Transport

if TYPE_CHECKING:
    from adbwire.wire.keys import AdbKey
    from adbwire.wire.timeouts import Deadline

log = logging.getLogger(__name__)


class RecordingTransport:
    """Wraps `inner`; writes the session to `path` (overwritten) in the fixture format."""

    def __init__(
        self,
        inner: Transport,
        path: str | os.PathLike[str],
        *,
        origin: str = ORIGIN_REAL,
        note: str = "",
        redact_serial: bool | str = False,
    ) -> None:
        self.inner = inner
        self.path = Path(path)
        self._writer = FixtureWriter(self.path)
        self._log = StreamLog(
            self._writer,
            origin=origin,
            note=note,
            transport=inner.kind,
            redact_serial=redact_serial,
            transport_serial=inner.address if inner.kind == "usb" else None,
        )
        self._from_device = PacketSplitter("device to host")
        self._from_host = PacketSplitter("host to device")
        self._lock = threading.Lock()
        self._closing = False
        self.recording_error: BaseException | None = None
        """Why the recording stopped early, if it did (the session itself went on)."""

    @property
    def kind(self) -> str:
        return self.inner.kind

    @property
    def address(self) -> str:
        return self.inner.address

    def connect(self, timeout: float) -> None:
        try:
            self.inner.connect(timeout)
        except BaseException as exc:
            self._finish("host", f"connect failed: {exc}")
            raise

    def read_exactly(self, size: int) -> bytes | bytearray:
        try:
            data = self.inner.read_exactly(size)
        except DisconnectedError as exc:
            by = "host" if self._closing else "device"
            self._finish(by, "" if self._closing else str(exc))
            raise
        self._record(self._from_device, data, device=True)
        return data

    def write_packet(self, header: bytes, payload: bytes | bytearray | memoryview) -> None:
        self._record(self._from_host, header, device=False)
        if payload:
            self._record(self._from_host, payload, device=False)
        self.inner.write_packet(header, payload)

    def start_tls(self, keys: Sequence[AdbKey], deadline: Deadline) -> None:
        """Upgrade the inner link; the recording stays at the packet level, above TLS."""
        start_tls = getattr(self.inner, "start_tls", None)
        if start_tls is None:
            raise RemoteProtocolError(
                f"{self.address} asks for TLS, which a {self.kind} link does not carry"
            )
        start_tls(keys, deadline)

    def close(self) -> None:
        self._closing = True
        try:
            self.inner.close()
        finally:
            self._finish("host", "")

    def note_call(self, name: str, args: dict[str, Any], result: dict[str, Any]) -> None:
        """Add a `call` line: what the caller asked and got (read by test drivers).

        Allowed after the connection ended (noting that connecting failed, say)."""
        with self._lock:
            if self.recording_error is not None:
                return
            try:
                self._log.call(name, args, result)
            except Exception as exc:
                self.recording_error = exc
                log.error("recording to %s stopped: %s", self.path, exc)

    # ----------------------------------------------------------- helpers

    def _record(
        self, splitter: PacketSplitter, data: bytes | bytearray | memoryview, *, device: bool
    ) -> None:
        def work() -> None:
            for packet in splitter.feed(data):
                self._packet(packet, device=device)

        self._guarded(work)

    def _packet(self, packet: P.Packet, *, device: bool) -> None:
        if device:
            self._log.device_packet(packet)
        else:
            self._log.host_packet(packet)

    def _finish(self, by: str, reason: str) -> None:
        # The device's address is not the fixture's business (it may be a private IP).
        reason = reason.replace(self.inner.address, "<address>")

        def work() -> None:
            self._log.end("device" if by == "device" else "host", reason)

        self._guarded(work)
        with self._lock:
            self._writer.close()

    def _guarded(self, work: Callable[[], None]) -> None:
        with self._lock:
            if self.recording_error is not None or self._log.ended:
                return
            try:
                work()
            except Exception as exc:
                self.recording_error = exc
                log.error("recording to %s stopped: %s (the session goes on)", self.path, exc)
                self._writer.close()
