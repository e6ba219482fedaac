"""Fuzz the host protocol state machine with packet sequences a device might send: every
sequence ends in events or a device-fault error (RemoteProtocolError, AuthRejectedError),
never in LocalProtocolError (a bug of ours) or any other exception."""

from __future__ import annotations

import hypothesis
from hypothesis import example, given
from hypothesis import strategies as st

from adbwire.errors import AuthRejectedError, RemoteProtocolError
from adbwire.wire import packets as P
from adbwire.wire.banner import host_banner
from adbwire.wire.protocol import ConnectionState, HostProtocol, StreamData, StreamWritable
from tests.fuzz.strategies import FUZZ

# Weighted towards stream packets: a handshake packet once online ends the sequence.
DEVICE_COMMANDS = (
    [P.A_OKAY] * 4
    + [P.A_WRTE] * 4
    + [P.A_CLSE] * 2
    + [
        P.A_CNXN,
        P.A_AUTH,
        P.A_OPEN,
        P.A_SYNC,
    ]
)
REMOTE_ID = 7
SMALL_IDS = st.sampled_from([1, 2, REMOTE_ID, 0]) | st.integers(0, 0xFFFFFFFF)
ONLINE_BANNERS = [b"device::features=delayed_ack", b"device::features=shell_v2"]
BANNERS = st.sampled_from(
    [
        b"device::ro.product.model=x;features=shell_v2,delayed_ack",
        b"device::features=shell_v2",
        b"",
        b"garbage",
    ]
)


@st.composite
def device_packets(draw: st.DrawFn) -> tuple[int, int, int, bytes]:
    command = draw(st.sampled_from(DEVICE_COMMANDS))
    if command == P.A_CNXN:
        payload = draw(BANNERS | st.binary(max_size=64))
    elif command == P.A_OKAY:
        payload = draw(st.sampled_from([b"", b"\x00\x00\x10\x00", b"\xff\xff\xff\xff"]))
    else:
        payload = draw(st.binary(max_size=64))
    return command, draw(SMALL_IDS), draw(SMALL_IDS), payload


@FUZZ
@given(
    st.sampled_from(["connecting", "online", "stream open"]),
    st.sampled_from(ONLINE_BANNERS),
    st.lists(st.tuples(st.booleans(), device_packets()), max_size=24),
)
@example(  # found by CI: an OKAY taking credit back (a negative count) woke a writer
    start="online",
    banner=b"device::features=delayed_ack",
    steps=[
        (False, (P.A_OKAY, 1, 1, b"")),
        (True, (P.A_OKAY, 1, 1, b"")),
        (True, (P.A_OKAY, 1, 2, b"\xff\xff\xff\xff")),
        (False, (P.A_OKAY, 1, 2, b"\xff\xff\xff\xff")),
    ],
)
def test_any_device_packet_sequence_gives_events_or_a_device_fault(
    start: str, banner: bytes, steps: list[tuple[bool, tuple[int, int, int, bytes]]]
) -> None:
    protocol = HostProtocol(host_banner(("shell_v2", "delayed_ack")))
    protocol.connect_packet()
    if start != "connecting":  # most of the state machine is past the handshake
        online = P.Header(P.A_CNXN, P.VERSION_SKIP_CHECKSUM, P.MAX_PAYLOAD, len(banner), 0)
        protocol.receive(online, banner)
    if start == "stream open":
        local_id, _open = protocol.open("shell:echo")
        credit = (1 << 20).to_bytes(4, "little") if protocol.delayed_ack else b""
        protocol.receive(P.Header(P.A_OKAY, REMOTE_ID, local_id, len(credit), 0), credit)
    received = 0
    try:
        for open_first, (command, arg0, arg1, payload) in steps:
            if open_first and protocol.state is ConnectionState.ONLINE:
                protocol.open("shell:echo")
            header = P.Header(command, arg0, arg1, len(payload), 0)
            protocol.check_payload(header, payload)
            for event in protocol.receive(header, payload):
                hypothesis.event(type(event).__name__)
                if isinstance(event, StreamData):
                    assert len(event.payload) == len(payload)
                    received += len(event.payload)
                if isinstance(event, StreamWritable):
                    assert protocol.can_write(event.local_id), f"{event} but no credit"
            assert len(protocol.streams) <= len(steps) + 1
    except (RemoteProtocolError, AuthRejectedError):
        return
    assert received <= sum(len(step[1][3]) for step in steps)
