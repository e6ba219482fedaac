"""DeviceFarm: many simulated devices in one process, for scale tests and users' CI.

    with DeviceFarm(100, DeviceOptions(accept_any_key=True)) as farm:
        farm.addresses        # ["127.0.0.1:PORT", ...]: consecutive ports from first_port
        farm.devices[3].faults.stall("shell")

Every device is a full `SimulatedDevice` with state of its own (files, packages, processes,
keys, faults) and a serial of its own (`ro.serialno`, SIM00001, ...). What a device would
otherwise cost at start is deferred or shared, so a device costs about 0.1 MiB until used:

- one thread accepts for every device (epoll over their listeners), not one per device;
- the scenario is parsed once; each device's userland (its /system/bin, its files) is
  built by its first command, not at start, so `start` takes milliseconds per device;
- with `freeze_built` (what `adbwire simulate --devices` sets), a built userland is
  frozen out of the garbage collector's full passes (`gc.freeze`), which otherwise paused
  every device for 0.1 s per 300 built ones. `gc.freeze` acts on the whole process, so an
  in-process farm (a test suite's) leaves it off unless asked.

Banners come from the scenario's properties (the farm passes them in the options), so a
connection needs no userland until it runs something.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import selectors
import socket
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import TracebackType
from typing import BinaryIO, Final

from adbwire.testing.device_files import DeviceFiles
from adbwire.testing.device_state import ProcessIO, UserlandLike
from adbwire.testing.options import BANNER_KEYS, DEFAULT_BANNER_PROPERTIES, DeviceOptions
from adbwire.testing.scenario import Scenario, load_scenario
from adbwire.testing.server import JOIN_TIMEOUT, SimulatedDevice

__all__ = ["MAX_FARM_DEVICES", "DeviceFarm", "LazyUserland"]

log = logging.getLogger("adbwire.testing")

MAX_FARM_DEVICES: Final = 5000
"""Each device holds a listening socket and, once connected, a reader thread and a socket."""


class LazyUserland:
    """A `Userland` built on first use: a farm of idle devices costs no /system/bin trees."""

    def __init__(self, scenario: Scenario, files: DeviceFiles, *, freeze: bool = False) -> None:
        self._scenario = scenario
        self._files = files
        self._freeze = freeze
        self._userland: UserlandLike | None = None
        self._lock = threading.Lock()

    @property
    def built(self) -> bool:
        return self._userland is not None

    def _real(self) -> UserlandLike:
        userland = self._userland
        if userland is None:
            with self._lock:
                if self._userland is None:
                    from adbwire.testing.userland import Userland  # noqa: PLC0415 - heavy

                    self._userland = Userland(self._scenario, self._files)
                    # A used device keeps about 500 objects: with 300 devices built, a full
                    # collection took 130 ms and stalled every device at once. Built state
                    # leaves the collector's sight (gc.freeze) once garbage is gone (cheap:
                    # what earlier builds left is frozen already); what commands create
                    # afterwards is collected as usual.
                    if self._freeze:
                        gc.collect()
                        gc.freeze()
                userland = self._userland
        return userland

    def run(self, command_line: str, io: ProcessIO, *, pty: bool = False) -> int:
        return self._real().run(command_line, io, pty=pty)

    def install_apk(
        self, apk: bytes | BinaryIO, size: int, options: Sequence[str]
    ) -> tuple[bool, str]:
        return self._real().install_apk(apk, size, options)

    @property
    def properties(self) -> Mapping[str, str]:
        if self._userland is None:
            return self._scenario.properties
        return self._userland.properties

    def on_reboot(self, mode: str) -> None:
        self._real().on_reboot(mode)

    def on_root_changed(self, root: bool) -> None:
        hook = getattr(self._real(), "on_root_changed", None)
        if callable(hook):
            hook(root)


class DeviceFarm:
    """`count` simulated devices on ports `first_port`, `first_port + 1`, ... (0: any free
    ports). Serials are `serial_prefix` and a 5-digit number from 1."""

    def __init__(
        self,
        count: int,
        options: DeviceOptions | None = None,
        *,
        first_port: int = 0,
        scenario: Scenario | None = None,
        serial_prefix: str = "SIM",
        freeze_built: bool = False,
    ) -> None:
        if not 1 <= count <= MAX_FARM_DEVICES:
            raise ValueError(f"a farm holds 1..{MAX_FARM_DEVICES} devices, not {count}")
        if first_port and not 0 < first_port <= 65536 - count:
            raise ValueError(f"ports {first_port}..{first_port + count - 1} are not all valid")
        self.count = count
        self.options = options or DeviceOptions()
        self.first_port = first_port
        self.scenario = scenario if scenario is not None else load_scenario()
        self.serial_prefix = serial_prefix
        self.freeze_built = freeze_built
        self.devices: list[SimulatedDevice] = []
        self._selector: selectors.BaseSelector | None = None
        self._wake_r: socket.socket | None = None
        self._wake_w: socket.socket | None = None
        self._accept_thread: threading.Thread | None = None
        self._stopping = threading.Event()

    @property
    def addresses(self) -> list[str]:
        return [_address(device) for device in self.devices]

    def device_serial(self, index: int) -> str:
        """The `ro.serialno` of the index-th device (from 0)."""
        return f"{self.serial_prefix}{index + 1:05d}"

    def start(self) -> DeviceFarm:
        if self.devices:
            raise RuntimeError("the farm is already running")
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        try:
            for index in range(self.count):
                device = self._make_device(index)
                self.devices.append(device)
                device.start(accept_thread=False)
                assert device.listener is not None
                self._selector.register(device.listener, selectors.EVENT_READ, device)
        except BaseException:
            self.stop()
            raise
        self._accept_thread = threading.Thread(
            target=self._accept_loop, name="adbd-sim farm accept", daemon=True
        )
        self._accept_thread.start()
        return self

    def _make_device(self, index: int) -> SimulatedDevice:
        properties = dict(self.scenario.properties)
        serial = self.device_serial(index)
        properties["ro.serialno"] = properties["ro.boot.serialno"] = serial
        scenario = replace(self.scenario, properties=properties)
        banner = self.options.banner_properties or {
            key: properties.get(key) or DEFAULT_BANNER_PROPERTIES[key] for key in BANNER_KEYS
        }
        port = self.first_port + index if self.first_port else 0
        options = replace(self.options, port=port, banner_properties=banner)

        def userland(files: DeviceFiles) -> UserlandLike:
            return LazyUserland(scenario, files, freeze=self.freeze_built)

        return SimulatedDevice(options, userland_factory=userland)

    def _accept_loop(self) -> None:
        selector = self._selector
        assert selector is not None
        while not self._stopping.is_set():
            for key, _events in selector.select():
                if key.fileobj is self._wake_r or self._stopping.is_set():
                    return
                device: SimulatedDevice = key.data
                try:
                    device.accept_pending()
                except Exception:  # one device's bug must not stop every device accepting
                    log.exception("simulated farm: %s: accept failed", device.serial)

    def stop(self) -> None:
        """Stop accepting, then stop every device (closing its connections, joining threads)."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        if self._wake_w is not None:
            with contextlib.suppress(OSError):
                self._wake_w.send(b"x")
        if self._accept_thread is not None:
            self._accept_thread.join(JOIN_TIMEOUT)
        for device in self.devices:
            device.stop()
        if self._selector is not None:
            self._selector.close()
        for sock in (self._wake_r, self._wake_w):
            if sock is not None:
                sock.close()

    def __enter__(self) -> DeviceFarm:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _address(device: SimulatedDevice) -> str:
    host, port = device.address
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
