"""Putting recording and replay around whatever transport a command would use.

`wrap_transport` is what `--record FILE` / `--replay FILE` call; `connect_replay` gives a
connected `AdbClient` on a fixture with no keys and no device.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Final

from adbwire.errors import UsageError
from adbwire.wire.client import AdbClient
from adbwire.wire.connection import Signer
from adbwire.wire.recording.events import ORIGIN_REAL
from adbwire.wire.recording.recording_transport import RecordingTransport
from adbwire.wire.recording.replay_transport import ReplayTransport
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.transport import Transport

PathLike = str | os.PathLike[str]
_SIGNATURE_SIZE: Final = 256


class ReplayKey:
    """A stand-in key: a replay accepts any signature, so no real key is needed."""

    def sign(self, token: bytes) -> bytes:
        return bytes(_SIGNATURE_SIZE)

    def public_key_bytes(self) -> bytes:
        return b"QUFBQQ== replay@adbwire\0"


def replay_transport(path: PathLike, *, strict: bool = False) -> ReplayTransport:
    """A transport that plays the device of the fixture at `path`."""
    return ReplayTransport(path, strict=strict)


def wrap_transport(
    transport: Transport | None,
    *,
    record: PathLike | None = None,
    replay: PathLike | None = None,
    origin: str | None = None,
    note: str = "",
    redact_serial: bool | str = False,
    strict: bool = False,
) -> Transport:
    """`transport`, replaced by a replay and/or wrapped by a recording as asked.

    With `replay`, `transport` is not used (pass None) and no device is contacted. With
    both, the replayed session is recorded again (keeping its origin unless one is given):
    a way to bring an old fixture to the current format.
    """
    base: Transport
    if replay is not None:
        replaying = ReplayTransport(replay, strict=strict)
        base = replaying
        origin = origin or replaying.fixture.header.origin
    elif transport is None:
        raise UsageError("nothing to connect to: give a device or a fixture to replay")
    else:
        base = transport
    if record is None:
        return base
    return RecordingTransport(
        base, record, origin=origin or ORIGIN_REAL, note=note, redact_serial=redact_serial
    )


def connect_replay(
    path: PathLike,
    *,
    keys: Sequence[Signer] | None = None,
    strict: bool = False,
    timeouts: Timeouts | None = None,
) -> AdbClient:
    """An `AdbClient` connected to the recorded device of the fixture at `path`."""
    transport = ReplayTransport(path, strict=strict)
    return AdbClient.connect(
        transport, list(keys) if keys is not None else [ReplayKey()], timeouts=timeouts
    )
