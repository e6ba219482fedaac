"""A pairing peer that stalls, hangs up or sends nonsense gets a typed, clear error in time."""

from __future__ import annotations

import time

import pytest

from adbwire.errors import AdbTimeoutError, AdbwireError, PairingError
from adbwire.wire.keys import AdbKey
from adbwire.wire.pairing.client import pair
from adbwire.wire.pairing.messages import PacketType, PeerInfo, PeerInfoType
from tests.wire.pairing.peers import Peer, scripted_device

CODE = "123456"
SHORT_TIMEOUT = 1.0
"""Stalls are cut after this; a regression (no deadline) would hang until the peer gives up."""
GENEROUS = 8.0
"""Upper bound on how long a failing pair() may take on a loaded machine."""


def pair_against(script: object, host_key: AdbKey, device_key: AdbKey, **kw: float) -> AdbwireError:
    assert callable(script)
    with scripted_device(device_key, script) as (address, _errors):
        started = time.monotonic()
        with pytest.raises(AdbwireError) as caught:
            pair(address, CODE, host_key, timeout=kw.get("timeout", GENEROUS))
        assert time.monotonic() - started < GENEROUS
    return caught.value


def test_device_that_never_starts_tls(adb_key: AdbKey, other_key: AdbKey) -> None:
    def stall(peer: Peer) -> None:
        peer.hold()

    error = pair_against(stall, adb_key, other_key, timeout=SHORT_TIMEOUT)
    assert isinstance(error, AdbTimeoutError)
    assert "TLS handshake" in str(error)


def test_device_that_stalls_after_tls(adb_key: AdbKey, other_key: AdbKey) -> None:
    def stall(peer: Peer) -> None:
        with peer.tls():
            peer.hold()

    error = pair_against(stall, adb_key, other_key, timeout=SHORT_TIMEOUT)
    assert isinstance(error, AdbTimeoutError)
    assert "SPAKE2 message" in str(error)


def test_device_that_stalls_before_its_peer_info(adb_key: AdbKey, other_key: AdbKey) -> None:
    def stall(peer: Peer) -> None:
        with peer.tls() as channel:
            peer.spake2(channel, CODE.encode())
            peer.hold()

    error = pair_against(stall, adb_key, other_key, timeout=SHORT_TIMEOUT)
    assert isinstance(error, AdbTimeoutError)
    assert "PeerInfo" in str(error)


def test_device_that_hangs_up_at_once(adb_key: AdbKey, other_key: AdbKey) -> None:
    def hang_up(peer: Peer) -> None:
        peer.sock.close()

    error = pair_against(hang_up, adb_key, other_key)
    assert type(error) is PairingError
    assert "TLS handshake" in str(error)


def test_device_that_hangs_up_after_tls(adb_key: AdbKey, other_key: AdbKey) -> None:
    def hang_up(peer: Peer) -> None:
        peer.tls().close()

    error = pair_against(hang_up, adb_key, other_key)
    assert type(error) is PairingError
    assert "closed the pairing connection" in str(error) or "dropped" in str(error)


def test_device_that_hangs_up_mid_packet(adb_key: AdbKey, other_key: AdbKey) -> None:
    def hang_up(peer: Peer) -> None:
        with peer.tls() as channel:
            peer.send_raw(channel, bytes([1, 0, 0, 0, 0, 32]) + bytes(10))

    error = pair_against(hang_up, adb_key, other_key)
    assert type(error) is PairingError
    assert "SPAKE2 message" in str(error)


def test_port_that_speaks_plain_adb(adb_key: AdbKey, other_key: AdbKey) -> None:
    """The main adbd port (plain ADB), given by mistake: its CNXN is not a TLS handshake."""

    def adbd(peer: Peer) -> None:
        peer.sock.sendall(b"CNXN" + bytes(20) + b"device::\0")
        peer.hold()

    error = pair_against(adbd, adb_key, other_key)
    assert type(error) is PairingError
    assert "pairing port" in str(error)


def test_spake2_message_that_is_not_a_point(adb_key: AdbKey, other_key: AdbKey) -> None:
    def nonsense(peer: Peer) -> None:
        with peer.tls() as channel:
            peer.read_packet(channel, PacketType.SPAKE2_MSG)
            # y = 2 has no x on edwards25519.
            peer.send_packet(channel, PacketType.SPAKE2_MSG, (2).to_bytes(32, "little"))
            peer.hold()

    error = pair_against(nonsense, adb_key, other_key)
    assert type(error) is PairingError
    assert "not a point" in str(error)


@pytest.mark.parametrize("size", [31, 33, 64])
def test_spake2_message_of_the_wrong_size(adb_key: AdbKey, other_key: AdbKey, size: int) -> None:
    def nonsense(peer: Peer) -> None:
        with peer.tls() as channel:
            peer.read_packet(channel, PacketType.SPAKE2_MSG)
            peer.send_packet(channel, PacketType.SPAKE2_MSG, bytes(size))
            peer.hold()

    error = pair_against(nonsense, adb_key, other_key)
    assert type(error) is PairingError
    assert f"{size}-byte SPAKE2 message" in str(error)


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (bytes([1, 0, 0, 0, 0x40, 0x01]), "16385-byte SPAKE2_MSG payload"),
        (bytes([1, 0, 0x7F, 0xFF, 0xFF, 0xFF]), "2147483647-byte"),
        (bytes([2, 0, 0, 0, 0, 32]), "version 2"),
        (bytes([1, 1, 0, 0, 0, 32]), "PEER_INFO packet where SPAKE2_MSG"),
    ],
)
def test_bad_packet_header(adb_key: AdbKey, other_key: AdbKey, header: bytes, message: str) -> None:
    def nonsense(peer: Peer) -> None:
        with peer.tls() as channel:
            peer.send_raw(channel, header)
            peer.hold()

    error = pair_against(nonsense, adb_key, other_key)
    assert type(error) is PairingError
    assert message in str(error)


@pytest.mark.parametrize("size", [100, 8191, 8193])
def test_peer_info_of_the_wrong_size(adb_key: AdbKey, other_key: AdbKey, size: int) -> None:
    def wrong_size(peer: Peer) -> None:
        with peer.tls() as channel:
            cipher = peer.spake2(channel, CODE.encode())
            peer.send_packet(channel, PacketType.PEER_INFO, cipher.encrypt(bytes([1]) * size))
            peer.hold()

    error = pair_against(wrong_size, adb_key, other_key)
    assert type(error) is PairingError
    assert f"{size}-byte PeerInfo" in str(error)


def test_peer_info_that_is_not_a_guid(adb_key: AdbKey, other_key: AdbKey) -> None:
    def key_instead_of_guid(peer: Peer) -> None:
        with peer.tls() as channel:
            cipher = peer.spake2(channel, CODE.encode())
            info = PeerInfo(PeerInfoType.ADB_RSA_PUB_KEY, b"not a guid")
            peer.send_packet(channel, PacketType.PEER_INFO, cipher.encrypt(info.encode()))
            peer.hold()

    error = pair_against(key_instead_of_guid, adb_key, other_key)
    assert type(error) is PairingError
    assert "unknown PeerInfo type 0" in str(error)
