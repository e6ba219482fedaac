"""Package-manager answers, package names, and uninstall against the simulated device."""

from __future__ import annotations

from pathlib import Path

import pytest

from adbwire.errors import DeviceCommandError, UsageError
from adbwire.testing import SimulatedDevice
from adbwire.wire.connection import Connection
from adbwire.wire.services.install import install, uninstall
from adbwire.wire.services.install_result import (
    PackageManagerAnswer,
    check_package_name,
    parse_answer,
)
from adbwire.wire.services.shell import run
from tests.wire.services.axml_writer import make_apk
from tests.wire.services.conftest import ANDROID_6

ANSWERS = [
    ("Success\n", PackageManagerAnswer(True, None, "Success")),
    ("\tpkg: /data/local/tmp/a.apk\r\nSuccess\r\n", PackageManagerAnswer(True, None, "Success")),
    (
        "Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code 1 "
        "is older than current 2]\n",
        PackageManagerAnswer(
            False,
            "INSTALL_FAILED_VERSION_DOWNGRADE",
            "Downgrade detected: Update version code 1 is older than current 2",
        ),
    ),
    (
        "Failure [INSTALL_PARSE_FAILED_NO_CERTIFICATES: Failed collecting certificates for "
        "/data/app/vmdl1.tmp/base.apk: [META-INF/CERT.RSA] missing]",
        PackageManagerAnswer(
            False,
            "INSTALL_PARSE_FAILED_NO_CERTIFICATES",
            "Failed collecting certificates for /data/app/vmdl1.tmp/base.apk: "
            "[META-INF/CERT.RSA] missing",
        ),
    ),
    (
        "Failure [INSTALL_FAILED_OLDER_SDK]",
        PackageManagerAnswer(False, "INSTALL_FAILED_OLDER_SDK", ""),
    ),
    ("Failure [not installed for 0]\n", PackageManagerAnswer(False, None, "not installed for 0")),
    ("", PackageManagerAnswer(False, None, "the package manager gave no answer")),
    (
        "Exception occurred while executing 'install':\njava.lang.SecurityException: nope\n",
        PackageManagerAnswer(
            False,
            None,
            "Exception occurred while executing 'install':\njava.lang.SecurityException: nope",
        ),
    ),
    ("Successful? no\n", PackageManagerAnswer(False, None, "Successful? no")),
]


@pytest.mark.parametrize(("output", "expected"), ANSWERS)
def test_parse_answer(output: str, expected: PackageManagerAnswer) -> None:
    assert parse_answer(output) == expected


def test_very_long_answers_are_clipped() -> None:
    answer = parse_answer("Error: " + "x" * 10_000)
    assert not answer.ok and len(answer.message) < 2100


@pytest.mark.parametrize(
    "name", ["com.example.app", "a.b", "Com.Example_2.x9", "android.test.runner"]
)
def test_valid_package_names(name: str) -> None:
    assert check_package_name(name) == name


@pytest.mark.parametrize(
    "name",
    [
        "",
        "android",
        "com..example",
        ".com.example",
        "com.example.",
        "1com.example",
        "com.1example",
        "com.exa-mple",
        "com.example; reboot",
        "com.example\n",
        "com.$(id)",
        "a." + "b" * 300,
    ],
)
def test_invalid_package_names(name: str) -> None:
    with pytest.raises(UsageError, match="not a valid package name"):
        check_package_name(name)


def installed(connection: Connection, tmp_path: Path) -> None:
    assert install(connection, make_apk(tmp_path, "com.example.app")).ok
    assert run(connection, "pm path com.example.app").exit_code == 0


def shell_commands(device: SimulatedDevice) -> list[str]:
    return [s.partition(":")[2] for s in device.services_opened if s.startswith("shell")]


def test_uninstall_with_cmd(
    device: SimulatedDevice, connection: Connection, tmp_path: Path
) -> None:
    installed(connection, tmp_path)
    result = uninstall(connection, "com.example.app", keep_data=True, user=0)
    assert result.ok and result.package == "com.example.app"
    assert shell_commands(device)[-1] == "cmd package uninstall -k --user 0 com.example.app"
    assert run(connection, "pm path com.example.app").exit_code != 0


@pytest.mark.parametrize("features", [ANDROID_6])
def test_uninstall_with_pm_before_cmd_existed(
    device: SimulatedDevice, connection: Connection, tmp_path: Path
) -> None:
    installed(connection, tmp_path)
    assert uninstall(connection, "com.example.app").ok
    assert shell_commands(device)[-1] == "pm uninstall com.example.app"


def test_uninstall_failure(connection: Connection) -> None:
    result = uninstall(connection, "com.example.gone")
    assert (result.ok, result.code) == (False, "DELETE_FAILED_INTERNAL_ERROR")
    with pytest.raises(DeviceCommandError, match=r"com\.example\.gone.*DELETE_FAILED"):
        result.check()


def test_bad_names_are_refused_before_anything_is_sent(
    device: SimulatedDevice, connection: Connection
) -> None:
    with pytest.raises(UsageError):
        uninstall(connection, "com.example; reboot")
    with pytest.raises(UsageError):
        uninstall(connection, "com.example.app", user=-3)
    assert device.services_opened == []
