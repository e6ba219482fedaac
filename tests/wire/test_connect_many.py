"""Connecting to many devices: keys parsed once, connections in parallel, failures per address."""

from __future__ import annotations

import shutil
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest
from cryptography.hazmat.primitives import serialization

from adbwire.errors import AdbwireError, ConnectFailedError
from adbwire.testing import SimulatedDevice
from adbwire.wire import aio, rsa_signer
from adbwire.wire.aio import AsyncAdbClient
from adbwire.wire.client import AdbClient, connect_tcp_many
from adbwire.wire.keys import AdbKey, default_key_path, generate_key, load_key


def _closed_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"


def _count_parses(monkeypatch: pytest.MonkeyPatch) -> tuple[list[bytes], list[bytes]]:
    """The key contents read by rsa_signer, and those loaded through OpenSSL."""
    ours: list[bytes] = []
    openssl: list[bytes] = []
    real_read = rsa_signer.read_pem_private_key
    real_load = serialization.load_pem_private_key

    def counting_read(data: bytes) -> rsa_signer.RsaPrivateNumbers | None:
        ours.append(data)
        return real_read(data)

    def counting_load(data: bytes, password: bytes | None) -> object:
        openssl.append(data)
        return real_load(data, password)

    monkeypatch.setattr(rsa_signer, "read_pem_private_key", counting_read)
    monkeypatch.setattr(serialization, "load_pem_private_key", counting_load)
    return ours, openssl


def test_a_key_file_is_parsed_once_until_its_content_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "adbkey"
    first = generate_key(path, comment="a@b")
    parsed, openssl = _count_parses(monkeypatch)
    assert load_key(path).public_numbers == first.public_numbers
    assert load_key(path).public_numbers == first.public_numbers
    assert len(parsed) == 1
    second = generate_key(path, comment="a@b", force=True)
    assert load_key(path).public_numbers == second.public_numbers
    assert parsed == [parsed[0], path.read_bytes()] and parsed[0] != parsed[1]
    assert openssl == []  # adb's own PEM forms never need OpenSSL to be read


def test_connect_tcp_without_keys_parses_the_user_key_once(
    sim_device: SimulatedDevice, adb_key: AdbKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    default_key_path().parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(adb_key.path, default_key_path())
    parsed, openssl = _count_parses(monkeypatch)
    for _ in range(3):
        with AdbClient.connect_tcp(sim_device.serial) as client:
            assert client.shell("echo ok").stdout == b"ok\n"
    assert len(parsed) <= 1
    assert openssl == []


def test_connect_tcp_many_answers_per_address(
    sim_device_factory: Callable[..., SimulatedDevice], adb_key: AdbKey
) -> None:
    devices = [sim_device_factory() for _ in range(4)]
    dead = _closed_port()
    addresses = [device.serial for device in devices] + [dead, devices[0].serial]
    results = AdbClient.connect_tcp_many(addresses, [adb_key], parallel=3)
    try:
        assert list(results) == [device.serial for device in devices] + [dead]
        assert isinstance(results[dead], ConnectFailedError)
        for device in devices:
            client = results[device.serial]
            assert isinstance(client, AdbClient)
            assert client.shell("echo hi").stdout == b"hi\n"
            assert device.connection_count == 1
    finally:
        for result in results.values():
            if isinstance(result, AdbClient):
                result.close()


def test_connect_tcp_many_async(
    sim_device_factory: Callable[..., SimulatedDevice], adb_key: AdbKey
) -> None:
    devices = [sim_device_factory() for _ in range(3)]

    async def main() -> list[bytes]:
        results = await AsyncAdbClient.connect_tcp_many(
            [device.serial for device in devices], [adb_key]
        )
        outputs = []
        for result in results.values():
            assert isinstance(result, AsyncAdbClient)
            async with result:
                outputs.append((await result.shell("echo hi")).stdout)
        return outputs

    assert anyio.run(main) == [b"hi\n"] * 3


def test_a_cancelled_connect_tcp_many_closes_what_it_connected(
    sim_device_factory: Callable[..., SimulatedDevice],
    adb_key: AdbKey,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The connections finish after the caller gave up: nobody will see them, so they are
    closed rather than left open with their reader threads."""
    devices = [sim_device_factory() for _ in range(3)]
    connected = threading.Event()
    release = threading.Event()

    def slow_to_return(*args: Any, **kwargs: Any) -> dict[str, AdbClient | AdbwireError]:
        results = connect_tcp_many(*args, **kwargs)
        connected.set()
        release.wait(30)
        return results

    monkeypatch.setattr(aio, "connect_tcp_many", slow_to_return)

    async def main() -> None:
        with anyio.move_on_after(30) as scope:
            async with anyio.create_task_group() as group:
                group.start_soon(
                    AsyncAdbClient.connect_tcp_many, [d.serial for d in devices], [adb_key]
                )
                await anyio.to_thread.run_sync(connected.wait, 30)
                group.cancel_scope.cancel()
        assert not scope.cancelled_caught

    anyio.run(main)
    assert all(device.connection_count == 1 for device in devices)
    release.set()
    for device in devices:
        assert device.wait_for_connections(0, timeout=30), device.serial
