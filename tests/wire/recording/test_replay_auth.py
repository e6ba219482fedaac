"""Authentication paths recorded against the simulated device replay the same way, whatever
key the replaying host has."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adbwire.errors import AuthPendingError, UsageError
from adbwire.wire.connection import Connection, Signer
from adbwire.wire.keys import AdbKey
from adbwire.wire.recording import RecordingTransport, ReplayKey, ReplayTransport, load_fixture
from adbwire.wire.timeouts import Timeouts
from tests.wire.recording.helpers import DeviceFactory, standin_device, tcp_to

QUICK_AUTH = Timeouts(connect=10, auth=0.3, operation=10)


def public(key: AdbKey) -> str:
    return key.public_key_bytes().rstrip(b"\0").decode()


def record(
    factory: DeviceFactory, path: Path, keys: list[Signer], **options: Any
) -> Exception | None:
    device = standin_device(factory, accept_any_key=False, **options)
    try:
        connection = Connection.open(
            RecordingTransport(tcp_to(device), path), keys, timeouts=QUICK_AUTH
        )
    except AuthPendingError as exc:
        return exc
    with connection.open_stream("exec:cat") as stream:
        stream.write(b"ok")
        assert stream.read_exactly(2) == b"ok"
    connection.close()
    return None


def replay(path: Path, keys: list[Signer]) -> Exception | None:
    try:
        connection = Connection.open(ReplayTransport(path, strict=True), keys, timeouts=QUICK_AUTH)
    except AuthPendingError as exc:
        return exc
    with connection.open_stream("exec:cat") as stream:
        stream.write(b"ok")
        assert stream.read_exactly(2) == b"ok"
    connection.close()
    return None


def test_a_trusted_key_replays_with_any_key(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, other_key: AdbKey, tmp_path: Path
) -> None:
    path = tmp_path / "signed.jsonl"
    assert record(sim_device_factory, path, [adb_key], authorized_keys=(public(adb_key),)) is None
    auth = load_fixture(path).header.auth
    assert (auth.outcome, auth.tokens, auth.signatures) == ("signature", 1, 1)
    assert replay(path, [other_key]) is None
    assert replay(path, [ReplayKey()]) is None
    with pytest.raises(UsageError, match="no key was given"):
        replay(path, [])


def test_an_accepted_public_key_replays_as_a_prompt_that_is_accepted(
    sim_device_factory: DeviceFactory, other_key: AdbKey, tmp_path: Path
) -> None:
    path = tmp_path / "prompt.jsonl"
    assert record(sim_device_factory, path, [other_key], accept_new_keys=True) is None
    auth = load_fixture(path).header.auth
    assert (auth.outcome, auth.public_key_offered) == ("public_key", True)
    assert replay(path, [ReplayKey()]) is None


def test_a_prompt_nobody_accepted_replays_as_a_pending_prompt(
    sim_device_factory: DeviceFactory, other_key: AdbKey, tmp_path: Path
) -> None:
    path = tmp_path / "pending.jsonl"
    recorded = record(sim_device_factory, path, [other_key])
    assert isinstance(recorded, AuthPendingError)
    fixture = load_fixture(path)
    assert fixture.header.auth.outcome == "incomplete"
    assert fixture.header.banner is None
    replayed = replay(path, [ReplayKey()])
    assert isinstance(replayed, AuthPendingError)
    assert "Allow USB debugging" in str(replayed)


def test_a_device_without_auth_replays_without_auth(
    sim_device_factory: DeviceFactory, tmp_path: Path
) -> None:
    path = tmp_path / "open.jsonl"
    assert record(sim_device_factory, path, [], auth_required=False) is None
    assert load_fixture(path).header.auth.outcome == "none"
    assert replay(path, []) is None
