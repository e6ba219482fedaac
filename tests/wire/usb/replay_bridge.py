"""A recorded session's device (adbwire.wire.recording's ReplayDevice) behind the fake USB
endpoints, so a fixture is replayed through the real USB transport.

Host transfers must be framed as on a real gadget (see sim_bridge.py); the engine's answer
goes out as a header transfer and a payload transfer per packet. A mismatch with the
recording, or the recorded device hanging up, unplugs the fake device.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from adbwire.wire import packets as P
from adbwire.wire.recording.fixture_file import load_fixture
from adbwire.wire.recording.replay_device import ReplayDevice
from adbwire.wire.recording.script import build_script

from .fake_usb import FakeDevice

POLL = 0.1


def _send_outbox(device: FakeDevice, outbox: bytearray) -> None:
    while outbox:
        header = bytes(outbox[: P.HEADER_SIZE])
        length = P.decode_header(header, max_payload=P.MAX_PAYLOAD).length
        device.send_transfer(header)
        if length:
            device.send_transfer(bytes(outbox[P.HEADER_SIZE : P.HEADER_SIZE + length]))
        del outbox[: P.HEADER_SIZE + length]


@contextmanager
def replayed_device(
    device: FakeDevice, fixture: Path, *, strict: bool = True
) -> Iterator[list[BaseException]]:
    """Yields the list of errors (framing or replay mismatches) the device side saw."""
    engine = ReplayDevice(build_script(load_fixture(fixture)), strict=strict)
    stop = threading.Event()
    errors: list[BaseException] = []

    def serve() -> None:
        try:
            while not stop.is_set() and not engine.finished:
                try:
                    header = device.read_transfer(POLL)
                except TimeoutError:
                    continue
                assert len(header) == P.HEADER_SIZE, f"header transfer of {len(header)} bytes"
                decoded = P.decode_header(header, max_payload=P.MAX_PAYLOAD)
                payload = device.read_transfer(5.0) if decoded.length else b""
                assert len(payload) == decoded.length, f"payload transfer of {len(payload)}"
                engine.receive(P.Packet(decoded.command, decoded.arg0, decoded.arg1, payload))
                _send_outbox(device, engine.outbox)
        except EOFError:
            pass
        except BaseException as exc:
            errors.append(exc)
        finally:
            if engine.finished or errors:
                device.unplug()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield errors
    finally:
        stop.set()
        thread.join(timeout=5)
