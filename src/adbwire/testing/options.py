"""What kind of adbd the simulated device is: protocol version, payload size, features, auth."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from adbwire.wire.packets import MAX_PAYLOAD, VERSION_SKIP_CHECKSUM

__all__ = [
    "DEFAULT_BANNER_PROPERTIES",
    "DELAYED_ACK_WINDOW",
    "DEVICE_FEATURES",
    "DeviceOptions",
]

DEVICE_FEATURES: Final = (
    "shell_v2",
    "cmd",
    "stat_v2",
    "ls_v2",
    "fixed_push_mkdir",
    "apex",
    "abb",
    "fixed_push_symlink_timestamp",
    "abb_exec",
    "remount_shell",
    "track_app",
    "sendrecv_v2",
    "sendrecv_v2_brotli",
    "sendrecv_v2_lz4",
    "sendrecv_v2_zstd",
    "sendrecv_v2_dry_run_send",
    "delayed_ack",
)
"""What a current adbd offers (the sync features in transport.cpp's order)."""

DEFAULT_BANNER_PROPERTIES: Final = {
    "ro.product.name": "sdk_gphone64_x86_64",
    "ro.product.model": "sdk_gphone64_x86_64",
    "ro.product.device": "emu64xa",
}
"""Used when neither the options nor the userland say what the device is."""

BANNER_KEYS: Final = ("ro.product.name", "ro.product.model", "ro.product.device")

DELAYED_ACK_WINDOW: Final = 32 * 1024 * 1024
"""adbd's INITIAL_DELAYED_ACK_BYTES: how much a peer may send before our first ack."""


@dataclass(frozen=True)
class DeviceOptions:
    """Knobs of the simulated adbd. Every default is what a current real device does."""

    host: str = "127.0.0.1"
    port: int = 0
    system_type: str = "device"
    """Banner type: device, recovery, sideload, bootloader, rescue."""
    protocol_version: int = VERSION_SKIP_CHECKSUM
    """0x01000000 (checksummed) or 0x01000001; the negotiated version is the lower one."""
    max_payload: int = MAX_PAYLOAD
    features: tuple[str, ...] = DEVICE_FEATURES
    banner_properties: Mapping[str, str] | None = None
    """ro.product.* for the banner; None takes them from the userland's properties."""
    delayed_ack_window: int = DELAYED_ACK_WINDOW
    link_mbps: float | None = None
    """Each direction of a connection carries at most this many megabits/s (None: loopback's
    own speed); 40 is roughly a phone on a USB 2 cable (testing/link_rate.py)."""

    auth_required: bool = True
    """False is a device with ro.adb.secure=0: CNXN is answered at once, no AUTH."""
    authorized_keys: tuple[str, ...] = ()
    """Android-format public keys (`BASE64 user@host`), as in adb_keys / adbkey.pub."""
    accept_new_keys: bool = False
    """Accept an offered RSAPUBLICKEY (the user taps "Allow") after accept_delay seconds."""
    accept_delay: float = 0.0
    accept_any_key: bool = False
    """Skip RSA checks: any signature and any offered key are accepted at once."""
    tls: bool = False
    """Wireless debugging's main port: CNXN is answered with STLS and the connection goes on
    over TLS 1.3; the host's certificate must carry an authorized key (unless auth is off)."""

    root: bool = False
    """Whether adbd runs as root at boot (ro.secure=0)."""
    debuggable: bool = True
    """False is a production build: `adb root` is refused."""
    reboot_downtime: float = 0.0
    """Seconds after a reboot during which connections are refused."""

    def __post_init__(self) -> None:
        if self.protocol_version < 0x01000000:
            raise ValueError(f"protocol_version {self.protocol_version:#x} is below 0x01000000")
        if not 256 <= self.max_payload <= MAX_PAYLOAD:
            raise ValueError(f"max_payload must be within 256..{MAX_PAYLOAD}")
        if self.delayed_ack_window <= 0:
            raise ValueError("delayed_ack_window must be positive")
        if self.link_mbps is not None and not self.link_mbps > 0:
            raise ValueError("link_mbps must be positive")

    @property
    def delayed_ack(self) -> bool:
        return "delayed_ack" in self.features
