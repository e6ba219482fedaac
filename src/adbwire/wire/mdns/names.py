"""What wireless-debugging devices advertise over mDNS, checked as untrusted input (sans-IO).

A phone advertises up to three DNS-SD service types (AOSP `adb_mdns.h`):

- `_adb-tls-pairing._tcp`: "Pair device with pairing code" is open (instance `adb-<guid>`),
  or the phone scanned a QR code (instance: the name the QR code asked for);
- `_adb-tls-connect._tcp`: Wireless debugging's TLS port (instance `adb-<serial>-<suffix>`);
- `_adb._tcp`: the legacy port opened by `adb tcpip`.

adbd's TXT record (daemon/mdns.cpp) holds `v` (ADB_SECURE_SERVICE_VERSION, "1"), `name`
(ro.product.model) and `api` (the SDK level).

Everything here comes from whoever answers on the local network: names and TXT values are
capped, counted and kept as text that the CLI renders with escapes (cli/terminal_text.py).
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Final

from adbwire.errors import UsageError

__all__ = [
    "CONNECT_SERVICE",
    "LEGACY_SERVICE",
    "MAX_INSTANCE_NAME_BYTES",
    "PAIRING_SERVICE",
    "SERVICE_TYPES",
    "MdnsService",
    "QrPairing",
    "decode_txt",
    "full_name",
    "instance_from_full_name",
    "parse_qr_payload",
    "random_qr_pairing",
    "split_service_suffix",
]

PAIRING_SERVICE: Final = "_adb-tls-pairing._tcp"
CONNECT_SERVICE: Final = "_adb-tls-connect._tcp"
LEGACY_SERVICE: Final = "_adb._tcp"
SERVICE_TYPES: Final = (PAIRING_SERVICE, CONNECT_SERVICE, LEGACY_SERVICE)
DOMAIN: Final = ".local."

MAX_INSTANCE_NAME_BYTES: Final = 63
"""RFC 6763 §4.1.1: an instance name is one DNS label of at most 63 bytes of UTF-8."""
MAX_TXT_ENTRIES: Final = 16
MAX_TXT_VALUE_CHARS: Final = 255
MAX_ADDRESSES: Final = 8

QR_NAME_PREFIX: Final = "studio-"
"""Android Studio's prefix for the instance it asks a phone to advertise; we use the same, the
form phones have seen, followed by 10 random characters as Studio does."""
_QR_ALPHABET: Final = string.ascii_letters + string.digits
"""No ';', ':', ',', '\\' or '"': they would need escaping in a WIFI: payload."""
QR_NAME_RANDOM_CHARS: Final = 10
QR_PASSWORD_CHARS: Final = 12


@dataclass(frozen=True)
class MdnsService:
    """One resolved instance: `adb-XYZ-abc` of `_adb-tls-connect._tcp` at 192.168.1.5:37000."""

    instance: str
    service_type: str
    addresses: tuple[str, ...]
    """IPv4 first, then IPv6, as resolved (at most MAX_ADDRESSES)."""
    port: int
    txt: dict[str, str] = field(default_factory=dict)

    @property
    def address(self) -> str:
        """HOST:PORT of the first address ([v6]:PORT for IPv6)."""
        host = self.addresses[0]
        return f"[{host}]:{self.port}" if ":" in host else f"{host}:{self.port}"

    @property
    def serial(self) -> str:
        """What adb names a device connected through mDNS: INSTANCE.SERVICE."""
        return f"{self.instance}.{self.service_type}"


def full_name(instance: str, service_type: str) -> str:
    """The DNS name zeroconf uses: INSTANCE._adb-tls-connect._tcp.local."""
    return f"{instance}.{service_type}{DOMAIN}"


def instance_from_full_name(name: str, service_type: str) -> str | None:
    """INSTANCE from INSTANCE.SERVICE.local., or None when the name is not of that service or
    the instance label is empty or longer than 63 bytes."""
    suffix = f".{service_type}{DOMAIN}"
    if not name.endswith(suffix):
        return None
    instance = name[: -len(suffix)]
    if not instance or len(instance.encode("utf-8", "surrogatepass")) > MAX_INSTANCE_NAME_BYTES:
        return None
    return instance


def split_service_suffix(name: str) -> tuple[str, str | None]:
    """`adb-X._adb-tls-connect._tcp` (with or without `.local.`) → ("adb-X", service type);
    a bare instance name → (name, None). Accepts what `adb devices` prints for mDNS devices."""
    trimmed = name.removesuffix(".").removesuffix(".local")
    for service_type in SERVICE_TYPES:
        if trimmed.endswith("." + service_type):
            return trimmed[: -len(service_type) - 1], service_type
    return name, None


def decode_txt(properties: dict[bytes, bytes | None]) -> dict[str, str]:
    """TXT entries as text: at most MAX_TXT_ENTRIES, values cut at 255 characters, bytes that
    are not UTF-8 replaced (the CLI escapes the rest when it shows them)."""
    decoded: dict[str, str] = {}
    for key, value in list(properties.items())[:MAX_TXT_ENTRIES]:
        text = (value or b"").decode("utf-8", "replace")[:MAX_TXT_VALUE_CHARS]
        decoded[key.decode("utf-8", "replace")[:MAX_TXT_VALUE_CHARS]] = text
    return decoded


@dataclass(frozen=True)
class QrPairing:
    """What a pairing QR code carries: the instance name the phone must advertise its pairing
    service under, and the password it pairs with (in place of the 6-digit code)."""

    name: str
    password: str

    @property
    def payload(self) -> str:
        """adb's format (docs/dev/adb_wifi.md, after WPA3's Wi-Fi QR codes)."""
        return f"WIFI:T:ADB;S:{self.name};P:{self.password};;"


def random_qr_pairing() -> QrPairing:
    """A fresh name (`studio-` + 10 random characters) and a 12-character random password."""
    import secrets  # noqa: PLC0415 - hashlib and hmac load only for a QR pairing (#20)

    name = QR_NAME_PREFIX + "".join(
        secrets.choice(_QR_ALPHABET) for _ in range(QR_NAME_RANDOM_CHARS)
    )
    password = "".join(secrets.choice(_QR_ALPHABET) for _ in range(QR_PASSWORD_CHARS))
    return QrPairing(name, password)


def parse_qr_payload(payload: str) -> QrPairing:
    """`WIFI:T:ADB;S:NAME;P:PASSWORD;;` → QrPairing, as a phone's camera handler reads it.

    Fields are `;`-separated; a backslash escapes the next character (WPA3 QR format).
    UsageError unless T is ADB and S and P are present and non-empty.
    """
    text = payload.strip()
    if not text.startswith("WIFI:") or not text.endswith(";;"):
        raise UsageError(f"not a pairing QR payload (WIFI:T:ADB;S:NAME;P:PASSWORD;;): {text!r}")
    fields: dict[str, str] = {}
    for item in _split_escaped(text[len("WIFI:") : -1]):
        key, sep, value = item.partition(":")
        if sep and key in ("T", "S", "P"):
            fields[key] = value
    if fields.get("T") != "ADB" or not fields.get("S") or not fields.get("P"):
        raise UsageError(f"a pairing QR payload needs T:ADB, S:NAME and P:PASSWORD: {text!r}")
    name = fields["S"]
    if len(name.encode()) > MAX_INSTANCE_NAME_BYTES:
        raise UsageError(f"the QR payload's name is over {MAX_INSTANCE_NAME_BYTES} bytes")
    return QrPairing(name, fields["P"])


def _split_escaped(text: str) -> list[str]:
    items: list[str] = []
    current: list[str] = []
    escaped = False
    for char in text:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ";":
            items.append("".join(current))
            current = []
        else:
            current.append(char)
    if current:
        items.append("".join(current))
    return items
