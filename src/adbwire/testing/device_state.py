"""What one simulated device shares across its connections: options, keys, files, userland,
root state, and the hooks the protocol side calls on the userland (Seam 2 of the contract).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO, Protocol

from adbwire.testing.auth import KeyStore
from adbwire.testing.device_files import DeviceFiles
from adbwire.testing.faults import Faults
from adbwire.testing.options import BANNER_KEYS, DEFAULT_BANNER_PROPERTIES, DeviceOptions
from adbwire.testing.reverse_listeners import ReverseTable

__all__ = ["DeviceState", "ProcessIO", "UserlandLike"]

SERVICE_LOG_LENGTH = 10_000


class ProcessIO(Protocol):
    """A running command's stdin/stdout/stderr, as the protocol side provides them."""

    def read_stdin(self, max_bytes: int = 65536) -> bytes: ...

    def write_stdout(self, data: bytes) -> None: ...

    def write_stderr(self, data: bytes) -> None: ...

    @property
    def cancelled(self) -> bool: ...


class UserlandLike(Protocol):
    """What the protocol side needs from adbwire.testing.userland.Userland."""

    def run(self, command_line: str, io: ProcessIO, *, pty: bool = False) -> int: ...

    def install_apk(
        self, apk: bytes | BinaryIO, size: int, options: Sequence[str]
    ) -> tuple[bool, str]: ...

    @property
    def properties(self) -> Mapping[str, str]: ...

    def on_reboot(self, mode: str) -> None: ...


@dataclass
class DeviceState:
    options: DeviceOptions
    files: DeviceFiles
    userland: UserlandLike
    faults: Faults = field(default_factory=Faults)
    keys: KeyStore = field(default_factory=KeyStore)
    root: bool = False
    reboots: list[str] = field(default_factory=list)
    """Every reboot mode asked for ("" for a plain reboot), oldest first."""
    unavailable_until: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)
    reverses: ReverseTable = field(default_factory=ReverseTable)
    """adbd's reverse listeners (one table for every connection, as adbd keeps one)."""
    services: deque[str] = field(default_factory=lambda: deque(maxlen=SERVICE_LOG_LENGTH))
    """The service names of the latest OPENs on any connection, oldest first (refused ones
    too), so tests can see what a client asked for."""

    def note_service(self, name: str) -> None:
        with self.lock:
            self.services.append(name)

    def banner(self) -> bytes:
        """`device::ro.product.name=…;ro.product.model=…;ro.product.device=…;features=…`."""
        source = self.options.banner_properties
        if source is None:
            try:
                source = self.userland.properties
            except Exception:  # a userland without properties still gets a banner
                source = {}
        parts = [
            f"{key}={source.get(key) or DEFAULT_BANNER_PROPERTIES[key]}" for key in BANNER_KEYS
        ]
        parts.append("features=" + ",".join(self.options.features))
        return f"{self.options.system_type}::{';'.join(parts)}".encode()

    def set_root(self, root: bool) -> None:
        with self.lock:
            self.root = root
        hook = getattr(self.userland, "on_root_changed", None)
        if callable(hook):
            hook(root)

    def note_reboot(self, mode: str) -> None:
        with self.lock:
            self.reboots.append(mode)
            self.unavailable_until = time.monotonic() + self.options.reboot_downtime
        self.userland.on_reboot(mode)
        self.set_root(self.options.root)  # after on_reboot: adbd's boot-time state wins

    @property
    def available(self) -> bool:
        return time.monotonic() >= self.unavailable_until
