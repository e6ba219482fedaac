"""Hot-plug: devices plugged in or out after start-up are noticed, through libusb's
callbacks where the platform has them and by re-scanning where it does not."""

from __future__ import annotations

import queue

import pytest
import usb1

from adbwire.errors import AdbTimeoutError
from adbwire.wire.usb import STATE_AVAILABLE, STATE_NO_PERMISSIONS, UsbDeviceInfo, UsbMonitor

from .fake_usb import FakeContext, FakeDevice

Changes = queue.Queue[list[UsbDeviceInfo]]
EVENT_WAIT = 10.0
"""Seconds for a change to be heard: far less than the 30 s rescan interval below."""


def serials(changes: Changes) -> list[str | None]:
    return [device.serial for device in changes.get(timeout=EVENT_WAIT)]


@pytest.mark.parametrize(
    ("hotplug", "interval", "mode"),
    # With callbacks, a long interval proves that the event (not a timer) woke the monitor.
    [(True, 30.0, "hotplug"), (False, 0.05, "rescan")],
)
def test_monitor_hears_devices_come_and_go(hotplug: bool, interval: float, mode: str) -> None:
    context = FakeContext(FakeDevice("OLD", ports=(1,)), hotplug=hotplug)
    changes: Changes = queue.Queue()
    with UsbMonitor(context=context, on_change=changes.put, rescan_interval=interval) as monitor:
        assert monitor.mode == mode
        assert serials(changes) == ["OLD"]
        new = FakeDevice("NEW", ports=(2,))
        context.plug(new)
        assert serials(changes) == ["OLD", "NEW"]
        context.unplug(new)
        assert serials(changes) == ["OLD"]
        assert [d.serial for d in monitor.devices()] == ["OLD"]
    assert monitor.mode == "stopped"
    assert context._callbacks == {}  # deregistered


def test_wait_for_a_device_and_give_up_in_time() -> None:
    context = FakeContext(hotplug=True)
    with UsbMonitor(context=context, rescan_interval=30.0) as monitor:
        with pytest.raises(AdbTimeoutError, match="waiting for a USB device"):
            monitor.wait_for(bool, timeout=0.1)
        context.plug(FakeDevice("LATE"))
        found = monitor.wait_for(bool, timeout=EVENT_WAIT)
        assert [d.serial for d in found] == ["LATE"]


def test_a_device_waiting_for_udev_is_looked_at_again() -> None:
    phone = FakeDevice("SLOWUDEV", open_error=usb1.USBErrorAccess)
    context = FakeContext(phone, hotplug=True)
    changes: Changes = queue.Queue()
    with UsbMonitor(context=context, on_change=changes.put, rescan_interval=0.05):
        assert [d.state for d in changes.get(timeout=EVENT_WAIT)] == [STATE_NO_PERMISSIONS]
        phone.open_error = None  # udev applied the rule; no hot-plug event says so
        assert [d.state for d in changes.get(timeout=EVENT_WAIT)] == [STATE_AVAILABLE]
