"""Shared by the record/replay tests: a simulated device to record, and transport spies."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.wire import packets as P
from adbwire.wire.client import AdbClient
from adbwire.wire.connection import Connection, Signer
from adbwire.wire.recording import ORIGIN_SIMULATED, Event, FixtureHeader, RecordingTransport
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.transport import TcpTransport, Transport
from tests.simulator.protocol_standin import StandinUserland

DeviceFactory = Callable[..., SimulatedDevice]
TIMEOUTS = Timeouts(connect=10, auth=10, operation=10)


def standin_device(factory: DeviceFactory, **options: Any) -> SimulatedDevice:
    """A simulated device with the protocol tests' small userland (echo, cat, bytes N...)."""
    options.setdefault("accept_any_key", True)
    return factory(DeviceOptions(**options), StandinUserland)


def tcp_to(device: SimulatedDevice) -> TcpTransport:
    return TcpTransport("127.0.0.1", device.port, io_timeout=10)


@contextlib.contextmanager
def recorded_client(
    device: SimulatedDevice,
    path: Path,
    keys: list[Signer],
    *,
    max_payload: int = P.MAX_PAYLOAD,
    **recording: Any,
) -> Iterator[tuple[AdbClient, RecordingTransport]]:
    """A client on `device` whose session is recorded to `path` (closed on exit)."""
    recording.setdefault("origin", ORIGIN_SIMULATED)
    transport = RecordingTransport(tcp_to(device), path, **recording)
    connection = Connection.open(transport, keys, timeouts=TIMEOUTS, max_payload=max_payload)
    client = AdbClient(connection)
    try:
        yield client, transport
    finally:
        client.close()


def client_on(
    transport: Transport, keys: list[Signer], max_payload: int = P.MAX_PAYLOAD
) -> AdbClient:
    return AdbClient(Connection.open(transport, keys, timeouts=TIMEOUTS, max_payload=max_payload))


class SpyTransport:
    """Passes everything through to `inner` and remembers what passed, in order."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.traffic: list[tuple[str, bytes]] = []

    @property
    def kind(self) -> str:
        return self.inner.kind

    @property
    def address(self) -> str:
        return self.inner.address

    def connect(self, timeout: float) -> None:
        self.inner.connect(timeout)

    def read_exactly(self, size: int) -> bytes | bytearray:
        data = self.inner.read_exactly(size)
        self.traffic.append(("in", bytes(data)))
        return data

    def write_packet(self, header: bytes, payload: bytes | bytearray | memoryview) -> None:
        self.traffic.append(("out", bytes(header) + bytes(payload)))
        self.inner.write_packet(header, payload)

    def close(self) -> None:
        self.inner.close()


class ListSink:
    """A StreamLog sink that keeps what it is given."""

    def __init__(self) -> None:
        self.header: FixtureHeader | None = None
        self.events: list[Event] = []

    def write_header(self, header: FixtureHeader) -> None:
        assert self.header is None, "the header is written once"
        self.header = header

    def write_event(self, event: Event) -> None:
        assert self.header is not None, "the header comes first"
        self.events.append(event)
