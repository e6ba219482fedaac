"""A fake of the usb1 objects adbwire uses, modelled at the level of USB packets.

It sits beneath the real transport code (context, device, handle, endpoints), so what runs
in the tests is the transport's own logic. Errors are usb1's real exception classes.

Bulk transfers behave as on a real bus:

- OUT: each `bulkWrite` is cut into packets of the endpoint's wMaxPacketSize (an empty
  write is one zero-length packet). The device side reads *transfers*: bytes up to and
  including a packet shorter than wMaxPacketSize. A payload that fills its last packet
  exactly therefore only ends at the next zero-length packet, as on a real gadget.
- IN: the device sends transfers as packets and, like adbd, never adds a zero-length
  packet. `bulkRead(length)` completes on a short packet or when `length` is filled; a
  packet larger than the space left is LIBUSB_ERROR_OVERFLOW; on timeout the bytes
  received so far are on the exception (`received`, `transferred`), as in usb1.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import usb1

BULK = 0x02
INTERRUPT = 0x03


@dataclass
class FakeEndpoint:
    address: int
    max_packet_size: int
    attributes: int = BULK

    def getAddress(self) -> int:
        return self.address

    def getAttributes(self) -> int:
        return self.attributes

    def getMaxPacketSize(self) -> int:
        return self.max_packet_size


@dataclass
class FakeSetting:
    number: int
    klass: int
    subclass: int
    protocol: int
    endpoints: list[FakeEndpoint]
    alternate: int = 0

    def getNumber(self) -> int:
        return self.number

    def getAlternateSetting(self) -> int:
        return self.alternate

    def getClass(self) -> int:
        return self.klass

    def getSubClass(self) -> int:
        return self.subclass

    def getProtocol(self) -> int:
        return self.protocol

    def iterEndpoints(self) -> Iterator[FakeEndpoint]:
        return iter(self.endpoints)


def adb_setting(
    number: int = 1, packet_size: int = 512, in_address: int = 0x81, out_address: int = 0x02
) -> FakeSetting:
    endpoints = [FakeEndpoint(out_address, packet_size), FakeEndpoint(in_address, packet_size)]
    return FakeSetting(number, 0xFF, 0x42, 0x01, endpoints)


def mtp_setting(number: int = 0) -> FakeSetting:
    endpoints = [FakeEndpoint(0x83, 512), FakeEndpoint(0x04, 512), FakeEndpoint(0x85, 28, 3)]
    return FakeSetting(number, 0x06, 0x01, 0x01, endpoints)


def _timeout_error(received: bytes | bytearray) -> usb1.USBErrorTimeout:
    error = usb1.USBErrorTimeout()
    error.transferred = len(received)
    error.received = bytearray(received)
    return error


@dataclass
class FakeDevice:
    serial: str | None = "FAKE0001"
    bus: int = 1
    ports: tuple[int, ...] = (4,)
    address: int = 5
    vendor_id: int = 0x18D1
    product_id: int = 0x4EE7
    product: str | None = "Pixel Fake"
    settings: list[FakeSetting] = field(default_factory=lambda: [mtp_setting(), adb_setting()])
    open_error: type[usb1.USBError] | None = None
    claimed_elsewhere: bool = False
    clear_halt_error: type[usb1.USBError] | None = None
    accepts_out_bytes: int | None = None
    """Bytes the device reads before it stops reading (None: it always reads)."""

    def __post_init__(self) -> None:
        self.lock = threading.Condition()
        self.plugged = True
        self.halted: set[int] = set()
        self.claimed: dict[int, FakeHandle] = {}
        self.was_claimed = False
        self.open_handles = 0
        self.out_writes: list[int] = []  # size of every host bulkWrite, in order
        self.in_requests: list[int] = []  # length of every host bulkRead, in order
        self.clear_halt_calls: list[int] = []
        self._out_packets: deque[bytes] = deque()
        self._in_packets: deque[bytes] = deque()
        self._out_accepted = 0

    # ------------------------------------------------------------- usb1.USBDevice

    def getBusNumber(self) -> int:
        return self.bus

    def getPortNumberList(self) -> list[int]:
        return list(self.ports)

    def getDeviceAddress(self) -> int:
        return self.address

    def getVendorID(self) -> int:
        return self.vendor_id

    def getProductID(self) -> int:
        return self.product_id

    def iterSettings(self) -> Iterator[FakeSetting]:
        return iter(self.settings)

    def open(self) -> FakeHandle:
        if not self.plugged:
            raise usb1.USBErrorNoDevice()
        if self.open_error is not None:
            raise self.open_error()
        with self.lock:
            self.open_handles += 1
        return FakeHandle(self)

    # ------------------------------------------------------------- the device's side

    def _packet_size(self, direction_in: bool) -> int:
        for setting in self.settings:
            if (setting.klass, setting.subclass, setting.protocol) == (0xFF, 0x42, 0x01):
                for endpoint in setting.endpoints:
                    if bool(endpoint.address & 0x80) == direction_in:
                        return endpoint.max_packet_size
        raise AssertionError("the fake device has no ADB interface")

    def read_transfer(self, timeout: float = 5.0) -> bytes:
        """What the device's next bulk OUT read returns: packets up to a short one."""
        size = self._packet_size(direction_in=False)
        give_up = time.monotonic() + timeout
        data = bytearray()
        with self.lock:
            while True:
                while not self._out_packets:
                    if self.was_claimed and not self.claimed:
                        raise EOFError("the host released the interface")
                    left = give_up - time.monotonic()
                    if left <= 0 or not self.plugged:
                        raise TimeoutError(f"no end of transfer; have {len(data)} bytes")
                    self.lock.wait(left)
                packet = self._out_packets.popleft()
                data += packet
                if len(packet) < size:
                    return bytes(data)

    def send_transfer(self, data: bytes) -> None:
        """Queue one bulk IN transfer (as packets; no zero-length packet, like adbd)."""
        size = self._packet_size(direction_in=True)
        packets = [data[at : at + size] for at in range(0, len(data), size)] or [b""]
        with self.lock:
            self._in_packets.extend(packets)
            self.lock.notify_all()

    def wait_for_reads(self, count: int, timeout: float = 2.0) -> None:
        """Block until the host has started `count` bulk reads (bounded)."""
        with self.lock:
            if not self.lock.wait_for(lambda: len(self.in_requests) >= count, timeout):
                raise TimeoutError(f"the host started {len(self.in_requests)} reads, not {count}")

    def unplug(self) -> None:
        with self.lock:
            self.plugged = False
            self.lock.notify_all()

    # ------------------------------------------------------------- used by FakeHandle

    def bulk_write(self, handle: FakeHandle, endpoint: int, data: Any, timeout: int) -> int:
        payload = bytes(data)
        size = self._packet_size(direction_in=False)
        with self.lock:
            self._check(handle, endpoint)
            self.out_writes.append(len(payload))
            room = None if self.accepts_out_bytes is None else self.accepts_out_bytes
            if room is not None:
                room -= self._out_accepted
                if room < len(payload) or (room == 0 and not payload):
                    accepted = max(0, room - room % size)
                    self._queue_out(payload[:accepted], size, final=False)
                    self.lock.wait(timeout / 1000 if timeout else None)
                    self._check(handle, endpoint)
                    raise _timeout_error(payload[:accepted])
            self._queue_out(payload, size, final=True)
            return len(payload)

    def _queue_out(self, payload: bytes, size: int, *, final: bool) -> None:
        packets = [payload[at : at + size] for at in range(0, len(payload), size)]
        if final and not payload:
            packets = [b""]
        self._out_packets.extend(packets)
        self._out_accepted += len(payload)
        self.lock.notify_all()

    def bulk_read(self, handle: FakeHandle, endpoint: int, length: int, timeout: int) -> bytearray:
        size = self._packet_size(direction_in=True)
        give_up = None if timeout == 0 else time.monotonic() + timeout / 1000
        data = bytearray()
        with self.lock:
            self._check(handle, endpoint)
            self.in_requests.append(length)
            self.lock.notify_all()
            while True:
                while not self._in_packets:
                    left = None if give_up is None else give_up - time.monotonic()
                    if left is not None and left <= 0:
                        raise _timeout_error(data)
                    self.lock.wait(left)
                    self._check(handle, endpoint)
                packet = self._in_packets[0]
                if len(packet) > length - len(data):
                    raise usb1.USBErrorOverflow()
                self._in_packets.popleft()
                data += packet
                if len(packet) < size or len(data) == length:
                    return data

    def _check(self, handle: FakeHandle, endpoint: int) -> None:
        if not self.plugged:
            raise usb1.USBErrorNoDevice()
        if handle.closed:
            raise AssertionError("transfer on a closed handle")
        if not any(self.claimed.get(s.number) is handle for s in self.settings):
            raise usb1.USBErrorNotFound()  # libusb: the endpoint's interface is not claimed
        if endpoint in self.halted:
            raise usb1.USBErrorPipe()


