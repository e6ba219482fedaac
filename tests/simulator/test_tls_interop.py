"""The interop oracle: adb-shell-wifi, an independent port of AOSP's TLS host code, connects
to our simulated wireless-debugging device and runs shell commands over TLS."""

from __future__ import annotations

import ssl
from collections.abc import Callable

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.wire.keys import AdbKey

adb_device = pytest.importorskip(
    "adb_shell_wifi.adb_device", reason="adb-shell-wifi (the TLS interop oracle) is not installed"
)
signers = pytest.importorskip("adb_shell_wifi.auth.sign_cryptography")

DeviceFactory = Callable[..., SimulatedDevice]


def wireless(factory: DeviceFactory, trusted: AdbKey) -> SimulatedDevice:
    key_text = trusted.public_key_bytes().rstrip(b"\0").decode()
    return factory(DeviceOptions(tls=True, authorized_keys=(key_text,)))


def oracle_connect(device: SimulatedDevice, key: AdbKey) -> object:
    host, port = device.address
    client = adb_device.AdbDeviceTls(host, port, default_transport_timeout_s=10)
    client.connect(
        rsa_keys=[signers.CryptographySigner(str(key.path))],
        transport_timeout_s=10,
        auth_timeout_s=10,
        tls_priv_pem=key.path.read_bytes(),
    )
    return client


def test_adb_shell_wifi_runs_shell_commands_over_tls(
    sim_device_factory: DeviceFactory, adb_key: AdbKey
) -> None:
    device = wireless(sim_device_factory, adb_key)
    client = oracle_connect(device, adb_key)
    try:
        assert client.shell("echo interop $((6*7))", timeout_s=10) == "interop 42\n"  # type: ignore[attr-defined]
        assert client.shell("getprop ro.product.model", timeout_s=10).strip()  # type: ignore[attr-defined]
    finally:
        client.close()  # type: ignore[attr-defined]


def test_adb_shell_wifi_with_an_unknown_key_gets_no_shell(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, other_key: AdbKey
) -> None:
    """adbd refuses the certificate; the host reads the alert after its side of the handshake."""
    device = wireless(sim_device_factory, adb_key)
    with pytest.raises(ssl.SSLError, match="alert unknown ca"):
        client = oracle_connect(device, other_key)
        client.close()  # type: ignore[attr-defined]
