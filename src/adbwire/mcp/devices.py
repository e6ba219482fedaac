"""The devices this server knows, their connections, and each session's default device.

TCP devices come from ``--connect``/``--device HOST:PORT`` and the ``connect_device`` tool;
the in-process simulator is a TCP device too. Other sources plug in through
:class:`DeviceSource` (the seam for USB: ``adbwire.wire.usb`` provides one that scans the
bus; ``refresh()`` calls ``scan()`` whenever devices are listed or resolved, which is how
hot-plugged devices appear).

Connections are made in background threads so that a device waiting for the user to accept
"Allow USB debugging?" never blocks a tool call for long: the call reports
``device_unauthorized`` and the connection keeps waiting for the user.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from adbwire.errors import (
    AdbTimeoutError,
    AdbwireError,
    AuthPendingError,
    ConnectionClosedError,
    UsageError,
)
from adbwire.wire.aio import DEVICE_CONCURRENCY, DEVICE_QUEUE, DeviceLane
from adbwire.wire.client import AdbClient
from adbwire.wire.connection import Signer
from adbwire.wire.protocol import ConnectionState
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.transport import TcpTransport, Transport, parse_tcp_address, stall_timeout

log = logging.getLogger(__name__)

Opener = Callable[[Callable[[ConnectionState], None]], AdbClient]
TransportWrapper = Callable[[Transport], Transport]


class DeviceSource(Protocol):
    """A kind of device found by scanning (USB). TCP devices are added explicitly."""

    kind: str

    def scan(self) -> list[str]:
        """Serials present right now."""
        ...

    def open(
        self,
        serial: str,
        keys: Sequence[Signer],
        timeouts: Timeouts,
        on_state: Callable[[ConnectionState], None],
    ) -> AdbClient: ...


@dataclass(frozen=True)
class DeviceRecord:
    serial: str
    kind: str
    state: str
    """device, connecting, unauthorized or offline."""
    model: str | None
    error: str | None


class _Attempt:
    """One connection attempt: its callers wait for it and read its own outcome, so a caller
    never sees the state of an attempt that another caller started after it."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.settled = threading.Event()
        """Set when the attempt ended or waits for the user to allow debugging."""
        self.client: AdbClient | None = None
        self.error: AdbwireError | None = None


class _Entry:
    def __init__(
        self, serial: str, kind: str, opener: Opener, lane_limits: tuple[int, int]
    ) -> None:
        self.serial = serial
        self.kind = kind
        self.opener = opener
        self.client: AdbClient | None = None
        self.state = "offline"
        self.error: AdbwireError | None = None
        self.attempt: _Attempt | None = None
        """The attempt under way, None when none is."""
        self.reports_emulator: bool | None = None
        self.lock = threading.Lock()
        concurrency, queue = lane_limits
        self.lane = DeviceLane(serial, concurrency=concurrency, queue=queue)
        self.closed = False

    def healthy(self) -> bool:
        client = self.client
        return client is not None and client.alive

    def ready_client(self) -> AdbClient | None:
        """The connected client, without waiting; None if it must (re)connect."""
        client = self.client
        if client is not None and client.alive:
            return client
        return None

    def start(self) -> _Attempt | None:
        """Join the attempt under way or start one; None when already connected."""
        with self.lock:
            if self.attempt is not None:
                return self.attempt
            if self.healthy():
                return None
            if self.client is not None:
                self.client.close()
                self.client = None
            self.state = "connecting"
            attempt = self.attempt = _Attempt()
        thread = threading.Thread(
            target=self._connect, args=(attempt,), name=f"adbwire-connect-{self.serial}"
        )
        thread.daemon = True
        thread.start()
        return attempt

    def _connect(self, attempt: _Attempt) -> None:
        def on_state(state: ConnectionState) -> None:
            if state is ConnectionState.UNAUTHORIZED:
                self.state = "unauthorized"
                attempt.settled.set()

        client: AdbClient | None = None
        error: AdbwireError | None = None
        try:
            client = self.opener(on_state)
        except AdbwireError as exc:
            error = exc
            log.info("%s: %s", self.serial, exc)
        except Exception as exc:
            log.exception("%s: unexpected error while connecting", self.serial)
            error = AdbwireError(f"{self.serial}: {type(exc).__name__}")
        finally:
            with self.lock:
                if self.closed and client is not None:  # removed while connecting
                    client.close()
                    client, error = None, ConnectionClosedError(f"{self.serial} was removed")
                attempt.client, attempt.error = client, error
                self.attempt = None
                if client is not None:
                    self.client, self.state, self.error = client, "device", None
                else:
                    self.error = error
                    self.state = (
                        "unauthorized" if isinstance(error, AuthPendingError) else "offline"
                    )
            attempt.done.set()
            attempt.settled.set()

    def record(self) -> DeviceRecord:
        state = self.state
        if state == "device" and not self.healthy():
            state = "offline"
        model = self.client.banner.model if self.client is not None and state == "device" else None
        error = str(self.error) if self.error is not None and state != "device" else None
        return DeviceRecord(self.serial, self.kind, state, model, error)

    def close(self) -> None:
        with self.lock:
            self.closed = True
            if self.client is not None:
                self.client.close()
                self.client = None
            self.state = "offline"


