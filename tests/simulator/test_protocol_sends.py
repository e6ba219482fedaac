"""A shell's exit packet and its CLSE leave in one send when flow control allows, with the same
packets, flow control and faults as two sends."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.testing.faults import Faults
from adbwire.testing.stream import DeviceStream, OutgoingPacket, StreamClosed
from adbwire.wire import packets as P
from tests.simulator.protocol_peer import DELAYED_BANNER, HostPeer, online_peer, shell_packet
from tests.simulator.protocol_standin import StandinUserland

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

DeviceFactory = Callable[..., SimulatedDevice]
WINDOW = 1 << 20
STDOUT, EXIT = 1, 3


@pytest.fixture
def device(sim_device_factory: DeviceFactory) -> SimulatedDevice:
    return sim_device_factory(DeviceOptions(accept_any_key=True), StandinUserland)


class RecordingSink:
    """A connection stand-in that records each send call."""

    def __init__(self) -> None:
        self.calls: list[list[tuple[int, int, int, bytes]]] = []
        self.forgotten: list[int] = []

    def send_packet(
        self, command: int, arg0: int, arg1: int, payload: ReadableBuffer = b""
    ) -> None:
        self.calls.append([(command, arg0, arg1, bytes(payload))])

    def send_packets(self, packets: Sequence[OutgoingPacket]) -> None:
        self.calls.append([(c, a0, a1, bytes(p)) for c, a0, a1, p in packets])

    def forget_stream(self, local_id: int) -> None:
        self.forgotten.append(local_id)


def test_write_and_close_is_one_send_when_credit_allows() -> None:
    sink = RecordingSink()
    stream = DeviceStream(sink, 5, 9, "shell:", max_payload=4096, send_window=100, faults=Faults())
    stream.write(b"output")
    stream.write_and_close(b"last")
    assert sink.calls == [
        [(P.A_WRTE, 5, 9, b"output")],
        [(P.A_WRTE, 5, 9, b"last"), (P.A_CLSE, 5, 9, b"")],
    ]
    assert sink.forgotten == [5]
    assert stream.closed
    with pytest.raises(StreamClosed):
        stream.write(b"more")


def test_write_and_close_without_credit_sends_after_the_okay() -> None:
    sink = RecordingSink()
    stream = DeviceStream(sink, 5, 9, "shell:", max_payload=4096, send_window=None, faults=Faults())
    stream.write(b"output")  # in flight until the host's OKAY
    closer = threading.Thread(target=stream.write_and_close, args=(b"last",))
    closer.start()
    try:
        deadline = time.monotonic() + 10
        while not stream._outbox.size:  # "last" waits in the queue (no public sign of it)
            assert time.monotonic() < deadline
            threading.Event().wait(0.001)
        assert sink.calls == [[(P.A_WRTE, 5, 9, b"output")]]
        stream.on_okay(None)
    finally:
        closer.join(10)
    assert not closer.is_alive()
    assert sink.calls[1:] == [[(P.A_WRTE, 5, 9, b"last")], [(P.A_CLSE, 5, 9, b"")]]


def test_without_delayed_ack_the_exit_packet_still_waits_for_okay(
    device: SimulatedDevice,
) -> None:
    with online_peer(device.address) as peer:
        stream = peer.open_ok("shell,v2,raw:echo hi")
        assert peer.expect(P.A_WRTE).payload == shell_packet(STDOUT, b"hi\n")
        assert peer.nothing_within(0.2), "a second WRTE before our OKAY breaks flow control"
        stream.okay()
        assert peer.expect(P.A_WRTE).payload == shell_packet(EXIT, b"\0")
        closed = peer.expect(P.A_CLSE)  # CLSE does not wait for the last OKAY (like adbd)
        assert (closed.arg0, closed.arg1) == (stream.remote, stream.local)


def test_exit_without_credit_waits_then_closes(device: SimulatedDevice) -> None:
    with online_peer(device.address, banner=DELAYED_BANNER) as peer:
        stream = peer.open_ok("shell,v2,raw:echo hi", window=8)  # enough for stdout only
        assert peer.expect(P.A_WRTE).payload == shell_packet(STDOUT, b"hi\n")
        assert peer.nothing_within(0.2), "the exit packet went out without credit"
        stream.okay(8)
        assert peer.expect(P.A_WRTE).payload == shell_packet(EXIT, b"\0")
        assert peer.expect(P.A_CLSE).arg1 == stream.local


def test_a_sent_bytes_limit_inside_the_joined_send_cuts_exactly_there(
    device: SimulatedDevice,
) -> None:
    with HostPeer(device.address) as peer:
        cnxn = peer.handshake(banner=DELAYED_BANNER)
        handshake = 2 * P.HEADER_SIZE + 20 + len(cnxn.payload)  # AUTH token, CNXN
        okay = P.HEADER_SIZE + 4
        stdout = P.HEADER_SIZE + len(shell_packet(STDOUT, b"hi\n"))
        exit_packet = P.HEADER_SIZE + len(shell_packet(EXIT, b"\0"))
        device.faults.drop_after_sent_bytes = handshake + okay + stdout + exit_packet + 10
        peer.send(P.A_OPEN, peer.new_id(), WINDOW, b"shell,v2,raw:echo hi\0")
        peer.sock.settimeout(10)
        received = b""
        while chunk := peer.sock.recv(65536):
            received += chunk
    assert len(received) == okay + stdout + exit_packet + 10, "cut 10 bytes into the CLSE"
    assert received[-10:-6] == b"CLSE"
    assert device.wait_for_connections(0, 5)


def test_a_response_delay_still_applies_to_each_packet(device: SimulatedDevice) -> None:
    with online_peer(device.address, banner=DELAYED_BANNER) as peer:
        device.faults.response_delay = 0.4
        peer.open_ok("shell,v2,raw:echo hi", window=WINDOW)
        assert peer.expect(P.A_WRTE).payload == shell_packet(STDOUT, b"hi\n")
        peer.expect(P.A_WRTE)
        exit_seen = time.monotonic()
        peer.expect(P.A_CLSE)
        # 0.2 s below the delay: this thread may be scheduled late after the exit packet.
        assert time.monotonic() - exit_seen >= 0.2, "CLSE was not delayed on its own"
        device.faults.response_delay = 0.0
