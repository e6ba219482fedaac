"""ADB over USB: two bulk endpoints of one claimed interface, framed as Google's adb does.

Writing a packet is up to three bulk transfers: the 24-byte header, the payload, and a
zero-length packet when the payload is a non-zero multiple of the OUT endpoint's
wMaxPacketSize. A bulk transfer only ends at a short packet, so without that empty packet
the device would wait for more bytes and glue the next header onto the payload.

Reading asks for the wanted byte count rounded up to whole IN packets: never a partial
packet (libusb would report an overflow) and never more than one packet beyond what is
needed. A transfer may still bring more than asked for (a device that sends header and
payload in one transfer); the rest is kept for the next read.

Transfers are synchronous with a short timeout (`poll_interval`) so that `close()` from
another thread takes effect within that time; libusb keeps the bytes of a transfer that
timed out (`received` / `transferred`), so nothing is lost by polling. Opening claims the
interface and clears halts on both endpoints, as adb does. This module does its own device
finding and claiming rather than subclassing adb_shell's UsbTransport: that class opens a
global libusb context when imported (before our library loading can run), finds devices
only through it, and reports missing endpoints with `assert`.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
import weakref
from pathlib import Path

import usb1

from adbwire.errors import ConnectFailedError, DisconnectedError, UsageError
from adbwire.wire.usb.api import Usb1Context, Usb1Handle
from adbwire.wire.usb.discovery import AdbInterface, FoundDevice, UsbDeviceInfo, scan
from adbwire.wire.usb.errors import UsbTarget, no_adb_interface, usb_error, usb_errors
from adbwire.wire.usb.library import call_before_exit, shared_context

log = logging.getLogger(__name__)

DEFAULT_POLL_INTERVAL = 0.2
"""Seconds one bulk transfer waits before the transport checks whether it was closed."""

Buffer = bytes | bytearray | memoryview


class UsbTransport:
    """One ADB device on USB, chosen by serial and/or port path ('usb:1-4.2')."""

    def __init__(
        self,
        serial: str | None = None,
        *,
        port_path: str | None = None,
        context: Usb1Context | None = None,
        io_timeout: float = 30.0,
        poll_interval: float = DEFAULT_POLL_INTERVAL,
        sysfs_root: Path | None = None,
    ) -> None:
        if serial is not None and serial.startswith("usb:") and port_path is None:
            port_path = serial.removeprefix("usb:")
            serial = None
        self._serial = serial
        self._port_path = port_path
        self._context = context
        self._io_timeout = io_timeout
        self._poll_ms = max(1, round(poll_interval * 1000))
        self._poll_interval = poll_interval
        self._sysfs_root = sysfs_root
        self._info: UsbDeviceInfo | None = None
        self._interface: AdbInterface | None = None
        self._handle: Usb1Handle | None = None
        self._closed = False
        self._active = 0
        self._io_changed = threading.Condition()
        self._write_lock = threading.Lock()
        self._leftover = bytearray()

    @classmethod
    def for_device(cls, info: UsbDeviceInfo, **options: object) -> UsbTransport:
        """A transport for a device from `list_usb_devices()`."""
        return cls(info.serial, port_path=info.port_path, **options)  # type: ignore[arg-type]

    # ----------------------------------------------------------- identity

    @property
    def kind(self) -> str:
        return "usb"

    @property
    def address(self) -> str:
        """The USB serial (or 'usb:PORT-PATH' for a device without one)."""
        if self._info is not None:
            return self._info.name
        if self._serial:
            return self._serial
        return f"usb:{self._port_path}" if self._port_path else "usb"

    @property
    def info(self) -> UsbDeviceInfo | None:
        """The device this transport opened (None before `connect`)."""
        return self._info

    @property
    def out_packet_size(self) -> int:
        return self._require_interface().out_packet_size

    @property
    def in_packet_size(self) -> int:
        return self._require_interface().in_packet_size

    def _require_interface(self) -> AdbInterface:
        if self._interface is None:
            raise DisconnectedError(f"{self.address}: not connected")
        return self._interface

    def _target(self) -> UsbTarget:
        if self._info is not None:
            return self._info.target()
        return UsbTarget(self.address, port_path=self._port_path)

    # ----------------------------------------------------------- opening

    def connect(self, timeout: float) -> None:
        """Find the device, claim its ADB interface and clear both endpoints' halts.

        libusb's open, claim and clear-halt calls take no timeout of their own; `timeout`
        is accepted for the Transport protocol (the handshake after it is bounded by it).
        """
        if self._handle is not None or self._closed:
            raise UsageError(f"{self.address}: a transport connects once; make a new one")
        found = self._find(self._context or shared_context())
        interface = found.info.interface
        assert interface is not None  # _find only returns devices with one
        handle = self._open(found, interface)
        with self._io_changed:
            self._info, self._interface, self._handle = found.info, interface, handle
        _open_transports.add(self)
        log.debug(
            "opened %s (%s): interface %d, IN %#04x/%d, OUT %#04x/%d",
            found.info.name,
            found.info.usb_path,
            interface.number,
            interface.in_endpoint,
            interface.in_packet_size,
            interface.out_endpoint,
            interface.out_packet_size,
        )

    def _wanted(self, info: UsbDeviceInfo) -> bool:
        if self._port_path is not None and info.port_path != self._port_path:
            return False
        return self._serial is None or info.serial == self._serial

    def _find(self, context: Usb1Context) -> FoundDevice:
        found = list(scan(context, include_without_adb=True, sysfs_root=self._sysfs_root))
        matching = [item for item in found if self._wanted(item.info)]
        with_adb = [item for item in matching if item.info.has_adb]
        if len(with_adb) == 1:
            return with_adb[0]
        if len(with_adb) > 1:
            paths = ", ".join(item.info.usb_path for item in with_adb)
            if self._serial is None and self._port_path is None:
                raise UsageError(f"more than one USB device ({paths}): choose one with -s")
            raise UsageError(
                f"{len(with_adb)} USB devices report serial {self._serial!r} ({paths}): "
                "choose one by port with -s usb:PORT-PATH"
            )
        if matching:
            raise no_adb_interface(matching[0].info.target())
        present = ", ".join(item.info.name for item in found if item.info.has_adb)
        wanted = self.address if self._serial or self._port_path else "with an ADB interface"
        raise ConnectFailedError(
            f"no USB device {wanted} is connected"
            + (f" (connected: {present})" if present else "")
            + "; check the cable and that USB debugging is on (`adbwire devices` lists them)"
        )

    def _open(self, found: FoundDevice, interface: AdbInterface) -> Usb1Handle:
        target = found.info.target()
        with usb_errors("open", target):
            handle = found.device.open()
        try:
            _detach_kernel_driver(handle, interface.number, target)
            with usb_errors("claim", target):
                handle.claimInterface(interface.number)
            try:
                with usb_errors("open", target):
                    for endpoint in (interface.in_endpoint, interface.out_endpoint):
                        handle.clearHalt(endpoint)
            except BaseException:
                with contextlib.suppress(usb1.USBError):
                    handle.releaseInterface(interface.number)
                raise
        except BaseException:
            with contextlib.suppress(usb1.USBError):
                handle.close()
            raise
        return handle

    # ----------------------------------------------------------- I/O bookkeeping

    def _begin_io(self) -> Usb1Handle:
        with self._io_changed:
            if self._handle is None or self._closed:
                state = "connection closed" if self._closed else "not connected"
                raise DisconnectedError(f"{self.address}: {state}")
            self._active += 1
            return self._handle

    def _end_io(self) -> None:
        with self._io_changed:
            self._active -= 1
            self._io_changed.notify_all()

    def _check_open(self) -> None:
        if self._closed:
            raise DisconnectedError(f"{self.address}: connection closed")

    # ----------------------------------------------------------- reading

    def read_exactly(self, size: int) -> bytes | bytearray:
        if size <= len(self._leftover):
            result = bytes(self._leftover[:size])
            del self._leftover[:size]
            return result
        collected, self._leftover = self._leftover, bytearray()
        while len(collected) < size:
            data = self._read_transfer(size - len(collected))
            if not collected and len(data) == size:
                return data  # the usual case: one transfer, no copy
            collected += data
        if len(collected) > size:
            self._leftover = collected[size:]
            del collected[size:]
        return collected

    def _read_transfer(self, wanted: int) -> bytes | bytearray:
        interface = self._require_interface()
        packet = interface.in_packet_size
        request = -(-wanted // packet) * packet
        handle = self._begin_io()
        try:
            while True:
                try:
                    data = handle.bulkRead(interface.in_endpoint, request, timeout=self._poll_ms)
                except usb1.USBErrorTimeout as exc:
                    data = getattr(exc, "received", b"") or b""
                except usb1.USBErrorInterrupted:
                    data = b""
                except usb1.USBError as exc:
                    raise usb_error(exc, "read", self._target()) from exc
                if data:
                    return data
                self._check_open()
        finally:
            self._end_io()

    # ----------------------------------------------------------- writing

    def write_packet(self, header: bytes, payload: Buffer) -> None:
        body = memoryview(payload).cast("B") if payload else memoryview(b"")
        out_packet = self.out_packet_size
        with self._write_lock:
            self._write_transfer(memoryview(header))
            if body.nbytes:
                self._write_transfer(body)
                if body.nbytes % out_packet == 0:
                    self._write_transfer(memoryview(b""))  # the zero-length packet

    def _write_transfer(self, data: memoryview) -> None:
        endpoint = self._require_interface().out_endpoint
        total = data.nbytes
        sent = 0
        handle = self._begin_io()
        try:
            progress_deadline = time.monotonic() + self._io_timeout
            while True:
                before = sent
                try:
                    sent += handle.bulkWrite(endpoint, data[sent:], timeout=self._poll_ms)
                except usb1.USBErrorTimeout as exc:
                    sent += int(getattr(exc, "transferred", 0) or 0)
                except usb1.USBErrorInterrupted:
                    pass
                except usb1.USBError as exc:
                    raise usb_error(exc, "write", self._target()) from exc
                else:
                    if sent >= total:
                        return  # also the zero-length packet, which is one empty transfer
                if total and sent >= total:
                    return
                self._check_open()
                if sent > before:
                    progress_deadline = time.monotonic() + self._io_timeout
                elif time.monotonic() >= progress_deadline:
                    raise DisconnectedError(
                        f"{self.address}: the device stopped reading (no USB write progress "
                        f"for {self._io_timeout:g}s)"
                    )
        finally:
            self._end_io()

    # ----------------------------------------------------------- closing

    def close(self) -> None:
        """Release the interface; a read or write in another thread stops within
        `poll_interval` seconds with DisconnectedError. Idempotent."""
        with self._io_changed:
            self._closed = True
            handle, self._handle = self._handle, None
            give_up = time.monotonic() + 2 * self._poll_interval + 1.0
            while self._active and time.monotonic() < give_up:
                self._io_changed.wait(max(0.0, give_up - time.monotonic()))
            still_busy = self._active
        _open_transports.discard(self)
        if handle is None:
            return
        if still_busy:
            # Closing a handle under a running transfer could crash libusb; leave it to
            # usb1's finalizer once the transfer returns.
            log.warning("%s: a USB transfer did not stop; leaving the handle open", self.address)
            return
        interface = self._interface
        with contextlib.suppress(usb1.USBError):
            if interface is not None:
                handle.releaseInterface(interface.number)
        with contextlib.suppress(usb1.USBError):
            handle.close()

    def __repr__(self) -> str:
        return f"UsbTransport({self.address!r})"


def _detach_kernel_driver(handle: Usb1Handle, interface: int, target: UsbTarget) -> None:
    """ADB interfaces normally have no kernel driver; if one is bound (Linux), detach it."""
    if sys.platform == "win32":
        return
    with usb_errors("claim", target):
        try:
            if handle.kernelDriverActive(interface):
                handle.detachKernelDriver(interface)
        except (usb1.USBErrorNotSupported, usb1.USBErrorNotFound):
            pass


_open_transports: weakref.WeakSet[UsbTransport] = weakref.WeakSet()


def _close_open_transports() -> None:
    for transport in list(_open_transports):
        transport.close()


call_before_exit(_close_open_transports)
