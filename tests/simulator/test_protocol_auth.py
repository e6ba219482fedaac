"""AUTH as adbd does it: TOKEN, SIGNATURE checked with RSA, RSAPUBLICKEY only when allowed."""

from __future__ import annotations

import base64
import struct
import threading
from collections.abc import Callable

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.testing.auth import (
    ANDROID_PUBKEY_SIZE,
    KeyFormatError,
    KeyStore,
    parse_android_pubkey,
)
from adbwire.wire import packets as P
from adbwire.wire.banner import parse_banner
from adbwire.wire.keys import AdbKey
from tests.simulator.protocol_peer import HostPeer, Received
from tests.simulator.protocol_standin import StandinUserland

DeviceFactory = Callable[..., SimulatedDevice]


def key_text(key: AdbKey) -> str:
    return key.public_key_bytes().rstrip(b"\0").decode()


def test_decoder_reads_modulus_and_exponent(adb_key: AdbKey) -> None:
    decoded = parse_android_pubkey(key_text(adb_key)).public_numbers()
    expected = adb_key.public_key.public_numbers()
    assert (decoded.n, decoded.e) == (expected.n, expected.e)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "empty"),
        ("!!!not base64", "base64"),
        (base64.b64encode(b"short").decode(), "bytes"),
        (
            base64.b64encode(struct.pack("<I", 32) + bytes(ANDROID_PUBKEY_SIZE - 4)).decode(),
            "modulus_size_words",
        ),
    ],
)
def test_decoder_rejects_malformed_keys(text: str, problem: str) -> None:
    with pytest.raises(KeyFormatError, match=problem):
        parse_android_pubkey(text)


def test_keystore_verifies_signatures(adb_key: AdbKey, other_key: AdbKey) -> None:
    store = KeyStore([key_text(adb_key)])
    token = bytes(range(20))
    assert store.find_signer(token, adb_key.sign(token))
    assert not store.find_signer(token, other_key.sign(token))
    assert not store.find_signer(bytes(20), adb_key.sign(token))


def sign_in(peer: HostPeer, key: AdbKey) -> Received | None:
    """Answer the TOKEN with a signature; return the device's CNXN, or None on a new TOKEN."""
    token = peer.expect(P.A_AUTH)
    assert token.arg0 == P.AUTH_TOKEN
    assert len(token.payload) == 20
    peer.send(P.A_AUTH, P.AUTH_SIGNATURE, 0, key.sign(token.payload))
    answer = peer.recv()
    if answer.command == P.A_CNXN:
        return answer
    assert (answer.command, answer.arg0) == (P.A_AUTH, P.AUTH_TOKEN)
    assert answer.payload != token.payload, "a fresh token for every attempt"
    return None


def cnxn(peer: HostPeer) -> None:
    peer.send(P.A_CNXN, P.VERSION_SKIP_CHECKSUM, P.MAX_PAYLOAD, b"host::features=shell_v2")


def test_trusted_key_gets_the_banner(sim_device_factory: DeviceFactory, adb_key: AdbKey) -> None:
    device = sim_device_factory(userland_factory=StandinUserland)
    with HostPeer(device.address) as peer:
        cnxn(peer)
        answer = sign_in(peer, adb_key)
    assert answer is not None
    banner = parse_banner(answer.payload)
    assert banner.system_type == "device"
    assert banner.model == "Standin Phone 1"
    assert banner.product == "standin_phone"
    assert banner.device == "standin"
    assert {"shell_v2", "cmd", "stat_v2", "ls_v2", "abb_exec", "delayed_ack"} <= banner.features
    assert answer.payload.startswith(
        b"device::ro.product.name=standin_phone;ro.product.model=Standin Phone 1;"
    )


