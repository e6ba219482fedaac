"""Noticing devices that are plugged in or out while we run.

Where libusb supports hot-plug callbacks (Linux, macOS) the monitor thread handles libusb
events and re-scans when one arrives; elsewhere (Windows) it re-scans every
`rescan_interval` seconds. Callbacks only set a flag: libusb forbids opening devices from
inside them, and reading a serial number needs that. Devices listed as 'no permissions' are
looked at again on every interval, because on Linux udev may grant access a moment after
the device appears.

A plain `list_usb_devices()` call scans the bus afresh and needs no monitor; the monitor is
for long-running programs that want to hear about changes (or wait for a device).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable

import usb1

from adbwire.errors import AdbTimeoutError, AdbwireError
from adbwire.wire.usb.api import Usb1Context, Usb1Device
from adbwire.wire.usb.discovery import STATE_NO_PERMISSIONS, UsbDeviceInfo, list_usb_devices
from adbwire.wire.usb.library import shared_context

log = logging.getLogger(__name__)

ChangeListener = Callable[[list[UsbDeviceInfo]], None]


class UsbMonitor:
    """Keeps `devices()` current and calls `on_change(devices)` from its own thread."""

    def __init__(
        self,
        *,
        context: Usb1Context | None = None,
        on_change: ChangeListener | None = None,
        rescan_interval: float = 1.0,
        use_hotplug: bool | None = None,
    ) -> None:
        self._context = context
        self._on_change = on_change
        self._interval = rescan_interval
        self._use_hotplug = use_hotplug
        self._devices: list[UsbDeviceInfo] = []
        self._changed = threading.Condition()
        self._dirty = threading.Event()
        self._stop = threading.Event()
        self._scanned = threading.Event()
        self._thread: threading.Thread | None = None
        self._callback_handle: object | None = None
        self.error: AdbwireError | None = None
        self.mode = "stopped"

    def start(self) -> UsbMonitor:
        context = self._context = self._context or shared_context()
        hotplug = self._use_hotplug
        if hotplug is None:
            hotplug = bool(context.hasCapability(usb1.CAP_HAS_HOTPLUG))
        if hotplug:
            self._callback_handle = context.hotplugRegisterCallback(
                self._on_hotplug,
                events=usb1.HOTPLUG_EVENT_DEVICE_ARRIVED | usb1.HOTPLUG_EVENT_DEVICE_LEFT,
                flags=0,
            )
        self.mode = "hotplug" if hotplug else "rescan"
        self._rescan()
        self._thread = threading.Thread(target=self._run, name="adbwire-usb-monitor", daemon=True)
        self._thread.start()
        return self

    def _on_hotplug(self, _context: object, _device: Usb1Device, _event: int) -> bool:
        self._dirty.set()
        return False  # stay registered

    def _run(self) -> None:
        context = self._context
        assert context is not None
        while not self._stop.is_set():
            if self.mode == "hotplug":
                try:
                    context.handleEventsTimeout(self._interval)
                except usb1.USBErrorInterrupted:
                    pass
                except usb1.USBError as exc:
                    log.warning("libusb event handling failed (%s); re-scanning instead", exc)
                    self.mode = "rescan"
                if self._stop.is_set():
                    break
                if self._dirty.is_set() or self._waiting_for_permissions():
                    self._dirty.clear()
                    self._rescan()
            else:
                if self._stop.wait(self._interval):
                    break
                self._rescan()

    def _waiting_for_permissions(self) -> bool:
        with self._changed:
            return any(device.state == STATE_NO_PERMISSIONS for device in self._devices)

    def _rescan(self) -> None:
        try:
            devices = list_usb_devices(context=self._context)
        except AdbwireError as exc:
            self.error = exc
            log.debug("USB re-scan failed: %s", exc)
            return
        with self._changed:
            changed = _summary(devices) != _summary(self._devices) or not self._scanned.is_set()
            self._devices = devices
            self._scanned.set()
            self._changed.notify_all()
        if changed and self._on_change is not None:
            try:
                self._on_change(list(devices))
            except Exception:
                log.exception("a USB change listener failed")

    def devices(self) -> list[UsbDeviceInfo]:
        with self._changed:
            return list(self._devices)

    def wait_for(
        self, predicate: Callable[[list[UsbDeviceInfo]], bool], timeout: float
    ) -> list[UsbDeviceInfo]:
        """Block until `predicate(devices)` holds (e.g. a serial appeared); returns them."""
        give_up = time.monotonic() + timeout
        with self._changed:
            while not predicate(list(self._devices)):
                left = give_up - time.monotonic()
                if left <= 0:
                    raise AdbTimeoutError(f"waiting for a USB device timed out after {timeout:g}s")
                self._changed.wait(left)
            return list(self._devices)

    def close(self) -> None:
        self._stop.set()
        context = self._context
        if context is not None and self.mode == "hotplug":
            with contextlib.suppress(usb1.USBError):
                context.interruptEventHandler()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=self._interval + 5)
        if context is not None and self._callback_handle is not None:
            with contextlib.suppress(usb1.USBError, KeyError):
                context.hotplugDeregisterCallback(self._callback_handle)
            self._callback_handle = None
        self.mode = "stopped"

    def __enter__(self) -> UsbMonitor:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _summary(devices: list[UsbDeviceInfo]) -> set[tuple[str, str | None, str]]:
    return {(device.port_path, device.serial, device.state) for device in devices}
