"""Services on the device's worker pool: threads reused, blocked services harmless, teardown."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.testing import connection as connection_module
from adbwire.testing.device_state import ProcessIO
from adbwire.testing.services.base import ServiceContext, ServiceHandler
from adbwire.testing.stream import DeviceStream
from adbwire.wire import packets as P
from tests.simulator.protocol_peer import HostPeer, online_peer
from tests.simulator.protocol_standin import StandinUserland

DeviceFactory = Callable[..., SimulatedDevice]
TIMEOUT = 10.0


class RecordingUserland(StandinUserland):
    """Remembers which thread ran each command; `linger` and `stuck` outlive their stream."""

    release = threading.Event()

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.threads: list[threading.Thread] = []
        self.started = threading.Event()

    def run(self, command_line: str, io: ProcessIO, *, pty: bool = False) -> int:
        self.threads.append(threading.current_thread())
        if command_line == "linger":  # stops only once cancelled *and* released
            self.started.set()
            while not io.cancelled:
                self.cancelled_seen.wait(0.01)
            assert self.release.wait(TIMEOUT)
            return 0
        if command_line == "stuck":  # ignores its stream entirely
            self.started.set()
            assert self.release.wait(TIMEOUT)
            return 0
        return super().run(command_line, io, pty=pty)


@pytest.fixture
def device(sim_device_factory: DeviceFactory) -> SimulatedDevice:
    RecordingUserland.release = threading.Event()
    return sim_device_factory(DeviceOptions(accept_any_key=True), RecordingUserland)


def userland(device: SimulatedDevice) -> RecordingUserland:
    assert isinstance(device.userland, RecordingUserland)
    return device.userland


def test_streams_one_after_another_reuse_worker_threads(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        for index in range(20):
            assert peer.open_ok(f"shell:echo {index}").read_all() == f"{index}\n".encode()
    threads = userland(device).threads
    assert len(threads) == 20
    assert len(set(threads)) <= 3, "a thread per stream instead of reused workers"
    assert all(thread.name.startswith("adbd-sim worker") for thread in threads)


def test_blocked_services_do_not_starve_new_streams(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        waiting = [peer.open_ok("shell:wait") for _ in range(16)]
        assert peer.open_ok("shell:echo still served").read_all() == b"still served\n"
        for stream in waiting:
            stream.close()
    assert device.wait_for_connections(0, TIMEOUT)


def test_teardown_waits_for_the_connections_services(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        peer.open_ok("shell:linger")
        assert userland(device).started.wait(TIMEOUT)
    assert not device.wait_for_connections(0, 0.3), "the connection ended before its service"
    RecordingUserland.release.set()
    assert device.wait_for_connections(0, TIMEOUT)


def test_teardown_gives_up_on_a_stuck_service_and_says_so(
    device: SimulatedDevice, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(connection_module, "SERVICE_JOIN_TIMEOUT", 0.2)
    with online_peer(device.address) as peer:
        peer.open_ok("shell:stuck")
        assert userland(device).started.wait(TIMEOUT)
    assert device.wait_for_connections(0, TIMEOUT)
    assert "service shell:stuck did not stop after its stream closed" in caplog.text
    RecordingUserland.release.set()  # the device fixture's stop then joins the worker


def test_a_failing_service_is_logged_and_its_stream_closed(
    device: SimulatedDevice, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken_service(name: str, context: ServiceContext) -> ServiceHandler:
        def serve(stream: DeviceStream) -> None:
            raise RuntimeError("service boom")

        return serve

    monkeypatch.setattr(connection_module, "open_service", broken_service)
    with online_peer(device.address) as peer:
        stream = peer.open_ok("anything:")
        closed = peer.expect(P.A_CLSE)
        assert (closed.arg0, closed.arg1) == (stream.remote, stream.local)
    assert "service 'anything:' failed" in caplog.text
    assert "service boom" in caplog.text


def test_stop_joins_the_workers_of_blocked_services(sim_device_factory: DeviceFactory) -> None:
    earlier = set(threading.enumerate())  # another test's leftovers are not this device's
    device = SimulatedDevice(DeviceOptions(accept_any_key=True), userland_factory=StandinUserland)
    device.start()
    peer = HostPeer(device.address)
    peer.handshake()
    for _ in range(6):
        peer.open_ok("shell:wait")
    device.stop()
    assert not [
        t for t in threading.enumerate() if t.name.startswith("adbd-sim") and t not in earlier
    ]
    peer.close()