class FakeHandle:
    def __init__(self, device: FakeDevice) -> None:
        self.device = device
        self.closed = False

    def getSerialNumber(self) -> str | None:
        return self.device.serial

    def getProduct(self) -> str | None:
        return self.device.product

    def kernelDriverActive(self, interface: int) -> bool:
        return False

    def detachKernelDriver(self, interface: int) -> None:
        raise AssertionError("no kernel driver is bound in the fake")

    def claimInterface(self, interface: int) -> None:
        device = self.device
        if not device.plugged:
            raise usb1.USBErrorNoDevice()
        with device.lock:
            if device.claimed_elsewhere or interface in device.claimed:
                raise usb1.USBErrorBusy()
            device.claimed[interface] = self
            device.was_claimed = True

    def releaseInterface(self, interface: int) -> None:
        with self.device.lock:
            if self.device.claimed.get(interface) is self:
                del self.device.claimed[interface]
            self.device.lock.notify_all()

    def clearHalt(self, endpoint: int) -> None:
        device = self.device
        device.clear_halt_calls.append(endpoint)
        if device.clear_halt_error is not None:
            raise device.clear_halt_error()
        device.halted.discard(endpoint)

    def bulkWrite(self, endpoint: int, data: Any, timeout: int = 0) -> int:
        return self.device.bulk_write(self, endpoint, data, timeout)

    def bulkRead(self, endpoint: int, length: int, timeout: int = 0) -> bytearray:
        return self.device.bulk_read(self, endpoint, length, timeout)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with self.device.lock:
                self.device.open_handles -= 1


