"""Installing over each method the device offers, against the simulated device.

The simulated package manager files each APK under a path made from its SHA-256, so
`pm path` proves the exact bytes arrived."""

from __future__ import annotations

import base64
import hashlib
import itertools
import os
from pathlib import Path

import pytest

from adbwire.errors import DeviceCommandError, DisconnectedError, UsageError
from adbwire.testing import SimulatedDevice
from adbwire.wire.connection import Connection
from adbwire.wire.services.install import choose_method, install, streaming_service
from adbwire.wire.services.install_result import InstallMethod, InstallOptions
from adbwire.wire.services.shell import run
from tests.wire.services.axml_writer import make_apk
from tests.wire.services.conftest import ANDROID_6, ANDROID_8, ANDROID_11


def installed_from(connection: Connection, package: str, apk: Path) -> bool:
    """True when the device's copy of `package` is exactly the bytes of `apk`."""
    digest = hashlib.sha256(apk.read_bytes()).digest()
    first = base64.urlsafe_b64encode(digest[:16]).decode()
    second = base64.urlsafe_b64encode(digest[16:]).decode()[:24]
    where = run(connection, f"pm path {package}").text.strip()
    return where == f"package:/data/app/~~{first}/{package}-{second}/base.apk"


def new_dir(parent: Path, name: str) -> Path:
    made = parent / name
    made.mkdir()
    return made


def installs_opened(device: SimulatedDevice) -> list[str]:
    return [s for s in device.services_opened if "install" in s]


ALL_OPTIONS = InstallOptions(
    replace=True, downgrade=True, grant_permissions=True, allow_test=True, user=10
)


def test_method_follows_features() -> None:
    assert choose_method(frozenset(ANDROID_11)) is InstallMethod.ABB_EXEC
    assert choose_method(frozenset(ANDROID_8)) is InstallMethod.CMD
    assert choose_method(frozenset(ANDROID_6)) is InstallMethod.PUSH


def test_service_strings_are_adbs() -> None:
    options = InstallOptions(replace=True, grant_permissions=True)
    assert streaming_service(InstallMethod.ABB_EXEC, options, 1234) == (
        "abb_exec:package\0install\0-r\0-g\0-S\0001234"
    )
    assert streaming_service(InstallMethod.CMD, options, 1234) == (
        "exec:cmd package install -r -g -S 1234"
    )
    with pytest.raises(UsageError):
        streaming_service(InstallMethod.PUSH, options, 1)


def test_options_become_flags_in_adbs_order() -> None:
    assert ALL_OPTIONS.flags() == ["-r", "-d", "-g", "-t", "--user", "10"]
    assert InstallOptions().flags() == []
    assert InstallOptions(user="current").flags() == ["--user", "current"]
    for bad in (-1, "me", True, 1.5):
        with pytest.raises(UsageError):
            InstallOptions(user=bad)  # type: ignore[arg-type]


def test_abb_exec_install_streams_the_exact_bytes(
    tmp_path: Path, device: SimulatedDevice, connection: Connection
) -> None:
    apk = make_apk(tmp_path, "com.example.abb", 21, "2.1", payload=os.urandom(3 * 1024 * 1024))
    size = apk.stat().st_size
    result = install(connection, apk, ALL_OPTIONS)
    assert result.ok and result.method is InstallMethod.ABB_EXEC
    assert (result.package, result.version_code, result.version_name) == (
        "com.example.abb",
        21,
        "2.1",
    )
    assert installs_opened(device) == [
        f"abb_exec:package\0install\0-r\0-d\0-g\0-t\0--user\00010\0-S\0{size}"
    ]
    assert installed_from(connection, "com.example.abb", apk)


@pytest.mark.parametrize("features", [ANDROID_8])
def test_cmd_install_without_abb_exec(
    tmp_path: Path, device: SimulatedDevice, connection: Connection
) -> None:
    apk = make_apk(tmp_path, payload=os.urandom(200_000))
    result = install(connection, apk, InstallOptions(replace=True))
    assert result.ok and result.method is InstallMethod.CMD
    assert installs_opened(device) == [f"exec:cmd package install -r -S {apk.stat().st_size}"]
    assert installed_from(connection, result.package, apk)


