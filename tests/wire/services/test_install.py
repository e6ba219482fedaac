"""Installing over each method the device offers, against the fake adbd."""

from __future__ import annotations

import hashlib
import itertools
import os
from pathlib import Path

import pytest

from adbwire.errors import DeviceCommandError, DisconnectedError, UsageError
from adbwire.wire.connection import Connection
from adbwire.wire.services.install import choose_method, install, streaming_service
from adbwire.wire.services.install_result import InstallMethod, InstallOptions
from tests.wire.services.axml_writer import make_apk
from tests.wire.services.fake_android import ANDROID_6, ANDROID_8, ANDROID_11, FakeAndroid


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


ALL_OPTIONS = InstallOptions(
    replace=True, downgrade=True, grant_permissions=True, allow_test=True, user=10
)


def test_method_follows_features() -> None:
    assert choose_method(ANDROID_11) is InstallMethod.ABB_EXEC
    assert choose_method(ANDROID_8) is InstallMethod.CMD
    assert choose_method(ANDROID_6) is InstallMethod.PUSH


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
    tmp_path: Path, android: FakeAndroid, connection: Connection
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
    [call] = android.installs
    assert (call.via, call.flags, call.size, call.sha256) == (
        "abb_exec",
        ["-r", "-d", "-g", "-t", "--user", "10"],
        size,
        sha256(apk),
    )
    assert f"abb_exec:package\0install\0-r\0-d\0-g\0-t\0--user\00010\0-S\0{size}" in (
        android.device.opened
    )


@pytest.mark.parametrize("features", [ANDROID_8])
def test_cmd_install_without_abb_exec(
    tmp_path: Path, android: FakeAndroid, connection: Connection
) -> None:
    apk = make_apk(tmp_path, payload=os.urandom(200_000))
    result = install(connection, apk, InstallOptions(replace=True))
    assert result.ok and result.method is InstallMethod.CMD
    [call] = android.installs
    assert (call.via, call.flags, call.sha256) == ("cmd", ["-r"], sha256(apk))
    assert f"exec:cmd package install -r -S {apk.stat().st_size}" in android.device.opened


def test_progress_reports_every_byte_in_order(tmp_path: Path, connection: Connection) -> None:
    apk = make_apk(tmp_path, payload=os.urandom(1_500_000))
    seen: list[tuple[int, int]] = []
    install(connection, apk, progress=lambda done, total: seen.append((done, total)))
    size = apk.stat().st_size
    assert seen[0] == (0, size) and seen[-1] == (size, size)
    assert all(b[0] > a[0] for a, b in itertools.pairwise(seen))
    assert {total for _, total in seen} == {size}


def test_failure_is_a_typed_result(
    tmp_path: Path, android: FakeAndroid, connection: Connection
) -> None:
    android.answer = lambda apk, flags: (
        "Failure [INSTALL_FAILED_ALREADY_EXISTS: Attempt to re-install com.example.app "
        "without first uninstalling.]"
    )
    result = install(connection, make_apk(tmp_path))
    assert not result.ok
    assert result.code == "INSTALL_FAILED_ALREADY_EXISTS"
    assert result.message.startswith("Attempt to re-install com.example.app")
    with pytest.raises(DeviceCommandError, match="INSTALL_FAILED_ALREADY_EXISTS"):
        result.check()


def test_refusal_before_all_bytes_is_still_read(
    tmp_path: Path, android: FakeAndroid, connection: Connection
) -> None:
    android.reject_after = 100_000
    result = install(connection, make_apk(tmp_path, payload=os.urandom(4 * 1024 * 1024)))
    assert (result.ok, result.code) == (False, "INSTALL_FAILED_INVALID_APK")
    assert connection.failure is None


def test_lost_device_mid_install_is_a_disconnect(
    tmp_path: Path, android: FakeAndroid, connection: Connection
) -> None:
    android.drop_after = 300_000
    with pytest.raises(DisconnectedError):
        install(connection, make_apk(tmp_path, payload=os.urandom(4 * 1024 * 1024)), timeout=10)


def test_bad_apk_never_reaches_the_device(
    tmp_path: Path, android: FakeAndroid, connection: Connection
) -> None:
    bogus = tmp_path / "broken.apk"
    bogus.write_bytes(b"PK not really")
    with pytest.raises(UsageError, match=r"broken\.apk"):
        install(connection, bogus)
    assert android.device.opened == []


@pytest.mark.parametrize("features", [ANDROID_6])
def test_push_install_pushes_installs_and_cleans_up(
    tmp_path: Path, android: FakeAndroid, connection: Connection
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
    [call] = android.installs
    assert (call.via, call.flags, call.sha256) == ("pm", ["-r", "-t"], sha256(apk))
    [pm] = [c for c in android.shell_commands if c.startswith("pm install")]
    staged = pm.split()[-1]
    assert staged.startswith("/data/local/tmp/adbwire-install-") and staged.endswith(".apk")
    assert f"rm -f {staged}" in android.shell_commands
    assert android.files == {}
    assert seen and seen[-1] == (apk.stat().st_size, apk.stat().st_size)


@pytest.mark.parametrize("features", [ANDROID_6])
def test_push_install_failure_still_cleans_up(
    tmp_path: Path, android: FakeAndroid, connection: Connection
) -> None:
    android.answer = lambda apk, flags: "Failure [INSTALL_FAILED_OLDER_SDK]"
    result = install(connection, make_apk(tmp_path))
    assert (result.ok, result.code, result.message) == (False, "INSTALL_FAILED_OLDER_SDK", "")
    assert android.files == {}
    assert any(c.startswith("rm -f /data/local/tmp/") for c in android.shell_commands)


def test_forced_method_is_used(
    tmp_path: Path, android: FakeAndroid, connection: Connection
) -> None:
    result = install(connection, make_apk(tmp_path), method=InstallMethod.CMD)
    assert result.method is InstallMethod.CMD
    assert [call.via for call in android.installs] == ["cmd"]
