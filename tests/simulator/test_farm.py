"""DeviceFarm and `adbwire simulate --devices N`: many devices, one process, own state each."""

from __future__ import annotations

import contextlib
import gc
import os
import random
import signal
import subprocess
import sys
import threading

import pytest

from adbwire.errors import AdbwireError, ConnectFailedError, DisconnectedError
from adbwire.testing import DeviceOptions
from adbwire.testing.farm import DeviceFarm, LazyUserland
from adbwire.wire.client import AdbClient
from adbwire.wire.timeouts import Timeouts

OPEN = DeviceOptions(auth_required=False)


def test_each_device_has_its_own_serial_and_state() -> None:
    with DeviceFarm(4, OPEN) as farm:
        assert len(set(farm.addresses)) == 4
        clients = AdbClient.connect_tcp_many(farm.addresses, [])
        try:
            phones = [clients[address] for address in farm.addresses]
            assert all(isinstance(phone, AdbClient) for phone in phones)
            serials = [
                phone.shell("getprop ro.serialno").stdout.strip()  # type: ignore[union-attr]
                for phone in phones
            ]
            assert serials == [b"SIM00001", b"SIM00002", b"SIM00003", b"SIM00004"]
            first, second = phones[0], phones[1]
            assert isinstance(first, AdbClient) and isinstance(second, AdbClient)
            first.shell("echo mine > /data/local/tmp/only-here")
            assert first.shell("cat /data/local/tmp/only-here").stdout == b"mine\n"
            assert second.shell("ls /data/local/tmp/only-here").exit_code != 0
        finally:
            for client in clients.values():
                if isinstance(client, AdbClient):
                    client.close()


def test_a_device_builds_its_userland_only_when_it_runs_a_command() -> None:
    with DeviceFarm(3, OPEN) as farm:
        userlands = [device.userland for device in farm.devices]
        assert all(isinstance(u, LazyUserland) and not u.built for u in userlands)
        with AdbClient.connect_tcp(farm.addresses[1], []) as client:
            assert client.banner.model == "sdk_gphone64_x86_64"  # from the banner options
            assert not any(u.built for u in userlands)  # type: ignore[attr-defined]
            client.shell("true")
        assert [u.built for u in userlands] == [False, True, False]  # type: ignore[attr-defined]


def test_ports_are_consecutive_from_first_port() -> None:
    for _attempt in range(10):
        first = random.randrange(20000, 60000)
        try:
            farm = DeviceFarm(5, OPEN, first_port=first).start()
        except OSError:
            continue  # one of the ports was taken: try another range
        try:
            assert farm.addresses == [f"127.0.0.1:{first + i}" for i in range(5)]
        finally:
            farm.stop()
        return
    pytest.skip("no range of 5 free ports found")


def test_stop_closes_every_listener_and_connection() -> None:
    earlier = set(threading.enumerate())  # another test's leftovers are not this farm's
    farm = DeviceFarm(20, OPEN).start()
    try:
        clients = AdbClient.connect_tcp_many(farm.addresses, [])
        assert all(isinstance(c, AdbClient) for c in clients.values())
    finally:
        farm.stop()
    assert not [
        t for t in threading.enumerate() if t.name == "adbd-sim farm accept" and t not in earlier
    ]
    for client in clients.values():
        assert isinstance(client, AdbClient)
        with pytest.raises(DisconnectedError):
            client.shell("true", timeout=10)
        client.close()
    refused = AdbClient.connect_tcp_many(farm.addresses, [])
    assert all(isinstance(result, ConnectFailedError) for result in refused.values())


def test_a_farm_refuses_a_port_range_past_65535() -> None:
    with pytest.raises(ValueError, match="not all valid"):
        DeviceFarm(10, OPEN, first_port=65530)


@pytest.mark.slow
def test_simulate_devices_prints_every_address_and_stops_on_sigterm() -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "adbwire",
            "simulate",
            "--devices",
            "3",
            "--port",
            "0",
            "--accept-any-key",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        addresses = [process.stdout.readline().strip() for _ in range(3)]
        assert len(set(addresses)) == 3
        results = AdbClient.connect_tcp_many(addresses, None)
        for client in results.values():
            assert isinstance(client, AdbClient)
            with client:
                assert client.shell("echo up").stdout == b"up\n"
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def test_a_built_userland_is_frozen_out_of_full_collections_when_asked() -> None:
    with DeviceFarm(2, OPEN) as farm:  # in-process default: the process's collector untouched
        before = gc.get_freeze_count()
        with AdbClient.connect_tcp(farm.addresses[0], []) as client:
            client.shell("true")
        assert gc.get_freeze_count() == before
    try:
        with DeviceFarm(2, OPEN, freeze_built=True) as farm:
            with AdbClient.connect_tcp(farm.addresses[0], []) as client:
                client.shell("true")
            assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()  # the rest of the test session keeps its collector as it was


def test_one_device_failing_to_accept_leaves_the_others_accepting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with DeviceFarm(2, OPEN) as farm:
        broken = farm.devices[0]

        def failing() -> None:  # takes the connection, then fails as a bug would
            assert broken.listener is not None
            with contextlib.suppress(BlockingIOError):
                broken.listener.accept()[0].close()
            raise RuntimeError("a bug in one device")

        monkeypatch.setattr(broken, "accept_pending", failing)
        results = AdbClient.connect_tcp_many(
            farm.addresses, [], timeouts=Timeouts(connect=2.0, operation=2.0)
        )
        assert isinstance(results[farm.addresses[0]], AdbwireError)
        client = results[farm.addresses[1]]
        assert isinstance(client, AdbClient)
        with client:
            assert client.shell("echo up", timeout=10).stdout == b"up\n"
        monkeypatch.undo()
        with AdbClient.connect_tcp(farm.addresses[0], []) as again:  # a later try is served
            assert again.shell("echo up", timeout=10).stdout == b"up\n"
