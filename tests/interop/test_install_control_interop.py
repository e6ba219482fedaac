"""Install, uninstall and device control: what Google's adb sends vs what adbwire sends.

The oracle is Debian's /usr/bin/adb, pointed at a device on loopback:
- at the fake adbd of tests/wire/services (it records every OPEN and every streamed APK),
  adb and adbwire must open the same services with the same arguments and send the
  same bytes;
- at the simulated device, an APK installed by adb is seen by adbwire and the other way
  round (each side's package manager view agrees).

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

from adbwire.testing import DeviceOptions, running_device
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
from tests.wire.services.fake_adbd import fake_adbd
from tests.wire.services.fake_android import ANDROID_8, ANDROID_11, FakeAndroid

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
def fake_android(request: pytest.FixtureRequest) -> Iterator[FakeAndroid]:
    features = getattr(request, "param", ANDROID_11)
    with fake_adbd(features) as device:
        yield FakeAndroid(device)


def connect_to(android: FakeAndroid) -> Connection:
    transport = TcpTransport("127.0.0.1", android.device.port, io_timeout=10.0)
    return Connection.open(transport, [], timeouts=TIMEOUTS)


@pytest.mark.parametrize("fake_android", [ANDROID_11, ANDROID_8], indirect=True, ids=["abb", "cmd"])
def test_streamed_install_matches_adb(adb: Adb, fake_android: FakeAndroid, tmp_path: Path) -> None:
    apk = make_apk(tmp_path, payload=os.urandom(400_000))
    adb.connected(fake_android.device.address)
    result = adb("-s", fake_android.device.address, "install", "-r", "-d", "-g", str(apk))
    assert result.returncode == 0 and result.stdout.endswith("Success\n"), result
    adb_service, adb_call = fake_android.device.opened[-1], fake_android.installs[-1]

    with connect_to(fake_android) as connection:
        options = InstallOptions(replace=True, downgrade=True, grant_permissions=True)
        assert install(connection, apk, options).ok
    ours_service, ours_call = fake_android.device.opened[-1], fake_android.installs[-1]

    if adb_service.startswith("exec:"):  # adb quotes each word; the device's shell unquotes
        assert shlex.split(ours_service[5:]) == shlex.split(adb_service[5:])
    else:
        assert ours_service == adb_service
    assert ours_call == adb_call


@pytest.mark.parametrize("keep", [False, True])
def test_uninstall_matches_adb(adb: Adb, fake_android: FakeAndroid, keep: bool) -> None:
    adb.connected(fake_android.device.address)
    if keep:  # adb refuses -k itself and points at `adb shell cmd package uninstall -k`
        words = ["shell", "cmd", "package", "uninstall", "-k", "com.example.app"]
    else:
        words = ["uninstall", "com.example.app"]
    result = adb("-s", fake_android.device.address, *words)
    assert result.returncode == 0 and result.stdout.strip() == "Success", result
    with connect_to(fake_android) as connection:
        assert uninstall(connection, "com.example.app", keep_data=keep).ok
    theirs, ours = fake_android.shell_commands
    assert shlex.split(ours) == shlex.split(theirs)


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
    adb: Adb, fake_android: FakeAndroid, words: list[str], ours: object
) -> None:
    adb.connected(fake_android.device.address)
    result = adb("-s", fake_android.device.address, *words)
    assert result.returncode == 0, result
    theirs = fake_android.device.opened[-1]
    with connect_to(fake_android) as connection:
        ours(connection)  # type: ignore[operator]
    assert fake_android.device.opened[-1] == theirs


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