def test_progress_reports_every_byte_in_order(tmp_path: Path, connection: Connection) -> None:
    apk = make_apk(tmp_path, payload=os.urandom(1_500_000))
    seen: list[tuple[int, int]] = []
    install(connection, apk, progress=lambda done, total: seen.append((done, total)))
    size = apk.stat().st_size
    assert seen[0] == (0, size) and seen[-1] == (size, size)
    assert all(b[0] > a[0] for a, b in itertools.pairwise(seen))
    assert {total for _, total in seen} == {size}


def test_failure_is_a_typed_result(tmp_path: Path, connection: Connection) -> None:
    assert install(connection, make_apk(new_dir(tmp_path, "new"), "com.example.app", 5)).ok
    result = install(connection, make_apk(new_dir(tmp_path, "old"), "com.example.app", 4))
    assert not result.ok
    assert result.code == "INSTALL_FAILED_VERSION_DOWNGRADE"
    assert result.message.startswith("Downgrade detected: Update version code 4")
    with pytest.raises(DeviceCommandError, match="INSTALL_FAILED_VERSION_DOWNGRADE"):
        result.check()


def test_refusal_before_all_bytes_is_still_read(
    tmp_path: Path, device: SimulatedDevice, connection: Connection
) -> None:
    device.files.capacity_bytes = device.files.usage_bytes() + 100_000
    result = install(connection, make_apk(tmp_path, payload=os.urandom(4 * 1024 * 1024)))
    assert (result.ok, result.code) == (False, "INSTALL_FAILED_INSUFFICIENT_STORAGE")
    assert connection.failure is None
    assert run(connection, "echo still here").text == "still here\n"


def test_lost_device_mid_install_is_a_disconnect(
    tmp_path: Path, device: SimulatedDevice, connection: Connection
) -> None:
    device.faults.drop_after_received_bytes = 300_000
    with pytest.raises(DisconnectedError):
        install(connection, make_apk(tmp_path, payload=os.urandom(4 * 1024 * 1024)), timeout=10)


def test_bad_apk_never_reaches_the_device(
    tmp_path: Path, device: SimulatedDevice, connection: Connection
) -> None:
    bogus = tmp_path / "broken.apk"
    bogus.write_bytes(b"PK not really")
    with pytest.raises(UsageError, match=r"broken\.apk"):
        install(connection, bogus)
    assert device.services_opened == []


@pytest.mark.parametrize("features", [ANDROID_6])
def test_push_install_pushes_installs_and_cleans_up(
    tmp_path: Path, device: SimulatedDevice, connection: Connection
) -> None:
    apk = make_apk(tmp_path, "com.example.old", 3, "0.3", payload=os.urandom(300_000))
    seen: list[tuple[int, int]] = []
    result = install(
        connection,
        apk,
        InstallOptions(replace=True, allow_test=True),
        progress=lambda done, total: seen.append((done, total)),
    )
    assert result.ok and result.method is InstallMethod.PUSH
    assert result.package == "com.example.old"
    assert installed_from(connection, "com.example.old", apk)
    commands = [s.partition(":")[2] for s in device.services_opened if s.startswith("shell")]
    [pm] = [c for c in commands if c.startswith("pm install")]
    assert pm.split()[:4] == ["pm", "install", "-r", "-t"]
    staged = pm.split()[-1]
    assert staged.startswith("/data/local/tmp/adbwire-install-") and staged.endswith(".apk")
    assert f"rm -f {staged}" in commands
    assert not device.files.exists(staged)
    assert seen and seen[-1] == (apk.stat().st_size, apk.stat().st_size)


@pytest.mark.parametrize("features", [ANDROID_6])
def test_push_install_failure_still_cleans_up(
    tmp_path: Path, device: SimulatedDevice, connection: Connection
) -> None:
    assert install(connection, make_apk(new_dir(tmp_path, "new"), "com.example.app", 5)).ok
    result = install(connection, make_apk(new_dir(tmp_path, "old"), "com.example.app", 4))
    assert (result.ok, result.code) == (False, "INSTALL_FAILED_VERSION_DOWNGRADE")
    removed = [s.split()[-1] for s in device.services_opened if ":rm -f /data/local/tmp/" in s]
    assert len(removed) == 2
    assert not any(device.files.exists(path) for path in removed)


def test_forced_method_is_used(
    tmp_path: Path, device: SimulatedDevice, connection: Connection
) -> None:
    result = install(connection, make_apk(tmp_path), method=InstallMethod.CMD)
    assert result.method is InstallMethod.CMD
    assert [s.split()[0] for s in installs_opened(device)] == ["exec:cmd"]
