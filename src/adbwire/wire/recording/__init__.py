"""Record a session with a device once, replay it forever (format: docs/fixtures.md).

- `RecordingTransport(inner, path, origin=..., note=..., redact_serial=...)` wraps any
  transport and writes the session to a fixture as it happens.
- `ReplayTransport(path, strict=False)` plays the device side back; a client that asks for
  something else gets `ReplayMismatchError` naming the stream, the bytes and the line.
- `wrap_transport(...)` / `replay_transport(path)` / `connect_replay(path)` for callers.
- `StreamLog` is the packets-to-events builder both the recorder and the capture import use.
"""

from adbwire.wire.recording.events import (
    FORMAT_VERSION,
    ORIGIN_IMPORTED,
    ORIGIN_REAL,
    ORIGIN_SIMULATED,
    ORIGINS,
    AuthSummary,
    Call,
    Close,
    Data,
    End,
    Event,
    FixtureHeader,
    Located,
    Open,
    Refused,
)
from adbwire.wire.recording.fixture_file import Fixture, FixtureWarning, FixtureWriter, load_fixture
from adbwire.wire.recording.recording_transport import RecordingTransport
from adbwire.wire.recording.replay_transport import ReplayTransport
from adbwire.wire.recording.stream_log import StreamLog
from adbwire.wire.recording.wrapping import (
    ReplayKey,
    connect_replay,
    replay_transport,
    wrap_transport,
)

__all__ = [
    "FORMAT_VERSION",
    "ORIGINS",
    "ORIGIN_IMPORTED",
    "ORIGIN_REAL",
    "ORIGIN_SIMULATED",
    "AuthSummary",
    "Call",
    "Close",
    "Data",
    "End",
    "Event",
    "Fixture",
    "FixtureHeader",
    "FixtureWarning",
    "FixtureWriter",
    "Located",
    "Open",
    "RecordingTransport",
    "Refused",
    "ReplayKey",
    "ReplayTransport",
    "StreamLog",
    "connect_replay",
    "load_fixture",
    "replay_transport",
    "wrap_transport",
]
