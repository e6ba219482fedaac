"""STLS in the sans-IO host protocol, and reading the keys a device lists as CA names."""

from __future__ import annotations

import hashlib

import pytest
from cryptography.hazmat.primitives import serialization

from adbwire.errors import LocalProtocolError, RemoteProtocolError
from adbwire.wire import packets as P
from adbwire.wire.banner import Banner, host_banner
from adbwire.wire.keys import AdbKey
from adbwire.wire.protocol import (
    STLS_VERSION,
    Connected,
    ConnectionState,
    HostProtocol,
    TlsRequested,
)
from adbwire.wire.tls.client import key_fingerprint, listed_fingerprints

DEVICE = Banner("device", "", {"ro.product.model": "M"}, frozenset({"shell_v2"}))


def feed(protocol: HostProtocol, packet: P.Packet) -> list[object]:
    wire = packet.encode(with_checksum=False)
    header = P.decode_header(wire[:24], max_payload=P.MAX_PAYLOAD)
    return list(protocol.receive(header, wire[24:]))


def stls(version: int = 0x01000000) -> P.Packet:
    return P.Packet(P.A_STLS, version, 0, b"")


def test_stls_asks_for_tls_and_our_answer_is_adbs() -> None:
    protocol = HostProtocol(host_banner())
    with pytest.raises(LocalProtocolError):
        protocol.start_tls_packet()  # nobody asked
    assert feed(protocol, stls(0x01000005)) == [TlsRequested(0x01000005)]
    answer = protocol.start_tls_packet()
    assert (answer.command, answer.arg0, answer.arg1, answer.payload) == (
        P.A_STLS,
        STLS_VERSION,
        0,
        b"",
    )
    assert STLS_VERSION == 0x01000000


def test_after_stls_auth_is_ignored_and_cnxn_completes() -> None:
    protocol = HostProtocol(host_banner())
    feed(protocol, stls())
    assert feed(protocol, P.Packet(P.A_AUTH, P.AUTH_TOKEN, 0, b"t" * 20)) == []
    events = feed(protocol, P.Packet(P.A_CNXN, 0x01000001, 4096, DEVICE.encode()))
    assert isinstance(events[0], Connected)
    assert protocol.state is ConnectionState.ONLINE


def test_a_second_stls_or_one_after_cnxn_is_a_protocol_error() -> None:
    protocol = HostProtocol(host_banner())
    feed(protocol, stls())
    with pytest.raises(RemoteProtocolError, match="STLS"):
        feed(protocol, stls())
    online = HostProtocol(host_banner())
    feed(online, P.Packet(P.A_CNXN, 0x01000001, 4096, DEVICE.encode()))
    with pytest.raises(RemoteProtocolError, match="STLS"):
        feed(online, stls())


def test_listed_fingerprints_reads_adb_key_names_only(adb_key: AdbKey) -> None:
    fingerprint = key_fingerprint(adb_key.public_key)
    hex_text = fingerprint.hex().upper().encode()
    names = [
        [(b"C", b"US"), (b"O", b"Some Real CA"), (b"CN", hex_text)],  # not an adb key name
        [(b"O", b"AdbKey-1"), (b"CN", hex_text)],  # a version we do not know
        [(b"O", b"AdbKey-0"), (b"CN", b"XYZ" * 21 + b"X")],  # not hex
        [(b"O", b"AdbKey-0"), (b"CN", hex_text[:-2])],  # too short
        [(b"O", b"AdbKey-0"), (b"CN", hex_text.lower())],
        [(b"O", b"AdbKey-0"), (b"CN", hex_text)],
    ]
    assert listed_fingerprints(names) == [fingerprint, fingerprint]


def test_key_fingerprint_is_sha256_of_the_subject_public_key_info(adb_key: AdbKey) -> None:
    der = adb_key.public_key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    assert der[:2] == b"\x30\x82"  # a SEQUENCE: SubjectPublicKeyInfo, not the bare RSA key
    assert key_fingerprint(adb_key.public_key) == hashlib.sha256(der).digest()
