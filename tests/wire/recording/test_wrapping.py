"""wrap_transport / connect_replay: what --record and --replay build."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from adbwire.errors import ReplayMismatchError, UsageError
from adbwire.wire.client import AdbClient
from adbwire.wire.connection import Connection
from adbwire.wire.recording import (
    ORIGIN_IMPORTED,
    FixtureWarning,
    RecordingTransport,
    ReplayKey,
    ReplayTransport,
    connect_replay,
    load_fixture,
    replay_transport,
    wrap_transport,
)
from adbwire.wire.recording.events import Close, End, Event, Open

LIBRARY = Path(__file__).resolve().parents[3] / "protocol_fixtures"
CAPTURED = LIBRARY / "imported" / "adb-shell-exec.jsonl"


def streams_of(events: list[Event]) -> list[Event | tuple[str, int]]:
    """The stream events, with who closed each shell v2 stream left out: the host closes
    one at its exit packet, and whether the device's CLSE, on its way by then, is read
    first is the scheduler's choice (a replay of either version plays the same)."""
    shell_v2 = {
        e.stream for e in events if isinstance(e, Open) and e.service.startswith("shell,v2")
    }
    return [
        ("closed", e.stream) if isinstance(e, Close) and e.stream in shell_v2 else e
        for e in events
        if not isinstance(e, End)
    ]


class Unused:
    kind = "tcp"
    address = "192.0.2.1:5555"


def test_replay_needs_no_transport_and_record_needs_one(tmp_path: Path) -> None:
    assert isinstance(wrap_transport(None, replay=CAPTURED), ReplayTransport)
    assert isinstance(replay_transport(CAPTURED), ReplayTransport)
    with pytest.raises(UsageError, match="nothing to connect to"):
        wrap_transport(None, record=tmp_path / "x.jsonl")
    plain: Any = Unused()
    assert wrap_transport(plain) is plain
    recording = wrap_transport(plain, record=tmp_path / "x.jsonl")
    assert isinstance(recording, RecordingTransport)
    assert (recording.kind, recording.address) == ("tcp", "192.0.2.1:5555")


def test_an_unwritable_recording_path_fails_before_connecting(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot write the recording"):
        wrap_transport(Unused(), record=tmp_path / "no" / "such" / "dir" / "x.jsonl")  # type: ignore[arg-type]


def test_recording_a_replay_keeps_its_streams_and_its_origin(tmp_path: Path) -> None:
    again = tmp_path / "again.jsonl"
    transport = wrap_transport(None, replay=CAPTURED, record=again, note="re-recorded")
    client = AdbClient(Connection.open(transport, [ReplayKey()]))
    try:
        client.shell("getprop ro.product.model")
        client.shell("echo oops >&2; exit 3")
        client.exec_out("cat /sdcard/Download/groceries.txt")
    finally:
        client.close()
    original, copy = load_fixture(CAPTURED), load_fixture(again)
    assert copy.header.origin == ORIGIN_IMPORTED
    assert copy.header.note == "re-recorded"
    assert original.header.banner is not None and "delayed_ack" in original.header.banner
    assert copy.header.banner == original.header.banner.replace(",delayed_ack", "")
    streams = streams_of([i.event for i in original.events])
    assert streams_of([i.event for i in copy.events]) == streams


def test_connect_replay_needs_no_key_and_strict_reports_at_close() -> None:
    client = connect_replay(CAPTURED, strict=True)
    client.shell("getprop ro.product.model")
    with pytest.raises(ReplayMismatchError, match=r"stream 2 .* was never opened"):
        client.close()


def test_strict_never_hides_the_error_a_caller_is_closing_for() -> None:
    with (
        pytest.warns(FixtureWarning, match="did not use all"),
        pytest.raises(AssertionError, match="own failure"),
        connect_replay(CAPTURED, strict=True) as client,
    ):
        client.shell("getprop ro.product.model")
        raise AssertionError("the test's own failure")


def test_a_clean_replay_warns_about_nothing() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with connect_replay(CAPTURED, strict=True) as client:
            client.shell("getprop ro.product.model")
            client.shell("echo oops >&2; exit 3")
            client.exec_out("cat /sdcard/Download/groceries.txt")
