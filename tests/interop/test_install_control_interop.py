"""Install, uninstall and device control: what Google's adb sends vs what adbwire sends.

The oracle is Debian's /usr/bin/adb, pointed at a device on loopback:
- the simulated device records every OPEN (`services_opened`): adb and adbwire must open
  the same services with the same arguments, and install the same bytes (the simulated
  package manager files an APK under a path made from its SHA-256);
- an APK installed by adb is seen by adbwire and the other way round (each side's package
  manager view agrees).

Each test gives adb its own HOME, TMPDIR and server port, and kills that server at the end.
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice, running_device
from adbwire.wire.connection import Connection
from adbwire.wire.keys import load_key
from adbwire.wire.services import control
from adbwire.wire.services.install import install, uninstall
from adbwire.wire.services.install_result import InstallOptions
from adbwire.wire.services.reconnect import tcp_connection_factory
from adbwire.wire.services.shell import run
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.transport import TcpTransport
from tests.wire.services.axml_writer import make_apk
from tests.wire.services.conftest import ANDROID_8, ANDROID_11

ADB = Path("/usr/bin/adb")
TIMEOUT = 60.0
TIMEOUTS = Timeouts(connect=10.0, auth=10.0, operation=20.0)

pytestmark = [
    pytest.mark.interop,
    pytest.mark.skipif(not ADB.exists(), reason="Google's adb is not installed at /usr/bin/adb"),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Adb:
    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(ADB), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )

    def connected(self, address: str) -> None:
        result = self("connect", address)
        assert result.returncode == 0 and "connected" in result.stdout, result


@pytest.fixture
def adb(tmp_path: Path) -> Iterator[Adb]:
    home = tmp_path / "adb-home"
    (home / ".android").mkdir(parents=True)
    (tmp_path / "adb-tmp").mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": str(tmp_path / "adb-tmp"),
        "ANDROID_ADB_SERVER_PORT": str(free_port()),
    }
    tool = Adb(env)
    started = tool("start-server")
    assert started.returncode == 0, started
    try:
        yield tool
    finally:
        tool("kill-server")


@pytest.fixture
def android(request: pytest.FixtureRequest) -> Iterator[SimulatedDevice]:
    """A simulated device of the release in the test's parameter that asks for no key, so
    adb and adbwire connect alike."""
    features = getattr(request, "param", ANDROID_11)
    with running_device(DeviceOptions(features=features, auth_required=False)) as device:
        yield device


def connect_to(android: SimulatedDevice) -> Connection:
    transport = TcpTransport(*android.address, io_timeout=10.0)
    return Connection.open(transport, [], timeouts=TIMEOUTS)


def last_install(android: SimulatedDevice) -> str:
    return [s for s in android.services_opened if "install" in s][-1]


def last_command(android: SimulatedDevice) -> str:
    """The command line of the latest shell:/exec: service."""
    opened = [s for s in android.services_opened if s.startswith(("shell", "exec:"))]
    return opened[-1].partition(":")[2]


def installed_path(android: SimulatedDevice, package: str) -> str:
    with connect_to(android) as connection:
        return run(connection, f"pm path {package}").text.strip()


@pytest.mark.parametrize("android", [ANDROID_11, ANDROID_8], indirect=True, ids=["abb", "cmd"])
def test_streamed_install_matches_adb(adb: Adb, android: SimulatedDevice, tmp_path: Path) -> None:
    apk = make_apk(tmp_path, payload=os.urandom(400_000))
    adb.connected(android.serial)
    result = adb("-s", android.serial, "install", "-r", "-d", "-g", str(apk))
    assert result.returncode == 0 and result.stdout.endswith("Success\n"), result
    adb_service, adb_copy = last_install(android), installed_path(android, "com.example.app")

    with connect_to(android) as connection:
        options = InstallOptions(replace=True, downgrade=True, grant_permissions=True)
        assert install(connection, apk, options).ok
    ours_service, our_copy = last_install(android), installed_path(android, "com.example.app")

    if adb_service.startswith("exec:"):  # adb quotes each word; the device's shell unquotes
        assert shlex.split(ours_service[5:]) == shlex.split(adb_service[5:])
    else:
        assert ours_service == adb_service
    assert our_copy == adb_copy and adb_copy.startswith("package:/data/app/")


@pytest.mark.parametrize("keep", [False, True])
def test_uninstall_matches_adb(
    adb: Adb, android: SimulatedDevice, keep: bool, tmp_path: Path
) -> None:
    apk = make_apk(tmp_path, "com.example.app")
    adb.connected(android.serial)
    if keep:  # adb refuses -k itself and points at `adb shell cmd package uninstall -k`
        words = ["shell", "cmd", "package", "uninstall", "-k", "com.example.app"]
    else:
        words = ["uninstall", "com.example.app"]
    with connect_to(android) as connection:
        assert install(connection, apk).ok
    result = adb("-s", android.serial, *words)
    assert result.returncode == 0 and result.stdout.strip() == "Success", result
    theirs = last_command(android)
    with connect_to(android) as connection:
        assert install(connection, apk).ok
        assert uninstall(connection, "com.example.app", keep_data=keep).ok
    assert shlex.split(last_command(android)) == shlex.split(theirs)


@pytest.mark.parametrize(
    ("words", "ours"),
    [
        (["reboot"], control.reboot),
        (["reboot", "bootloader"], lambda c: control.reboot(c, "bootloader")),
        (["reboot", "recovery"], lambda c: control.reboot(c, "recovery")),
        (["reboot", "sideload-auto-reboot"], lambda c: control.reboot(c, "sideload-auto-reboot")),
        (["tcpip", "5557"], lambda c: control.tcpip(c, 5557)),
        (["usb"], control.usb),
    ],
    ids=["reboot", "bootloader", "recovery", "sideload-auto-reboot", "tcpip", "usb"],
)
def test_control_services_match_adb(
    adb: Adb, android: SimulatedDevice, words: list[str], ours: object
) -> None:
    adb.connected(android.serial)
    result = adb("-s", android.serial, *words)
    assert result.returncode == 0, result
    theirs = android.services_opened[-1]
    with connect_to(android) as connection:
        ours(connection)  # type: ignore[operator]
    assert android.services_opened[-1] == theirs


def test_installs_by_adb_and_by_adbwire_agree_on_the_simulator(adb: Adb, tmp_path: Path) -> None:
    key = load_key(Path(adb.env["HOME"]) / ".android" / "adbkey")  # made by adb start-server
    trusted = key.public_key_bytes().rstrip(b"\0").decode()
    with running_device(DeviceOptions(authorized_keys=(trusted,))) as device:
        adb.connected(device.serial)
        first = make_apk(tmp_path, "com.example.both", 1, "1.0", filename="v1.apk")
        second = make_apk(tmp_path, "com.example.both", 2, "2.0", filename="v2.apk")
        result = adb("-s", device.serial, "install", str(first))
        assert result.stdout.endswith("Success\n"), result

        factory = tcp_connection_factory(device.serial, [key], timeouts=TIMEOUTS)
        with factory() as connection:
            listed = run(connection, "pm list packages --show-versioncode com.example.both")
            assert listed.stdout.decode().strip() == "package:com.example.both versionCode:1"
            assert install(connection, second, InstallOptions(replace=True)).ok

        seen = adb("-s", device.serial, "shell", "pm list packages --show-versioncode")
        assert "package:com.example.both versionCode:2" in seen.stdout
