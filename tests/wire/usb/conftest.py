"""Fixtures for the USB tests: a fake bus, and no peeking at the real machine's sysfs."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from adbwire.wire.usb import discovery
from adbwire.wire.usb.transport import UsbTransport

from .fake_usb import FakeContext, FakeDevice

POLL = 0.02


@pytest.fixture(autouse=True)
def _empty_sysfs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Serial numbers come from the fake devices, never from this machine's /sys."""
    root = tmp_path / "sysfs"
    root.mkdir()
    monkeypatch.setattr(discovery, "LINUX_SYSFS_DEVICES", root)
    return root


@pytest.fixture
def device() -> FakeDevice:
    return FakeDevice()


@pytest.fixture
def context(device: FakeDevice) -> FakeContext:
    return FakeContext(device)


def make_transport(
    context: FakeContext, serial: str | None = None, **options: object
) -> UsbTransport:
    options.setdefault("poll_interval", POLL)
    return UsbTransport(serial, context=context, **options)  # type: ignore[arg-type]


@pytest.fixture
def transport(context: FakeContext) -> Iterator[UsbTransport]:
    usb = make_transport(context)
    usb.connect(2.0)
    yield usb
    usb.close()


def read_within(usb: UsbTransport, size: int, timeout: float = 2.0) -> bytes | bytearray:
    """`usb.read_exactly(size)`, failing the test (not hanging it) if it does not return."""
    results: list[bytes | bytearray] = []
    errors: list[BaseException] = []

    def read() -> None:
        try:
            results.append(usb.read_exactly(size))
        except BaseException as exc:
            errors.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    if reader.is_alive():
        usb.close()
        reader.join(2.0)
        raise AssertionError(f"reading {size} bytes did not finish within {timeout}s")
    if errors:
        raise errors[0]
    return results[0]