class DeviceRegistry:
    def __init__(
        self,
        keys: Callable[[], Sequence[Signer]],
        *,
        timeouts: Timeouts | None = None,
        connect_wait: float = 10.0,
        lane_concurrency: int = DEVICE_CONCURRENCY,
        lane_queue: int = DEVICE_QUEUE,
    ) -> None:
        """`lane_concurrency` calls to one device run at once, `lane_queue` more wait; one
        more gets DeviceQueueFullError (device_busy)."""
        self._keys = keys
        self.lane_limits = (lane_concurrency, lane_queue)
        self._loaded_keys: Sequence[Signer] | None = None
        self.timeouts = timeouts or Timeouts(connect=10.0, auth=600.0, operation=30.0)
        self.connect_wait = connect_wait
        self._entries: dict[str, _Entry] = {}
        self._sources: list[DeviceSource] = []
        self._scanned_at = -math.inf
        self._lock = threading.Lock()

    def keys(self) -> Sequence[Signer]:
        if self._loaded_keys is None:
            self._loaded_keys = list(self._keys())
        return self._loaded_keys

    # ----------------------------------------------------------- adding devices

    def add_tcp(
        self,
        address: str,
        *,
        kind: str = "tcp",
        keys: Callable[[], Sequence[Signer]] | None = None,
        wrap: TransportWrapper | None = None,
    ) -> str:
        """Register a TCP device and start connecting; returns its serial ('host:port').
        `keys` overrides the host keys for this device (a simulator that needs none);
        `wrap` wraps its transport (recording)."""
        host, port = parse_tcp_address(address)
        serial = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"

        def opener(on_state: Callable[[ConnectionState], None]) -> AdbClient:
            signers = keys() if keys is not None else self.keys()
            transport: Transport = TcpTransport(
                host, port, io_timeout=stall_timeout(self.timeouts.operation)
            )
            if wrap is not None:
                transport = wrap(transport)
            return AdbClient.connect(transport, signers, timeouts=self.timeouts, on_state=on_state)

        return self._add(serial, kind, opener)

    def add_transport(
        self, serial: str, kind: str, transport: Callable[[], Transport], keys: Sequence[Signer]
    ) -> str:
        """Register a device reached through any transport (a replayed session)."""

        def opener(on_state: Callable[[ConnectionState], None]) -> AdbClient:
            return AdbClient.connect(transport(), keys, timeouts=self.timeouts, on_state=on_state)

        return self._add(serial, kind, opener)

    def add_source(self, source: DeviceSource) -> None:
        with self._lock:
            self._sources.append(source)

    def _add(self, serial: str, kind: str, opener: Opener) -> str:
        with self._lock:
            entry = self._entries.get(serial)
            if entry is None:
                entry = self._entries[serial] = _Entry(serial, kind, opener, self.lane_limits)
        entry.start()
        return serial

    def needs_refresh(self, max_age: float) -> bool:
        """Whether a source should be scanned again: there is one, and its last scan is
        older than `max_age` seconds (a scan blocks, and costs a worker thread)."""
        return bool(self._sources) and time.monotonic() - self._scanned_at >= max_age

    def refresh(self) -> None:
        """Pick up devices that sources see now (USB hot-plug)."""
        self._scanned_at = time.monotonic()
        for source in list(self._sources):
            try:
                serials = source.scan()
            except AdbwireError as exc:
                log.warning("scanning %s devices failed: %s", source.kind, exc)
                continue
            for serial in serials:
                if serial not in self._entries:
                    self._add(serial, source.kind, _source_opener(source, serial, self))

    def remove(self, serial: str) -> bool:
        with self._lock:
            entry = self._entries.pop(serial, None)
        if entry is None:
            return False
        entry.close()
        return True

    def close(self) -> None:
        with self._lock:
            entries, self._entries = list(self._entries.values()), {}
        for entry in entries:
            entry.close()

    # ----------------------------------------------------------- looking devices up

    def serials(self) -> list[str]:
        with self._lock:
            return sorted(self._entries)

    def records(self) -> list[DeviceRecord]:
        with self._lock:
            entries = sorted(self._entries.values(), key=lambda e: e.serial)
        return [entry.record() for entry in entries]

    def settle(self, timeout: float) -> None:
        """Wait up to `timeout` seconds for the connection attempts under way to end (or to
        wait for authorization), so a listing right after start-up is not all 'connecting'."""
        deadline = time.monotonic() + timeout
        with self._lock:
            attempts = [entry.attempt for entry in self._entries.values()]
        for attempt in attempts:
            if attempt is not None:
                attempt.settled.wait(max(0.0, deadline - time.monotonic()))

    def kind_of(self, serial: str) -> str | None:
        entry = self._entries.get(serial)
        return entry.kind if entry else None

    def client(self, serial: str, *, wait: float | None = None) -> AdbClient:
        """A working client for `serial`, (re)connecting if needed. Blocking.

        A device that cannot be reached raises its connection error (ConnectFailedError,
        AuthPendingError, ...) as soon as the attempt this call waits for has failed; only an
        attempt still running after `wait` seconds raises AdbTimeoutError.
        """
        entry = self._entry(serial)
        client = entry.ready_client()
        if client is not None:
            return client
        attempt = entry.start()
        if attempt is None:  # connected since we looked
            client = entry.ready_client()
            if client is not None:
                return client
            attempt = entry.start()
            if attempt is None:
                raise AdbTimeoutError(f"{serial}: the connection dropped while it was being made")
        if not attempt.done.wait(self.connect_wait if wait is None else wait):
            if entry.state == "unauthorized":
                raise AuthPendingError(
                    f"{serial} is waiting for 'Allow USB debugging?' to be accepted on the device"
                )
            raise AdbTimeoutError(f"{serial}: still connecting")
        if attempt.client is not None:
            return attempt.client
        if isinstance(attempt.error, AuthPendingError):
            raise AuthPendingError(
                f"{serial} is waiting for 'Allow USB debugging?' to be accepted on the device"
            )
        assert attempt.error is not None
        raise attempt.error

    def ready_client(self, serial: str) -> AdbClient | None:
        """The device's client if it is connected now (no waiting, no thread); else None."""
        return self._entry(serial).ready_client()

    def lane(self, serial: str) -> DeviceLane:
        """The device's own limits on concurrent calls (wire/aio.py)."""
        return self._entry(serial).lane

    def _entry(self, serial: str) -> _Entry:
        entry = self._entries.get(serial)
        if entry is None:
            raise UsageError(f"no device {serial!r}")
        return entry

    def cached_emulator_flag(self, serial: str) -> bool | None:
        entry = self._entries.get(serial)
        return entry.reports_emulator if entry else None

    def remember_emulator_flag(self, serial: str, value: bool) -> None:
        entry = self._entries.get(serial)
        if entry is not None:
            entry.reports_emulator = value


def _source_opener(source: DeviceSource, serial: str, registry: DeviceRegistry) -> Opener:
    def opener(on_state: Callable[[ConnectionState], None]) -> AdbClient:
        return source.open(serial, registry.keys(), registry.timeouts, on_state)

    return opener