def test_unknown_key_then_refused_offer(
    sim_device_factory: DeviceFactory, other_key: AdbKey
) -> None:
    device = sim_device_factory(userland_factory=StandinUserland)
    with HostPeer(device.address) as peer:
        cnxn(peer)
        assert sign_in(peer, other_key) is None
        peer.send(P.A_AUTH, P.AUTH_RSAPUBLICKEY, 0, other_key.public_key_bytes())
        assert peer.nothing_within(0.3), "no CNXN until the user allows the key"
        assert device.pending_keys == [key_text(other_key)]
        peer.send(P.A_OPEN, 1, 0, b"shell:echo hi\0")
        assert peer.nothing_within(0.2), "OPEN before the handshake is ignored"


def test_user_allows_the_key(sim_device_factory: DeviceFactory, other_key: AdbKey) -> None:
    device = sim_device_factory(userland_factory=StandinUserland)
    with HostPeer(device.address) as peer:
        cnxn(peer)
        assert sign_in(peer, other_key) is None
        peer.send(P.A_AUTH, P.AUTH_RSAPUBLICKEY, 0, other_key.public_key_bytes())
        assert peer.nothing_within(0.2)
        assert device.approve_pending_keys() == [key_text(other_key)]
        assert peer.expect(P.A_CNXN).payload.startswith(b"device::")
    # The key is remembered ("always allow"): the next connection signs in directly.
    with HostPeer(device.address) as peer:
        cnxn(peer)
        assert sign_in(peer, other_key) is not None


def test_accept_new_keys_after_a_delay(
    sim_device_factory: DeviceFactory, other_key: AdbKey
) -> None:
    device = sim_device_factory(
        userland_factory=StandinUserland, accept_new_keys=True, accept_delay=0.3
    )
    with HostPeer(device.address) as peer:
        cnxn(peer)
        assert sign_in(peer, other_key) is None
        peer.send(P.A_AUTH, P.AUTH_RSAPUBLICKEY, 0, other_key.public_key_bytes())
        assert peer.nothing_within(0.15), "the user has not tapped Allow yet"
        assert peer.expect(P.A_CNXN, timeout=5).payload.startswith(b"device::")
    assert device.keys.is_authorized(key_text(other_key))


def test_accept_any_key(sim_device_factory: DeviceFactory, other_key: AdbKey) -> None:
    device = sim_device_factory(userland_factory=StandinUserland, accept_any_key=True)
    with HostPeer(device.address) as peer:
        cnxn(peer)
        assert sign_in(peer, other_key) is not None


def test_no_auth_device_answers_cnxn_at_once(sim_device_factory: DeviceFactory) -> None:
    device = sim_device_factory(userland_factory=StandinUserland, auth_required=False)
    with HostPeer(device.address) as peer:
        assert peer.connect().command == P.A_CNXN


def test_banner_properties_from_options(sim_device_factory: DeviceFactory) -> None:
    props = {"ro.product.name": "p", "ro.product.model": "M", "ro.product.device": "d"}
    options = DeviceOptions(
        auth_required=False, banner_properties=props, features=("shell_v2",), system_type="recovery"
    )
    device = sim_device_factory(options, StandinUserland)
    with HostPeer(device.address) as peer:
        answer = peer.connect()
    assert (
        answer.payload
        == b"recovery::ro.product.name=p;ro.product.model=M;ro.product.device=d;features=shell_v2"
    )


def test_authorize_key_while_waiting(sim_device_factory: DeviceFactory, other_key: AdbKey) -> None:
    device = sim_device_factory(userland_factory=StandinUserland)
    with HostPeer(device.address) as peer:
        cnxn(peer)
        assert sign_in(peer, other_key) is None
        peer.send(P.A_AUTH, P.AUTH_RSAPUBLICKEY, 0, other_key.public_key_bytes())
        assert peer.nothing_within(0.1)
        allow = threading.Thread(target=device.authorize_key, args=(key_text(other_key),))
        allow.start()
        assert peer.expect(P.A_CNXN).command == P.A_CNXN
        allow.join(5)
