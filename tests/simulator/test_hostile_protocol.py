"""Protocol-level hostile modes (adbwire.testing.hostile.adbd/protocol): adbwire's client
ends every one with a typed error from adbwire.errors, within a bounded time."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable

import pytest

from adbwire.errors import (
    AdbTimeoutError,
    AdbwireError,
    AuthRejectedError,
    DisconnectedError,
    RemoteProtocolError,
    SyncFailError,
    UsageError,
)
from adbwire.testing.hostile.adbd import HostileAdbd, Script
from adbwire.testing.hostile.protocol import (
    MALFORMED_SHELL_V2,
    MALFORMED_SYNC,
    Malformed,
    answer,
    auth_loop,
    bad_magic,
    lying_length,
    oversized_packet,
    repeated_cnxn,
)
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey
from adbwire.wire.services.shell import ShellResult
from adbwire.wire.timeouts import Timeouts

TIMEOUTS = Timeouts(connect=5.0, auth=5.0, operation=2.0)
BOUND = 30.0
"""Far beyond every deadline above: reaching it means a hang, not a slow machine."""

Operation = Callable[[AdbClient], object]
OPERATIONS: dict[str, Operation] = {
    "stat": lambda client: client.stat("/sdcard/x"),
    "list": lambda client: client.list_dir("/sdcard"),
    "pull": lambda client: client.pull_stream("/sdcard/x", io.BytesIO()),
    "shell": lambda client: client.shell("echo hi"),
    "exec": lambda client: client.exec_out("echo hi"),
}


def outcome(script: Script, operation: Operation, keys: list[AdbKey] | None = None) -> object:
    """Connect to a HostileAdbd running `script`, run `operation`; return its result or the
    exception it raised. Fails the test if it takes longer than BOUND, if the script failed
    on its own, or if the client connected more than once."""
    box: list[object] = []
    adbd = HostileAdbd(script)

    def attempt() -> None:
        try:
            with AdbClient.connect_tcp(adbd.serial, keys or [], timeouts=TIMEOUTS) as client:
                box.append(operation(client))
        except BaseException as error:  # the test inspects it
            box.append(error)

    with adbd:
        thread = threading.Thread(target=attempt, daemon=True)
        thread.start()
        thread.join(BOUND)
        assert not thread.is_alive(), f"no answer within {BOUND} s: a hang"
    assert not adbd.errors
    assert adbd.connections == 1
    return box[0]


def assert_fails(result: object, expected: type[AdbwireError], *words: str) -> None:
    assert isinstance(result, expected), f"expected {expected.__name__}, got {result!r}"
    for word in words:
        assert word in str(result)


@pytest.mark.parametrize(
    ("script", "expected", "words"),
    [
        (lying_length(then="silence"), AdbTimeoutError, ()),
        (lying_length(then="close"), DisconnectedError, ("closed",)),
        (lying_length(100, then="packets"), DisconnectedError, ("magic",)),
        (oversized_packet(), DisconnectedError, ("16777216", "maximum")),
        (oversized_packet(then="close"), DisconnectedError, ("maximum",)),
        (bad_magic(), DisconnectedError, ("magic",)),
        (repeated_cnxn(), DisconnectedError, ("CNXN",)),
    ],
    ids=[
        "lying length, then silence",
        "lying length, then close",
        "lying length, then more packets",
        "oversized packet",
        "oversized packet, then close",
        "bad magic",
        "repeated CNXN",
    ],
)
def test_broken_packet_framing_ends_in_a_typed_error(
    script: Script, expected: type[AdbwireError], words: tuple[str, ...]
) -> None:
    assert_fails(outcome(script, OPERATIONS["exec"]), expected, *words)


def test_auth_loop_ends_after_one_round_of_keys(adb_key: AdbKey, other_key: AdbKey) -> None:
    keys = [adb_key, other_key]
    assert_fails(outcome(auth_loop(), OPERATIONS["shell"], keys), AuthRejectedError)
    assert_fails(outcome(auth_loop(), OPERATIONS["shell"], []), UsageError, "authentication")


SYNC_EXPECTED: dict[str, type[AdbwireError]] = {
    "stat: unknown id": RemoteProtocolError,
    "stat: cut short": DisconnectedError,
    "stat: errno out of range": SyncFailError,
    "stat: FAIL with a 4 GiB message": RemoteProtocolError,
    "stat: FAIL whose message is cut short": DisconnectedError,
    "list: unknown id": RemoteProtocolError,
    "list: a 4 GiB name": RemoteProtocolError,
    "list: name cut short": DisconnectedError,
    "list: no DONE": DisconnectedError,
    "list: v1 DENT in a v2 listing": DisconnectedError,
    "list: name with a slash": RemoteProtocolError,
    "pull: DATA over 64 KiB": RemoteProtocolError,
    "pull: DATA of 4 GiB": RemoteProtocolError,
    "pull: DATA cut short": DisconnectedError,
    "pull: unknown id": RemoteProtocolError,
    "pull: no DONE": DisconnectedError,
    "pull: a STAT reply instead of DATA": RemoteProtocolError,
    "pull: FAIL with a 4 GiB message": RemoteProtocolError,
    "stat v1: unknown id": RemoteProtocolError,
    "stat v1: cut short": DisconnectedError,
    "list v1: a 4 GiB name": RemoteProtocolError,
    "list v1: a v2 entry": RemoteProtocolError,
    "pull v1: DATA of 4 GiB": RemoteProtocolError,
}
SYNC_TOLERATED = {"list: DONE with garbage fields", "pull: DONE with a length"}
"""Odd but harmless: DONE's fields carry nothing a client needs."""


