"""framebuffer: on the simulated device: a version-2 fbinfo header, then screencap's pixels."""

from __future__ import annotations

import struct
from collections.abc import Iterator

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice, running_device
from adbwire.testing.userland import BufferIO, Userland
from tests.simulator.protocol_peer import online_peer


@pytest.fixture
def device() -> Iterator[SimulatedDevice]:
    with running_device(DeviceOptions(accept_any_key=True)) as simulated:
        yield simulated


def test_framebuffer_sends_the_header_then_the_screen(device: SimulatedDevice) -> None:
    userland = device.userland
    assert isinstance(userland, Userland)
    io = BufferIO()
    assert userland.run("screencap", io) == 0
    raw = bytes(io.stdout)
    width, height, pixel_format, color_space = struct.unpack_from("<4I", raw)
    with online_peer(device.address) as peer:
        frame = peer.open_ok("framebuffer:").read_all()
    header = struct.unpack_from("<14I", frame)
    size = width * height * 4
    assert header == (2, 32, color_space, size, width, height, 0, 8, 16, 8, 8, 8, 24, 8)
    assert pixel_format == 1
    assert frame[56:] == raw[16:]
    assert len(frame) == 56 + size


def test_framebuffer_follows_the_screen_state(device: SimulatedDevice) -> None:
    userland = device.userland
    assert isinstance(userland, Userland)
    with online_peer(device.address) as peer:
        awake = peer.open_ok("framebuffer:").read_all()
    userland.run("input keyevent KEYCODE_SLEEP", BufferIO())
    with online_peer(device.address) as peer:
        asleep = peer.open_ok("framebuffer:").read_all()
    assert awake[:56] == asleep[:56]
    assert set(asleep[56:]) <= {0, 255}  # black, opaque
    assert awake[56:] != asleep[56:]
