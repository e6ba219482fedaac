"""Discovery against the simulated phone's advertisement, inside a private network namespace
where multicast works (namespace.py); everything here skips, saying why, where none can be
made. Each wait is bounded: browses last seconds, and a body that hangs fails the test."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator

import pytest

from adbwire.errors import AdbTimeoutError
from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.testing.mdns_advertiser import MdnsAdvertiser, advertise_wireless_device
from adbwire.testing.pairing_server import PairingServer
from adbwire.wire.keys import AdbKey, default_key_comment, encode_android_pubkey
from adbwire.wire.mdns.browser import browse, find_instance
from adbwire.wire.mdns.names import CONNECT_SERVICE, PAIRING_SERVICE
from adbwire.wire.pairing.client import pair_with_password
from tests.conftest import CliRun
from tests.wire.mdns.namespace import run_in_multicast_namespace

CODE = "482913"
BROWSE = 3.0
"""Long enough on a loaded machine: a responder repeats a record at most once a second."""


@contextlib.contextmanager
def wireless_phone(
    other_key: AdbKey, pairing_name: str | None = None, code: str = CODE
) -> Iterator[tuple[SimulatedDevice, PairingServer]]:
    """A simulated phone with Wireless debugging on, advertised by mDNS (call inside the
    namespace: its sockets belong to the thread that makes them)."""
    with (
        SimulatedDevice(DeviceOptions(tls=True, authorized_keys=())) as device,
        PairingServer(device, code, device_key=other_key) as pairing,
        advertise_wireless_device(device, pairing, pairing_name=pairing_name),
    ):
        yield device, pairing


def trusted(device: SimulatedDevice, key: AdbKey) -> bool:
    return device.keys.is_authorized(
        encode_android_pubkey(key.public_key, default_key_comment()).decode()
    )


def test_browse_finds_both_services_of_the_simulated_phone(other_key: AdbKey) -> None:
    def body() -> None:
        with wireless_phone(other_key) as (device, pairing):
            discovery = browse(duration=BROWSE)
        by_type = {s.service_type: s for s in discovery.services}
        assert set(by_type) == {CONNECT_SERVICE, PAIRING_SERVICE}
        connect, pair = by_type[CONNECT_SERVICE], by_type[PAIRING_SERVICE]
        assert (connect.instance, connect.address) == (pairing.guid, f"127.0.0.1:{device.port}")
        assert (pair.instance, pair.address) == (pairing.guid, pairing.address)
        model = device.userland.properties["ro.product.model"]
        assert connect.txt == {"v": "1", "name": model, "api": "34"}
        assert discovery.dropped == 0

    run_in_multicast_namespace(body)


def test_the_pairing_service_is_withdrawn_once_paired(adb_key: AdbKey, other_key: AdbKey) -> None:
    def body() -> tuple[set[str], set[str]]:
        with wireless_phone(other_key) as (_, pairing):
            before = {s.service_type for s in browse(duration=BROWSE).services}
            pair_with_password(pairing.address, CODE.encode(), adb_key, timeout=10)
            assert pairing.paired.wait(10)
            after = {s.service_type for s in browse(duration=BROWSE).services}
        return before, after

    before, after = run_in_multicast_namespace(body)
    assert before == {CONNECT_SERVICE, PAIRING_SERVICE}
    assert after == {CONNECT_SERVICE}  # as a phone closes its pairing dialog


def test_browse_keeps_at_most_max_instances(other_key: AdbKey) -> None:
    def body() -> None:
        with MdnsAdvertiser("127.0.0.1", "flood") as advertiser:
            for index in range(4):
                advertiser.advertise(f"adb-flood-{index}", CONNECT_SERVICE, 5000 + index)
            discovery = browse([CONNECT_SERVICE], duration=BROWSE, max_instances=3)
        assert len(discovery.services) == 3
        assert discovery.dropped == 1

    run_in_multicast_namespace(body)


def test_find_instance_is_bounded() -> None:
    def body() -> float:
        started = time.monotonic()
        with pytest.raises(AdbTimeoutError, match="'adb-none'"):
            find_instance("adb-none", [CONNECT_SERVICE], timeout=1.0)
        return time.monotonic() - started

    assert run_in_multicast_namespace(body) < 10


# ------------------------------------------------------------------------------ the CLI

Run = CliRun


@pytest.fixture
def adbwire(run_cli: CliRun) -> Run:
    return run_cli


def test_mdns_services_lists_the_phone_like_adb(adbwire: Run, other_key: AdbKey) -> None:
    def body() -> None:
        with wireless_phone(other_key) as (device, pairing):
            status, out, err = adbwire("mdns", "services", "--wait", str(BROWSE))
            _, as_json, _ = adbwire("mdns", "services", "--json", "--wait", str(BROWSE))
        assert (status, err) == (0, "")
        services = json.loads(as_json)["services"]
        assert {(s["service_type"], s["port"]) for s in services} == {
            (CONNECT_SERVICE, device.port),
            (PAIRING_SERVICE, pairing.port),
        }
        assert all(
            s["addresses"] == ["127.0.0.1"] and s["instance"] == pairing.guid for s in services
        )
        width = len(pairing.guid)
        assert out.splitlines() == [
            "List of discovered mdns services",
            f"{pairing.guid:<{width}}  {CONNECT_SERVICE:<22} 127.0.0.1:{device.port}",
            f"{pairing.guid:<{width}}  {PAIRING_SERVICE:<22} {pairing.address}",
        ]

    run_in_multicast_namespace(body)


def test_mdns_services_shows_hostile_names_escaped(adbwire: Run) -> None:
    def body() -> None:
        with MdnsAdvertiser("127.0.0.1", "hostile") as advertiser:
            # zeroconf refuses C0 controls in names; C1 CSI and a bidi override get through.
            advertiser.advertise("adb-\x9b2J-\u202eevil", CONNECT_SERVICE, 5555)
            status, out, _ = adbwire("mdns", "services", "--wait", str(BROWSE))
        assert status == 0
        assert "\x9b" not in out and "\u202e" not in out
        assert "adb-\\x9b2J-\\u202eevil" in out

    run_in_multicast_namespace(body)


def test_mdns_check_names_the_stack(adbwire: Run) -> None:
    status, out, _ = run_in_multicast_namespace(lambda: adbwire("mdns", "check"))
    assert status == 0
    assert out.startswith("mdns daemon version [python-zeroconf ")


def test_pair_by_instance_name(adbwire: Run, adb_key: AdbKey, other_key: AdbKey) -> None:
    def body() -> None:
        with wireless_phone(other_key) as (device, pairing):
            status, out, err = adbwire("pair", pairing.guid, CODE)
            assert (status, err) == (0, "")
            assert out == f"Successfully paired to {pairing.address} [guid={pairing.guid}]\n"
            assert pairing.paired.wait(10)
            assert trusted(device, adb_key)

    run_in_multicast_namespace(body)


def test_pair_by_an_unknown_name_fails_within_the_connect_timeout(adbwire: Run) -> None:
    def body() -> tuple[int, str, float]:
        started = time.monotonic()
        status, _, err = adbwire("--connect-timeout", "1", "pair", "adb-nobody-xyz", CODE)
        return status, err, time.monotonic() - started

    status, err, elapsed = run_in_multicast_namespace(body)
    assert status == 1
    assert "no device on the local network advertises 'adb-nobody-xyz'" in err
    assert elapsed < 10


def test_s_name_connects_over_tls_by_instance_name(
    adbwire: Run, adb_key: AdbKey, other_key: AdbKey
) -> None:
    def body() -> list[tuple[int, str, str]]:
        with wireless_phone(other_key) as (device, pairing):
            assert adbwire("pair", pairing.guid, CODE)[0] == 0
            assert pairing.paired.wait(10)
            wait_until_trusted(device, adb_key)
            return [
                adbwire("-s", name, "shell", "-n", "echo", "by name")
                for name in (pairing.guid, f"{pairing.guid}._adb-tls-connect._tcp")
            ]

    assert run_in_multicast_namespace(body) == [(0, "by name\n", "")] * 2


def wait_until_trusted(device: SimulatedDevice, key: AdbKey) -> None:
    deadline = time.monotonic() + 10
    while not trusted(device, key):
        assert time.monotonic() < deadline, "the paired key was never stored"
        time.sleep(0.02)


def test_s_unknown_name_says_not_found_nor_advertised(adbwire: Run) -> None:
    def body() -> tuple[int, str]:
        status, _, err = adbwire("--connect-timeout", "1", "-s", "adb-nobody", "shell", "true")
        return status, err

    status, err = run_in_multicast_namespace(body)
    assert status == 1  # as adb: no device to talk to is a failure, not a usage error
    assert "'adb-nobody' not found" in err and "(nor advertised by mDNS)" in err


def test_devices_long_lists_discovered_wireless_devices(
    adbwire: Run, other_key: AdbKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ADBWIRE_MDNS", raising=False)

    def body() -> tuple[str, str, str, str, int]:
        with wireless_phone(other_key) as (device, pairing):
            _, listing, _ = adbwire("devices", "-l", "--mdns-wait", str(BROWSE))
            _, as_json, _ = adbwire("devices", "-l", "--json", "--mdns-wait", str(BROWSE))
            _, plain, _ = adbwire("devices")
            return listing, as_json, plain, pairing.guid, device.port

    listing, as_json, plain, guid, port = run_in_multicast_namespace(body)
    model = "sdk_gphone64_x86_64"
    assert listing.splitlines() == [
        "List of devices attached",
        f"{guid}._adb-tls-connect._tcp discovered address:127.0.0.1:{port} model:{model} "
        "(wireless debugging, found by mDNS)",
    ]
    assert json.loads(as_json) == [
        {
            "serial": f"{guid}._adb-tls-connect._tcp",
            "state": "discovered",
            "transport": "mdns",
            "address": f"127.0.0.1:{port}",
            "service_type": CONNECT_SERVICE,
            "model": model,
        }
    ]
    assert plain == "List of devices attached\n"  # plain `devices` does not browse