@pytest.mark.parametrize(
    "case",
    [case for case in MALFORMED_SYNC if case.name not in SYNC_TOLERATED],
    ids=lambda case: case.name,
)
def test_malformed_sync_replies_end_in_a_typed_error(case: Malformed) -> None:
    assert_fails(outcome(case.script(), OPERATIONS[case.operation]), SYNC_EXPECTED[case.name])


def test_odd_but_harmless_sync_replies_are_read() -> None:
    cases = {case.name: case for case in MALFORMED_SYNC}
    listed = outcome(cases["list: DONE with garbage fields"].script(), OPERATIONS["list"])
    assert isinstance(listed, list)
    assert [entry.name for entry in listed] == ["name"]
    pulled = outcome(cases["pull: DONE with a length"].script(), OPERATIONS["pull"])
    assert pulled == 2


@pytest.mark.parametrize(
    "case",
    [case for case in MALFORMED_SYNC if "4 GiB" in case.name],
    ids=lambda case: case.name,
)
def test_a_sync_length_of_gigabytes_is_refused_before_the_bytes(case: Malformed) -> None:
    """The device goes on sending after the length: the client refuses at the header
    instead of reading (and holding) what the length promises until its deadline."""
    result = outcome(case.script(then="flood"), OPERATIONS[case.operation])
    assert_fails(result, RemoteProtocolError)


SHELL_EXPECTED: dict[str, type[AdbwireError] | ShellResult] = {
    "shell: unknown packet id": ShellResult("echo hi", b"", b"", 0),  # skipped, as adb does
    "shell: stdout cut short": RemoteProtocolError,
    "shell: a 4 GiB stdout packet": RemoteProtocolError,
    "shell: exit without a status": ShellResult("echo hi", b"", b"", 255),
    "shell: exit with 4 status bytes": ShellResult("echo hi", b"", b"", 1),
    "shell: no exit packet": RemoteProtocolError,
    "shell: a header cut short": RemoteProtocolError,
    "shell: stdin id from the device": ShellResult("echo hi", b"", b"", 0),
}


@pytest.mark.parametrize("case", MALFORMED_SHELL_V2, ids=lambda case: case.name)
def test_malformed_shell_v2_replies_end_in_a_typed_error_or_are_skipped(case: Malformed) -> None:
    result = outcome(answer("shell", case.reply), OPERATIONS["shell"])
    expected = SHELL_EXPECTED[case.name]
    if isinstance(expected, ShellResult):
        assert result == expected
    else:
        assert_fails(result, expected)


def test_a_shell_packet_of_gigabytes_is_refused_at_its_header() -> None:
    (case,) = [case for case in MALFORMED_SHELL_V2 if "4 GiB" in case.name]
    result = outcome(answer("shell", case.reply, then="flood"), OPERATIONS["shell"])
    assert_fails(result, RemoteProtocolError, "4294967295")
