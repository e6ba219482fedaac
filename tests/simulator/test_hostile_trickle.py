"""Trickle (Faults.trickle): output leaves one byte per WRTE, an interval apart."""

from __future__ import annotations

import io
import time
from pathlib import Path

from adbwire.testing import DeviceFiles, DeviceOptions, running_device
from adbwire.wire import packets as P
from tests.simulator.hostile_helpers import hostile_device
from tests.simulator.protocol_peer import online_peer

INTERVAL = 0.05


def test_sync_recv_data_trickles_one_byte_per_write(tmp_path: Path) -> None:
    files = DeviceFiles(tmp_path)
    files.write_bytes("/sdcard/slow.txt", b"abcd")
    with (
        running_device(DeviceOptions(accept_any_key=True), files=files) as device,
        online_peer(device.address) as peer,
    ):
        device.faults.trickle("sync:", interval=INTERVAL)
        stream = peer.open_ok("sync:")
        started = time.monotonic()
        stream.write(b"RECV" + len(b"/sdcard/slow.txt").to_bytes(4, "little") + b"/sdcard/slow.txt")
        payloads: list[bytes] = []
        expected = b"DATA\x04\x00\x00\x00abcdDONE\x00\x00\x00\x00"
        while len(b"".join(payloads)) < len(expected):
            packet = peer.expect(P.A_WRTE)
            payloads.append(packet.payload)
            stream.okay()
        elapsed = time.monotonic() - started
    assert b"".join(payloads) == expected
    assert {len(payload) for payload in payloads} == {1}
    assert elapsed >= (len(expected) - 1) * INTERVAL  # a lower bound only: never early


def test_shell_v2_output_trickles_framing_included() -> None:
    with hostile_device() as (device, client):
        device.faults.trickle("shell", interval=INTERVAL)
        started = time.monotonic()
        result = client.shell("echo hello", timeout=30)
        elapsed = time.monotonic() - started
        assert (result.stdout, result.exit_code) == (b"hello\n", 0)
        # stdout packet (5 + 6 bytes) and exit packet (5 + 1): 17 one-byte WRTEs.
        assert elapsed >= 16 * INTERVAL


def test_pull_keeps_going_past_its_idle_timeout_while_bytes_trickle(tmp_path: Path) -> None:
    """What item 5 of #14 is about: each byte resets the idle timeout, so a pull of a
    20-byte wire exchange at 0.25 s per byte (4.75 s in all) outlasts a 3 s idle timeout
    (twelve intervals: room for a loaded machine's scheduling delays)."""
    files = DeviceFiles(tmp_path)
    files.write_bytes("/sdcard/slow.txt", b"abcd")
    with hostile_device(files=files) as (device, client):
        device.faults.trickle("sync:", interval=0.25)
        sink = io.BytesIO()
        started = time.monotonic()
        client.pull_stream("/sdcard/slow.txt", sink, timeout=3.0)
        assert time.monotonic() - started >= 19 * 0.25
        assert sink.getvalue() == b"abcd"
        device.faults.reset()
        assert client.shell("echo fast").stdout == b"fast\n"
