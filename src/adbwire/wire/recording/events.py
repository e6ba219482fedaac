"""What a fixture holds: a header, then stream-level events (see docs/fixtures.md).

Events describe streams, not packets: which service was opened, the bytes each side wrote
on it in order, and who closed it. Flow control, local ids, checksums and AUTH payloads are
left out on purpose: they vary between runs and are not what a test is about.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

FORMAT_VERSION: Final = 1
"""Version of the fixture format this adbwire writes and the newest it reads."""

Side = Literal["host", "device"]
SIDES: Final[tuple[Side, ...]] = ("host", "device")

ORIGIN_REAL: Final = "real device"
ORIGIN_SIMULATED: Final = "simulated device"
ORIGIN_IMPORTED: Final = "imported capture"
ORIGINS: Final = (ORIGIN_REAL, ORIGIN_SIMULATED, ORIGIN_IMPORTED)

AuthOutcome = Literal["none", "signature", "public_key", "incomplete"]
AUTH_OUTCOMES: Final[tuple[AuthOutcome, ...]] = ("none", "signature", "public_key", "incomplete")


@dataclass(frozen=True)
class AuthSummary:
    """That authentication happened and how it ended; never keys, tokens or signatures.

    `outcome`: "none" (the device did not ask), "signature" (a signature was accepted),
    "public_key" (the host offered its key and the device accepted it), "incomplete" (the
    connection ended before the device accepted anything).
    """

    outcome: AuthOutcome = "none"
    tokens: int = 0
    """AUTH TOKEN packets the device sent."""
    signatures: int = 0
    """AUTH SIGNATURE packets the host sent (each answered a token)."""
    public_key_offered: bool = False


@dataclass(frozen=True)
class FixtureHeader:
    """The first line of a fixture: where the session came from and what was negotiated."""

    origin: str
    note: str
    adbwire_version: str
    transport: str
    recorded_at: str
    """UTC, ISO 8601 (e.g. 2025-01-31T12:00:00Z)."""
    banner: str | None
    """The device's CNXN banner text (serial redacted if asked), None if never connected."""
    features: tuple[str, ...] = ()
    device_version: int | None = None
    """Protocol version and max payload the device offered in its CNXN."""
    device_max_payload: int | None = None
    version: int | None = None
    """Negotiated protocol version and max payload (the lower of both sides)."""
    max_payload: int | None = None
    delayed_ack: bool = False
    host_features: tuple[str, ...] = ()
    auth: AuthSummary = field(default_factory=AuthSummary)
    serial_redacted: bool = False
    format: int = FORMAT_VERSION


@dataclass(frozen=True)
class Open:
    """The host opened a service; streams are numbered 1, 2, ... in the order of OPEN."""

    stream: int
    service: str


@dataclass(frozen=True)
class Refused:
    """The device answered the OPEN with CLSE: the service does not exist there."""

    stream: int


@dataclass(frozen=True)
class Data:
    """Bytes one side wrote on a stream (consecutive writes of one side are coalesced)."""

    stream: int
    side: Side
    data: bytes


@dataclass(frozen=True)
class Close:
    stream: int
    by: Side


@dataclass(frozen=True)
class End:
    """The connection ended: `by` the host (it closed) or the device (it went away)."""

    by: Side
    reason: str = ""


@dataclass(frozen=True)
class Call:
    """What the caller did in the session and what it got: read by test drivers only.

    Replay ignores it; `adbwire.wire.recording.calls` writes and checks these.
    """

    name: str
    args: dict[str, Any]
    result: dict[str, Any]


Event = Open | Refused | Data | Close | End | Call


@dataclass(frozen=True)
class Located:
    """An event and the fixture line it came from (1-based; the header is line 1)."""

    line: int
    event: Event
