"""USB devices for the device registry: scanned on every refresh, so hot-plugged devices
appear on the next call that lists or resolves devices."""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Sequence

from adbwire.errors import AdbwireError
from adbwire.wire.client import AdbClient
from adbwire.wire.connection import Signer
from adbwire.wire.protocol import ConnectionState
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.usb import connect_usb, list_usb_devices

log = logging.getLogger(__name__)


class UsbSource:
    kind = "usb"

    def __init__(self, only: Collection[str] = ()) -> None:
        self.only = set(only)
        self._unavailable = False

    def scan(self) -> list[str]:
        try:
            devices = list_usb_devices()
        except AdbwireError as exc:
            if not self._unavailable:  # say it once: no libusb, or no USB at all here
                log.info("USB devices are not available: %s", exc)
                self._unavailable = True
            return []
        names = [device.name for device in devices if device.has_adb]
        return [name for name in names if not self.only or name in self.only]

    def open(
        self,
        serial: str,
        keys: Sequence[Signer],
        timeouts: Timeouts,
        on_state: Callable[[ConnectionState], None],
    ) -> AdbClient:
        return connect_usb(serial, keys, timeouts=timeouts, on_state=on_state)
