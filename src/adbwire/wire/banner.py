"""CNXN banners: what each side says about itself when the connection opens.

A device banner looks like::

    device::ro.product.name=sdk_gphone64;ro.product.model=Pixel 7;features=shell_v2,cmd

and a host banner like ``host::features=shell_v2,cmd,stat_v2``. The part between the two
colons is the serial, which devices leave empty (older ones may put it there).
"""

from __future__ import annotations

from adbwire.errors import RemoteProtocolError
from adbwire.wire.values import FrozenValue

HOST_FEATURES: tuple[str, ...] = (
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
    "delayed_ack",
)
"""Features adbwire understands and therefore offers in its own banner."""


class Banner(FrozenValue):
    """A parsed CNXN banner."""

    __match_args__ = ("system_type", "serial", "properties", "features")
    __slots__ = __match_args__
    system_type: str
    serial: str
    properties: dict[str, str]
    features: frozenset[str]

    def __init__(
        self,
        system_type: str,
        serial: str = "",
        properties: dict[str, str] | None = None,
        features: frozenset[str] = frozenset(),
    ) -> None:
        set_field = object.__setattr__
        set_field(self, "system_type", system_type)
        set_field(self, "serial", serial)
        set_field(self, "properties", {} if properties is None else properties)
        set_field(self, "features", features)

    @property
    def product(self) -> str | None:
        return self.properties.get("ro.product.name")

    @property
    def model(self) -> str | None:
        return self.properties.get("ro.product.model")

    @property
    def device(self) -> str | None:
        return self.properties.get("ro.product.device")

    def has(self, feature: str) -> bool:
        return feature in self.features

    def encode(self) -> bytes:
        parts = [f"{key}={value}" for key, value in self.properties.items()]
        if self.features:
            parts.append("features=" + ",".join(sorted(self.features)))
        return f"{self.system_type}:{self.serial}:{';'.join(parts)}".encode()


def parse_banner(raw: bytes | bytearray | memoryview) -> Banner:
    """Parse a CNXN payload; tolerant of a trailing NUL and of unknown keys."""
    text = bytes(raw).split(b"\0", 1)[0].decode("utf-8", errors="replace")
    pieces = text.split(":", 2)
    if len(pieces) < 2:
        raise RemoteProtocolError(f"malformed CNXN banner {text[:80]!r}: expected 'type:serial:…'")
    system_type = pieces[0]
    serial = pieces[1]
    rest = pieces[2] if len(pieces) == 3 else ""
    properties: dict[str, str] = {}
    features: frozenset[str] = frozenset()
    for item in rest.split(";"):
        if not item:
            continue
        key, sep, value = item.partition("=")
        if not sep:
            continue
        if key == "features":
            features = frozenset(f for f in value.split(",") if f)
        else:
            properties[key] = value
    return Banner(system_type, serial, properties, features)


def host_banner(features: tuple[str, ...] = HOST_FEATURES) -> Banner:
    return Banner("host", "", {}, frozenset(features))
