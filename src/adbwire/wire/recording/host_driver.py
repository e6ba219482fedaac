"""Replaying a fixture end to end through `AdbClient`, with no knowledge of its services.

`play_host_side` opens every recorded stream in order, writes what the host wrote and
checks that the replayed device answers with the recorded bytes: any fixture, including an
imported capture of Google's adb (whose service strings our services would not produce),
runs through our connection, streams and flow control. `verify_fixture` adds the recorded
`call` lines: the same calls, made with the service functions, give the same results.
"""

from __future__ import annotations

import os
from typing import Final

from adbwire.errors import AdbwireError, ReplayMismatchError, StreamRefusedError
from adbwire.wire.client import AdbClient
from adbwire.wire.recording.calls import check_calls, recorded_calls
from adbwire.wire.recording.events import Close, Data
from adbwire.wire.recording.fixture_file import Fixture, load_fixture
from adbwire.wire.recording.script import build_script, shorten
from adbwire.wire.recording.wrapping import connect_replay
from adbwire.wire.timeouts import Deadline, Timeouts

DRIVER_TIMEOUT: Final = 10.0


def play_host_side(
    client: AdbClient, fixture: Fixture, timeout: float = DRIVER_TIMEOUT
) -> list[str]:
    """Play the host's part of every stream of `fixture` on `client`; problems found."""
    problems: list[str] = []
    for recorded in build_script(fixture).streams:
        where = f"{fixture.where(recorded.line)} {recorded.service!r}"
        deadline = Deadline(timeout, f"replaying {where}")
        try:
            stream = client.open_stream(recorded.service, timeout=timeout)
        except StreamRefusedError:
            if not recorded.refused:
                problems.append(f"{where}: refused on replay, accepted when recorded")
            continue
        if recorded.refused:
            stream.close()
            problems.append(f"{where}: accepted on replay, refused when recorded")
            continue
        with stream:
            for item in fixture.events:
                event = item.event
                if getattr(event, "stream", None) != recorded.number:
                    continue
                if isinstance(event, Data) and event.side == "host":
                    stream.write(event.data, deadline)
                elif isinstance(event, Data):
                    got = stream.read_exactly(len(event.data), deadline)
                    if got != event.data:
                        problems.append(
                            f"{fixture.where(item.line)}: device bytes {shorten(got)}, "
                            f"recorded {shorten(event.data)}"
                        )
                        break
                elif isinstance(event, Close) and event.by == "device":
                    rest = stream.read(None, deadline)
                    if rest:
                        problems.append(f"{fixture.where(item.line)}: bytes after the close")
                elif isinstance(event, Close):
                    break
    return problems


def _expected_connect_error(fixture: Fixture) -> str | None:
    """The error class a `connect` call line says connecting raised, if any."""
    expected = None
    for _line, call in recorded_calls(fixture):
        if call.name == "connect":
            expected = call.result.get("error")
    return expected


def verify_fixture(path: str | os.PathLike[str], *, auth_wait: float = 0.5) -> list[str]:
    """Replay the fixture at `path` strictly, once per check; every difference found.

    With `call` lines, the calls are made again and their results compared; then the host's
    side of every stream is played (`play_host_side`). Unused traffic counts as a problem.
    """
    fixture = load_fixture(path)
    expected_error = _expected_connect_error(fixture)
    timeouts = Timeouts(connect=DRIVER_TIMEOUT, auth=auth_wait, operation=DRIVER_TIMEOUT)
    has_calls = any(call.name != "connect" for _line, call in recorded_calls(fixture))
    problems: list[str] = []
    for check in (check_calls, play_host_side) if has_calls else (play_host_side,):
        try:
            client = connect_replay(path, strict=True, timeouts=timeouts)
        except AdbwireError as exc:
            if type(exc).__name__ != expected_error:
                problems.append(f"{path}: connecting raised {exc!r}, recorded {expected_error}")
            return problems
        try:
            if expected_error is not None:
                problems.append(f"{path}: connected, but the recording says {expected_error}")
            else:
                problems += check(client, fixture)
        finally:
            try:
                client.close()
            except ReplayMismatchError as exc:
                problems.append(str(exc))
    return problems
