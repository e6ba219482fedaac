"""Our host side pairs with our device side: the simulated device's pairing server."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest

import adbwire
from adbwire.errors import ConnectFailedError, PairingCodeError, UsageError
from adbwire.testing import SimulatedDevice
from adbwire.testing.pairing_server import MAX_FAILED_ATTEMPTS, PairingServer
from adbwire.wire.keys import AdbKey, default_key_comment, encode_android_pubkey
from adbwire.wire.pairing.client import check_pairing_code, pair, parse_pairing_address
from adbwire.wire.pairing.messages import PacketType
from tests.wire.pairing.peers import Peer, connected_host

CODE = "482913"
WAIT = 10.0


def key_text(key: AdbKey) -> str:
    return encode_android_pubkey(key.public_key, default_key_comment()).decode()


@pytest.fixture
def device(sim_device_factory: Callable[..., SimulatedDevice]) -> SimulatedDevice:
    """A device that trusts no key yet."""
    return sim_device_factory(authorized_keys=())


@pytest.fixture
def pairing(device: SimulatedDevice, other_key: AdbKey) -> Iterator[PairingServer]:
    with PairingServer(device, CODE, device_key=other_key, timeout=WAIT) as server:
        yield server


def test_pairing_trusts_our_key_and_returns_the_guid(
    pairing: PairingServer, device: SimulatedDevice, adb_key: AdbKey
) -> None:
    assert not device.keys.is_authorized(key_text(adb_key))
    result = pair(pairing.address, CODE, adb_key)
    assert result.guid == pairing.guid
    assert result.guid.startswith("adb-") and len(result.guid.rsplit("-", 1)[1]) == 6
    assert str(result) == f"Successfully paired to {pairing.address} [guid={pairing.guid}]"
    assert pairing.paired.wait(WAIT)
    assert device.keys.is_authorized(key_text(adb_key))
    assert pairing.outcome.paired_keys == [key_text(adb_key)]


def test_the_pairing_port_closes_after_one_success(pairing: PairingServer, adb_key: AdbKey) -> None:
    pair(pairing.address, CODE, adb_key)
    assert pairing.closed.wait(WAIT)
    with pytest.raises(ConnectFailedError, match="cannot connect to the pairing port"):
        pair(pairing.address, CODE, adb_key)


def test_wrong_code_is_refused_and_no_key_is_stored(
    pairing: PairingServer, device: SimulatedDevice, adb_key: AdbKey
) -> None:
    with pytest.raises(PairingCodeError, match="wrong pairing code") as caught:
        pair(pairing.address, "482914", adb_key)
    assert caught.value.fault.value == "caller"
    deadline = time.monotonic() + WAIT
    while not pairing.outcome.failures and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pairing.outcome.failures == ["wrong pairing code: the host used another code"]
    assert not device.keys.is_authorized(key_text(adb_key))
    assert not pairing.paired.is_set()
    # The phone keeps its dialog open: the right code still works.
    assert pair(pairing.address, CODE, adb_key).guid == pairing.guid


def test_too_many_failures_close_the_port(pairing: PairingServer, adb_key: AdbKey) -> None:
    for attempt in range(MAX_FAILED_ATTEMPTS):
        with pytest.raises(PairingCodeError):
            pair(pairing.address, f"{attempt:06d}", adb_key)
    assert pairing.closed.wait(WAIT)
    with pytest.raises(ConnectFailedError):
        pair(pairing.address, CODE, adb_key)


def test_python_api_entry_points(pairing: PairingServer, adb_key: AdbKey) -> None:
    assert adbwire.pair is pair
    result = adbwire.AdbClient.pair(pairing.address, CODE, adb_key)
    assert isinstance(result, adbwire.PairingResult)
    assert result.guid == pairing.guid


def test_default_key_is_the_users_adb_key(pairing: PairingServer, device: SimulatedDevice) -> None:
    result = pair(pairing.address, CODE)  # HOME is a fresh directory: the key is made there
    from adbwire.wire.keys import load_keys  # noqa: PLC0415 - after pair() created it

    assert result.guid == pairing.guid
    assert pairing.paired.wait(WAIT)  # the device stores the key after it answered
    assert device.keys.is_authorized(key_text(load_keys()[0]))


def test_host_that_stalls_frees_the_device_within_its_timeout(
    device: SimulatedDevice, other_key: AdbKey, adb_key: AdbKey
) -> None:
    with PairingServer(device, CODE, device_key=other_key, timeout=0.5) as server:

        def stall(peer: Peer) -> None:
            with peer.tls(server=False):
                peer.hold()

        with connected_host(adb_key, ("127.0.0.1", server.port), stall):
            deadline = time.monotonic() + WAIT
            while not server.outcome.failures and time.monotonic() < deadline:
                time.sleep(0.01)
        assert server.outcome.failures, "the stalled attempt was never given up"
        assert "timed out" in server.outcome.failures[0]
        assert pair(server.address, CODE, adb_key).guid == server.guid


def test_host_with_an_oversize_header_is_refused(
    pairing: PairingServer, device: SimulatedDevice, adb_key: AdbKey
) -> None:
    def oversize(peer: Peer) -> None:
        with peer.tls(server=False) as channel:
            peer.send_raw(channel, bytes([1, 0, 0, 1, 0, 0]))
            peer.hold()

    with connected_host(adb_key, ("127.0.0.1", pairing.port), oversize):
        deadline = time.monotonic() + WAIT
        while not pairing.outcome.failures and time.monotonic() < deadline:
            time.sleep(0.01)
    assert "65536-byte SPAKE2_MSG payload" in pairing.outcome.failures[0]
    assert not device.keys.is_authorized(key_text(adb_key))


def test_host_that_sends_a_guid_instead_of_a_key(
    pairing: PairingServer, device: SimulatedDevice, adb_key: AdbKey
) -> None:
    from adbwire.wire.pairing.messages import PeerInfo, PeerInfoType  # noqa: PLC0415

    def wrong_type(peer: Peer) -> None:
        with peer.tls(server=False) as channel:
            cipher = peer.spake2(channel, CODE.encode(), server=False)
            info = PeerInfo(PeerInfoType.ADB_DEVICE_GUID, key_text(adb_key).encode())
            peer.send_packet(channel, PacketType.PEER_INFO, cipher.encrypt(info.encode()))
            peer.read_packet(channel, PacketType.PEER_INFO)

    with connected_host(adb_key, ("127.0.0.1", pairing.port), wrong_type):
        deadline = time.monotonic() + WAIT
        while not pairing.outcome.failures and time.monotonic() < deadline:
            time.sleep(0.01)
    assert "PeerInfo of type 1" in pairing.outcome.failures[0]
    assert not device.keys.is_authorized(key_text(adb_key))


# --------------------------------------------------------------- input checks


@pytest.mark.parametrize("code", ["123456", " 123456\n", "000000"])
def test_six_digit_codes_are_accepted(code: str) -> None:
    assert check_pairing_code(code) == code.strip()


@pytest.mark.parametrize("code", ["", "12345", "1234567", "12345a", "123 456", "١٢٣٤٥٦"])
def test_other_codes_are_refused(code: str) -> None:
    with pytest.raises(UsageError, match="6 digits"):
        check_pairing_code(code)


@pytest.mark.parametrize("address", ["192.168.1.5", "[::1]", "phone.local"])
def test_the_pairing_port_is_required(address: str) -> None:
    with pytest.raises(UsageError, match="pairing port"):
        parse_pairing_address(address)


def test_addresses_with_ports() -> None:
    assert parse_pairing_address("192.168.1.5:37123") == ("192.168.1.5", 37123)
    assert parse_pairing_address("[::1]:37123") == ("::1", 37123)


def test_nothing_listening(adb_key: AdbKey) -> None:
    import socket  # noqa: PLC0415

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ConnectFailedError):
        pair(f"127.0.0.1:{port}", CODE, adb_key)


def test_timeout_must_be_positive(adb_key: AdbKey) -> None:
    with pytest.raises(UsageError):
        pair("127.0.0.1:1", CODE, adb_key, timeout=0)


def test_stop_cuts_an_attempt_in_progress(
    device: SimulatedDevice, other_key: AdbKey, adb_key: AdbKey
) -> None:
    server = PairingServer(device, CODE, device_key=other_key, timeout=60).start()
    connected = threading.Event()

    def stall(peer: Peer) -> None:
        with peer.tls(server=False):
            connected.set()
            peer.hold()

    with connected_host(adb_key, ("127.0.0.1", server.port), stall):
        assert connected.wait(WAIT)
        server.stop()
        # stop() returned with the attempt ended, long before its 60 s deadline.
        assert len(server.outcome.failures) == 1
    assert server.closed.is_set()
