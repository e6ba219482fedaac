"""adb-shell-wifi (an independent Python port of AOSP's pairing client) pairs with our
simulated device: our device side against a host we did not write.

adb-shell-wifi runs BoringSSL's SPAKE2 through spake2-cffi and its own TLS, framing and
cipher code, so this checks the exporter label, the SPAKE2 names and roles, the HKDF/GCM
parameters and the PeerInfo layout of our server. Skips, with the reason, where
adb-shell-wifi or spake2-cffi cannot be imported.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization

from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.testing.pairing_server import PairingServer
from adbwire.wire.keys import AdbKey, encode_android_pubkey

oracle: Any = None
SKIP_REASON = ""
try:
    oracle = importlib.import_module("adb_shell_wifi.pairing.pairing_device")
    importlib.import_module("spake2")
except ImportError as exc:  # pragma: no cover - depends on the platform's wheels
    SKIP_REASON = f"adb-shell-wifi (the interop oracle) cannot be imported here: {exc}"

pytestmark = pytest.mark.skipif(oracle is None, reason=SKIP_REASON or "n/a")

CODE = "905172"
TIMEOUT = 10.0


def private_pem(key: AdbKey) -> bytes:
    return key.private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def oracle_pair(server: PairingServer, code: str, key: AdbKey, public_key: bytes) -> Any:
    pem = private_pem(key)
    return oracle.pair("127.0.0.1", server.port, code, pem, public_key, timeout_s=TIMEOUT)


def test_adb_shell_wifi_pairs_and_its_key_is_trusted(
    sim_device_factory: Callable[..., SimulatedDevice], adb_key: AdbKey, other_key: AdbKey
) -> None:
    device = sim_device_factory(authorized_keys=())
    public_key = encode_android_pubkey(adb_key.public_key, "interop@adb-shell-wifi")
    with PairingServer(device, CODE, device_key=other_key, timeout=TIMEOUT) as server:
        peer_info = oracle_pair(server, CODE, adb_key, public_key)
        assert server.paired.wait(TIMEOUT)
    assert peer_info.type == 1  # ADB_DEVICE_GUID
    assert peer_info.data.rstrip(b"\0").decode() == server.guid
    assert device.keys.is_authorized(public_key.decode())
    assert server.outcome.paired_keys == [public_key.decode()]


def test_adb_shell_wifi_with_a_wrong_code_is_refused(
    sim_device_factory: Callable[..., SimulatedDevice], adb_key: AdbKey, other_key: AdbKey
) -> None:
    device = sim_device_factory(authorized_keys=())
    public_key = encode_android_pubkey(adb_key.public_key, "interop@adb-shell-wifi")
    with PairingServer(device, CODE, device_key=other_key, timeout=TIMEOUT) as server:
        with pytest.raises(Exception, match=r"(?i)decrypt|pairing"):
            oracle_pair(server, "905173", adb_key, public_key)
        assert not server.paired.is_set()
    assert not device.keys.is_authorized(public_key.decode())


def test_adb_shell_wifi_pairs_then_runs_a_command_over_tls(
    sim_device_factory: Callable[..., SimulatedDevice], adb_key: AdbKey, other_key: AdbKey
) -> None:
    """The issue's check: pair with the code, then a shell command over TLS (STLS)."""
    device_module = importlib.import_module("adb_shell_wifi.adb_device")
    signer_module = importlib.import_module("adb_shell_wifi.auth.sign_cryptography")
    device = sim_device_factory(DeviceOptions(tls=True, authorized_keys=()))
    public_key = encode_android_pubkey(adb_key.public_key, "interop@adb-shell-wifi")
    signer = signer_module.CryptographySigner(str(adb_key.path))

    def shell_over_tls() -> Any:
        host = device_module.AdbDeviceTls("127.0.0.1", device.port)
        try:
            host.connect(
                rsa_keys=[signer],
                tls_priv_pem=private_pem(adb_key),
                transport_timeout_s=TIMEOUT,
                auth_timeout_s=TIMEOUT,
            )
            return host.shell("echo paired over tls", transport_timeout_s=TIMEOUT)
        finally:
            host.close()

    with pytest.raises(Exception):  # noqa: B017 - before pairing the TLS handshake is refused
        shell_over_tls()
    with PairingServer(device, CODE, device_key=other_key, timeout=TIMEOUT) as server:
        oracle_pair(server, CODE, adb_key, public_key)
    assert shell_over_tls() == "paired over tls\n"
