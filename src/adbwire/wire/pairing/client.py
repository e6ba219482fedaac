"""The host side of pairing: `adbwire pair HOST:PORT CODE`, as AOSP's adb pairs.

`pair` connects to the pairing port a phone shows under Wireless debugging → "Pair device
with pairing code", speaks TLS 1.3 with a certificate made from the user's adb key, proves
the code with SPAKE2 and gives the phone our public key (`BASE64 user@host`, what
`adbkey.pub` holds). From then on the phone trusts this key on its TLS port. The phone
answers with its GUID (`adb-SERIAL-xxxxxx`), its mDNS instance name.
"""

from __future__ import annotations

import re
import socket
from dataclasses import dataclass
from typing import Final

from adbwire.errors import AdbTimeoutError, ConnectFailedError, PairingError, UsageError
from adbwire.wire.keys import AdbKey, default_key_comment, encode_android_pubkey, load_keys
from adbwire.wire.pairing.channel import PairingChannel, pairing_context
from adbwire.wire.pairing.messages import PeerInfo, PeerInfoType
from adbwire.wire.pairing.session import exchange
from adbwire.wire.pairing.spake2 import Spake2Role
from adbwire.wire.timeouts import Deadline, Timeouts, check_seconds
from adbwire.wire.transport import describe_socket_error, parse_tcp_address

__all__ = [
    "DEFAULT_PAIRING_TIMEOUT",
    "PairingResult",
    "check_pairing_code",
    "pair",
    "pair_with_password",
    "parse_pairing_address",
]

DEFAULT_PAIRING_TIMEOUT: Final = Timeouts().connect
_CODE: Final = re.compile(r"[0-9]{6}")


@dataclass(frozen=True)
class PairingResult:
    address: str
    guid: str
    """The device's GUID, which it also uses as its mDNS service instance name."""

    def __str__(self) -> str:
        return f"Successfully paired to {self.address} [guid={self.guid}]"


def check_pairing_code(code: str) -> str:
    """The code without surrounding blanks; UsageError unless it is the 6 digits phones show."""
    stripped = code.strip()
    if not _CODE.fullmatch(stripped):
        raise UsageError(
            "a pairing code is the 6 digits shown under Wireless debugging → 'Pair device "
            f"with pairing code' (got {len(stripped)} characters"
            + ("" if stripped.isdigit() or not stripped else ", not all digits")
            + ")"
        )
    return stripped


def parse_pairing_address(address: str) -> tuple[str, int]:
    """HOST:PORT (IPv6 as [::1]:PORT). The port is required: phones pick a new one each time."""
    has_port = ("]:" in address) if address.startswith("[") else address.count(":") == 1
    if not has_port:
        raise UsageError(
            f"{address!r}: give the pairing port too (HOST:PORT, as shown with the pairing "
            "code; it is not the port of the Wireless debugging screen)"
        )
    return parse_tcp_address(address)


def pair(
    address: str,
    code: str,
    key: AdbKey | None = None,
    *,
    timeout: float = DEFAULT_PAIRING_TIMEOUT,
) -> PairingResult:
    """Pair with the device at HOST:PORT using its 6-digit code; the user's adb key by default.

    Raises PairingCodeError (wrong code), PairingError (the peer broke the protocol or hung
    up), ConnectFailedError, AdbTimeoutError (nothing answered within `timeout` seconds).
    """
    return pair_with_password(address, check_pairing_code(code).encode(), key, timeout=timeout)


def pair_with_password(
    address: str,
    password: bytes,
    key: AdbKey | None = None,
    *,
    timeout: float = DEFAULT_PAIRING_TIMEOUT,
) -> PairingResult:
    """`pair` with any password (QR-code pairing uses a longer one than the 6 digits)."""
    if not password:
        raise UsageError("the pairing password cannot be empty")
    check_seconds(timeout, "pairing")
    host, port = parse_pairing_address(address)
    if key is None:
        key = load_keys()[0]
    public_key = encode_android_pubkey(key.public_key, default_key_comment())
    deadline = Deadline(timeout, f"pairing with {address}")
    context = pairing_context(key)
    sock = _connect(host, port, address, deadline)
    with PairingChannel.open(
        sock, context, server=False, peer=address, deadline=deadline
    ) as channel:
        theirs = exchange(
            channel,
            Spake2Role.ALICE,
            password,
            PeerInfo(PeerInfoType.ADB_RSA_PUB_KEY, public_key),
            deadline,
        )
    if theirs.type != PeerInfoType.ADB_DEVICE_GUID:
        raise PairingError(
            f"{address} accepted the code but answered with an unknown PeerInfo type "
            f"{theirs.type} instead of its GUID"
        )
    return PairingResult(address, theirs.text)


def _connect(host: str, port: int, address: str, deadline: Deadline) -> socket.socket:
    try:
        sock = socket.create_connection((host, port), timeout=deadline.remaining())
    except TimeoutError:
        raise AdbTimeoutError(f"pairing with {address}: the connection timed out") from None
    except OSError as error:
        raise ConnectFailedError(
            f"cannot connect to the pairing port {address}: {_why_not(error)}. "
            "The pairing port is open only while the phone shows 'Pair device with pairing "
            "code', and changes each time that dialog opens"
        ) from error
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _why_not(error: OSError) -> str:
    if isinstance(error, ConnectionRefusedError):
        return "nothing listens on that port"
    return describe_socket_error(error)
