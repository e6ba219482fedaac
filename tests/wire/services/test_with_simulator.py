"""Install, forward and device control against the project's simulated device
(adbwire.testing), whose package manager reads the APK's manifest with its own parser."""

from __future__ import annotations

import hashlib
import os
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from adbwire.testing import SimulatedDevice
from adbwire.testing.userland.android.apk import build_apk
from adbwire.wire.connection import Connection
from adbwire.wire.keys import AdbKey
from adbwire.wire.services import control
from adbwire.wire.services.apk_manifest import ApkInfo, read_apk_info
from adbwire.wire.services.forward import PortForwarder
from adbwire.wire.services.install import install, uninstall
from adbwire.wire.services.install_result import InstallMethod, InstallOptions
from adbwire.wire.services.reconnect import (
    ConnectionFactory,
    reconnect,
    tcp_connection_factory,
    wait_disconnected,
)
from adbwire.wire.services.shell import run
from tests.wire.services.axml_writer import make_apk
from tests.wire.services.conftest import TEST_TIMEOUTS
from tests.wire.services.loopback_servers import echo, loopback_server


@pytest.fixture
def factory(sim_device: SimulatedDevice, adb_key: AdbKey) -> ConnectionFactory:
    return tcp_connection_factory(sim_device.serial, [adb_key], timeouts=TEST_TIMEOUTS)


@pytest.fixture
def sim(factory: ConnectionFactory) -> Iterator[Connection]:
    connection = factory()
    yield connection
    connection.close()


def shell(connection: Connection, command: str) -> str:
    return run(connection, command).check().stdout.decode()


def test_reader_agrees_with_the_simulators_apk_builder(tmp_path: Path) -> None:
    apk = tmp_path / "built.apk"
    apk.write_bytes(build_apk("org.sim.built", version_code=99, version_name="9.9"))
    assert read_apk_info(apk) == ApkInfo("org.sim.built", 99, "9.9")


@pytest.mark.parametrize("method", [InstallMethod.ABB_EXEC, InstallMethod.CMD, InstallMethod.PUSH])
def test_install_each_method(tmp_path: Path, sim: Connection, method: InstallMethod) -> None:
    apk = make_apk(tmp_path, "com.example.sim", 41, "4.1", payload=os.urandom(700_000))
    result = install(sim, apk, method=method)
    assert result.ok, result.output
    listed = shell(sim, "pm list packages --show-versioncode com.example.sim")
    assert listed.strip() == "package:com.example.sim versionCode:41"
    assert shell(sim, "ls /data/local/tmp").strip() == ""


def test_downgrade_needs_the_option(tmp_path: Path, sim: Connection) -> None:
    newer = make_apk(tmp_path, "com.example.down", 5, "5", filename="new.apk")
    older = make_apk(tmp_path, "com.example.down", 4, "4", filename="old.apk")
    assert install(sim, newer).ok
    refused = install(sim, older, InstallOptions(replace=True))
    assert (refused.ok, refused.code) == (False, "INSTALL_FAILED_VERSION_DOWNGRADE")
    assert install(sim, older, InstallOptions(replace=True, downgrade=True)).ok
    assert "versionCode:4" in shell(sim, "pm list packages --show-versioncode com.example.down")


def test_uninstall_then_again(tmp_path: Path, sim: Connection) -> None:
    assert install(sim, make_apk(tmp_path, "com.example.bye")).ok
    assert uninstall(sim, "com.example.bye").ok
    again = uninstall(sim, "com.example.bye")
    assert not again.ok
    assert shell(sim, "pm list packages com.example.bye") == ""


def test_forwarding_through_the_simulator(sim: Connection) -> None:
    with loopback_server(echo) as server, PortForwarder(sim) as forwarder:
        forward = forwarder.forward("tcp:0", f"tcp:{server.port}")

        def exchange(size: int) -> bool:
            payload = os.urandom(size)
            with socket.create_connection(("127.0.0.1", forward.port), timeout=15) as sock:
                sock.sendall(payload)
                got = bytearray()
                while len(got) < size and (chunk := sock.recv(1 << 18)):
                    got += chunk
            return hashlib.sha256(got).digest() == hashlib.sha256(payload).digest()

        with ThreadPoolExecutor(max_workers=8) as pool:
            assert all(pool.map(exchange, [1, 65_536, 300_000, 2_000_000] * 3))


def test_refused_port_on_the_simulator(sim: Connection) -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        closed_port = probe.getsockname()[1]
    with PortForwarder(sim) as forwarder:
        forward = forwarder.forward("tcp:0", f"tcp:{closed_port}")
        with socket.create_connection(("127.0.0.1", forward.port), timeout=15) as sock:
            assert sock.recv(10) == b""
        assert not forward.closed


def test_root_round_trip_with_reconnect(sim: Connection, factory: ConnectionFactory) -> None:
    rooted = control.root(sim, reconnect_with=factory, wait=15)
    assert (rooted.restarted, rooted.is_root) == (True, True)
    assert rooted.connection is not None
    assert shell(rooted.connection, "id -u").strip() == "0"
    again = control.root(rooted.connection)
    assert (again.restarted, again.is_root) == (False, True)
    back = control.unroot(rooted.connection, reconnect_with=factory, wait=15)
    assert (back.restarted, back.is_root) == (True, False)
    assert back.connection is not None
    back.connection.close()


def test_reboot_and_come_back(sim: Connection, factory: ConnectionFactory) -> None:
    control.reboot(sim, control.RebootMode.BOOTLOADER)
    assert wait_disconnected(sim, 10)
    fresh = reconnect(factory, timeout=15)
    try:
        assert shell(fresh, "getprop sys.boot.reason").strip() == "reboot,bootloader"
    finally:
        fresh.close()


def test_tcpip_answer(sim: Connection) -> None:
    result = control.tcpip(sim, 5556)
    assert result.message == "restarting in TCP mode port: 5556\n" and result.restarted
