"""The sentences a replay says: the banner it answers with, and what went wrong where."""

from __future__ import annotations

from adbwire.wire.recording.fixture_file import Fixture
from adbwire.wire.recording.script import RecordedStream, ReplayScript, shorten


def banner_for_replay(banner: str | None) -> bytes:
    """The recorded banner without `delayed_ack` (replay uses classic flow control)."""
    if banner is None:
        return b"device::"
    head, sep, features = banner.rpartition("features=")
    if not sep:
        return banner.encode()
    value, semi, rest = features.partition(";")
    kept = ",".join(item for item in value.split(",") if item and item != "delayed_ack")
    return f"{head}features={kept}{semi}{rest}".encode()


def no_stream_message(script: ReplayScript, used: set[int], service: str) -> str:
    """The client opened `service`, which no unused recorded stream answers."""
    fixture = script.fixture
    unused = [item for item in script.streams if item.number not in used]
    if not unused:
        events = fixture.events
        last = script.end_line or (events[-1].line if events else 1)
        return (
            f"replay ran past the end of the recording: the client opened {service!r} "
            f"but every recorded stream was used ({fixture.where(last)} is the end)"
        )
    nxt = unused[0]
    return (
        f"the client opened {service!r}, which the recording does not have (unused); "
        f"the next unused recorded stream is {nxt.service!r} at {fixture.where(nxt.line)}"
    )


def bytes_mismatch_message(
    fixture: Fixture, recorded: RecordedStream, start: int, actual: bytes
) -> tuple[str, int]:
    """What differs between the recorded host bytes from `start` and `actual`, and the line."""
    expected = bytes(recorded.host[start : start + len(actual)])
    differ = next(
        (i for i, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b),
        len(expected),
    )
    line = recorded.line_of_host_byte(start + differ)
    if differ >= len(expected):
        detail = (
            f"the client wrote {len(actual) - len(expected)} bytes more than recorded: "
            f"{shorten(actual, differ)}"
        )
    else:
        detail = f"expected {shorten(expected, differ)}, the client wrote {shorten(actual, differ)}"
    message = (
        f"replay mismatch on stream {recorded.number} ({recorded.service!r}) at byte "
        f"{start + differ} of what the client writes: {detail} ({fixture.where(line)})"
    )
    return message, line
