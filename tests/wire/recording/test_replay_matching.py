"""Replay's choice of recorded stream: by service, then by the host's bytes, tokens swapped."""

from __future__ import annotations

from pathlib import Path

from adbwire.wire.recording import load_fixture
from adbwire.wire.recording.events import Close, Data, End, Event, Open
from adbwire.wire.recording.host_bytes import canon_for
from adbwire.wire.recording.replay_matching import LiveStream, StreamMatcher
from adbwire.wire.recording.script import build_script
from adbwire.wire.recording.sync_replay import sync_pool
from tests.wire.recording.test_fixture_file import HEADER, write

RECORDED_NAME = b"adbwire-install-aaaaaaaaaaaa"
CLIENT_NAME = b"adbwire-install-0123456789ab"


def matcher_for(tmp_path: Path, events: list[Event]) -> StreamMatcher:
    return StreamMatcher(build_script(load_fixture(write(tmp_path / "f.jsonl", HEADER, events))))


def opened(matcher: StreamMatcher, service: str) -> LiveStream:
    candidates, swaps, translations = matcher.open_candidates(service)
    return LiveStream(1, 1, service, candidates, swaps, translations, canon_for(service))


def staged(stream: int, name: bytes) -> list[Event]:
    return [
        Open(stream, "exec:cat"),
        Data(stream, "host", b"stage " + name + b"\n"),
        Data(stream, "device", b"staged " + name + b"\n"),
        Close(stream, "device"),
    ]


def test_a_token_in_the_host_bytes_is_learned_and_said_back(tmp_path: Path) -> None:
    matcher = matcher_for(tmp_path, [*staged(1, RECORDED_NAME), End("host")])
    live = opened(matcher, "exec:cat")
    assert matcher.narrow(live, b"stage " + CLIENT_NAME + b"\n")
    assert live.host_offset == len(b"stage " + CLIENT_NAME + b"\n")
    matcher.commit(live, live.candidates[0])
    (chunk,) = live.chunks
    assert matcher.swapped(chunk.data) == b"staged " + CLIENT_NAME + b"\n"


def test_bytes_the_recording_does_not_have_change_nothing(tmp_path: Path) -> None:
    matcher = matcher_for(tmp_path, [*staged(1, RECORDED_NAME), End("host")])
    live = opened(matcher, "exec:cat")
    assert not matcher.narrow(live, b"unstage " + CLIENT_NAME)
    assert (live.host_offset, matcher.swaps, len(live.candidates)) == (0, {}, 1)


def test_a_learned_token_must_be_used_again_where_the_recording_repeats_it(
    tmp_path: Path,
) -> None:
    events = [*staged(1, RECORDED_NAME), *staged(2, RECORDED_NAME), End("host")]
    matcher = matcher_for(tmp_path, events)
    first = opened(matcher, "exec:cat")
    assert [item.number for item in first.candidates] == [1, 2]
    assert matcher.narrow(first, b"stage " + CLIENT_NAME + b"\n")
    matcher.commit(first, first.candidates[0])
    assert matcher.swaps == {RECORDED_NAME: CLIENT_NAME}
    second = opened(matcher, "exec:cat")
    assert [item.number for item in second.candidates] == [2]
    # The recording names the same file twice: the client must too.
    assert not matcher.narrow(second, b"stage adbwire-install-cdcdcdcdcdcd\n")
    assert matcher.narrow(second, b"stage " + CLIENT_NAME + b"\n")


def test_leftovers_name_what_was_never_sent_or_opened(tmp_path: Path) -> None:
    events = [*staged(1, RECORDED_NAME), *staged(2, RECORDED_NAME), End("host")]
    matcher = matcher_for(tmp_path, events)
    live = opened(matcher, "exec:cat")
    matcher.commit(live, live.candidates[0])
    first, second = matcher.script.streams
    assert matcher.leftovers(sync_pool(matcher.script.fixture)) == [
        f"{first.describe()}: {first.device_size} device bytes never sent",
        f"{first.describe()}: the client wrote 0 of the {len(first.host)} recorded bytes",
        f"{second.describe()} was never opened",
    ]