class FakeContext:
    """The bus: the devices plugged in now, and hot-plug events when that changes."""

    def __init__(self, *devices: FakeDevice, hotplug: bool = True) -> None:
        self.devices = list(devices)
        self.hotplug = hotplug
        self._events: deque[tuple[FakeDevice, int]] = deque()
        self._callbacks: dict[int, Any] = {}
        self._wake = threading.Condition()

    def getDeviceIterator(self, skip_on_error: bool = False) -> Iterator[FakeDevice]:
        return iter([device for device in self.devices if device.plugged])

    def hasCapability(self, capability: int) -> bool:
        return self.hotplug if capability == usb1.CAP_HAS_HOTPLUG else False

    def plug(self, device: FakeDevice) -> None:
        self.devices.append(device)
        self._event(device, usb1.HOTPLUG_EVENT_DEVICE_ARRIVED)

    def unplug(self, device: FakeDevice) -> None:
        device.unplug()
        self.devices.remove(device)
        self._event(device, usb1.HOTPLUG_EVENT_DEVICE_LEFT)

    def _event(self, device: FakeDevice, event: int) -> None:
        with self._wake:
            if self._callbacks:
                self._events.append((device, event))
            self._wake.notify_all()

    def hotplugRegisterCallback(self, callback: Any, events: int = 0, flags: int = 0) -> int:
        assert self.hotplug, "hot-plug registration on a platform without it"
        handle = len(self._callbacks) + 1
        self._callbacks[handle] = callback
        return handle

    def hotplugDeregisterCallback(self, handle: int) -> None:
        del self._callbacks[handle]

    def handleEventsTimeout(self, tv: float = 0) -> None:
        with self._wake:
            if not self._events:
                self._wake.wait(tv)
            events, self._events = list(self._events), deque()
            callbacks = list(self._callbacks.values())
        for device, event in events:
            for callback in callbacks:
                callback(self, device, event)

    def interruptEventHandler(self) -> None:
        with self._wake:
            self._wake.notify_all()
