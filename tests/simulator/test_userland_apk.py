"""Installing APKs: the binary manifest reader, the test-APK builder, pm and streaming install."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from adbwire.testing.userland import Userland
from adbwire.testing.userland.android.apk import ApkError, build_apk, read_manifest
from tests.simulator.userland_harness import make_userland, run


@pytest.fixture
def userland(tmp_path: Path) -> Userland:
    return make_userland(tmp_path)


def test_built_apk_manifest_reads_back() -> None:
    apk = build_apk(
        "org.sample.app",
        version_code=42,
        version_name="4.2",
        permissions=("android.permission.CAMERA", "android.permission.INTERNET"),
        activities=(".Main", "org.sample.app.Other"),
        launcher=".Main",
    )
    manifest = read_manifest(apk)
    assert (manifest.package, manifest.version_code, manifest.version_name) == (
        "org.sample.app",
        42,
        "4.2",
    )
    assert manifest.permissions == ["android.permission.CAMERA", "android.permission.INTERNET"]
    assert manifest.activities == ["org.sample.app.Main", "org.sample.app.Other"]
    assert manifest.launcher == "org.sample.app.Main"


def test_not_an_apk() -> None:
    with pytest.raises(ApkError, match="NOT_APK"):
        read_manifest(b"PK? no")
    empty = io.BytesIO()
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("classes.dex", b"")
    with pytest.raises(ApkError, match="BAD_MANIFEST"):
        read_manifest(empty.getvalue())


def test_streaming_install_adds_a_launchable_package(userland: Userland) -> None:
    apk = build_apk("org.sample.app", permissions=("android.permission.CAMERA",))
    assert userland.install_apk(apk, len(apk), ["-r", "-g"]) == (True, "Success")
    assert "package:org.sample.app\n" in run(userland, "pm list packages -3").out
    dump = run(userland, "dumpsys package org.sample.app").out
    assert "android.permission.CAMERA: granted=true" in dump
    assert "    installerPackageName=com.android.shell\n" in dump
    run(userland, "monkey -p org.sample.app -c android.intent.category.LAUNCHER 1")
    focus = run(userland, "dumpsys window | grep mCurrentFocus").out
    assert "org.sample.app/org.sample.app.MainActivity" in focus


def test_install_answers_like_the_package_manager(userland: Userland) -> None:
    ok, message = userland.install_apk(b"garbage", 7, [])
    assert not ok
    assert message.startswith("Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse /data/app/")
    older = build_apk("com.example.notes", version_code=1)
    ok, message = userland.install_apk(older, len(older), [])
    assert not ok
    assert message == (
        "Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code 1 "
        "is older than current 231]"
    )
    ok, message = userland.install_apk(older, len(older), ["-d"])
    assert (ok, message) == (True, "Success")
    short = userland.install_apk(io.BytesIO(older[:10]), len(older), [])
    assert short[0] is False and "Expected" in short[1]


def test_pm_install_from_stdin_and_from_a_file(userland: Userland) -> None:
    apk = build_apk("org.sample.stdin")
    result = run(userland, f"cmd package install -S {len(apk)}", stdin=apk)
    assert (result.status, result.out) == (0, "Success\n")
    userland.device.files.write_bytes("/data/local/tmp/app.apk", build_apk("org.sample.file"))
    assert run(userland, "pm install -r /data/local/tmp/app.apk").out == "Success\n"
    missing = run(userland, "pm install /data/local/tmp/none.apk")
    assert missing.status == 255
    assert "Error: Can't open file: /data/local/tmp/none.apk" in missing.err
    assert run(userland, "pm uninstall org.sample.file").out == "Success\n"
    gone = run(userland, "pm uninstall org.sample.file")
    assert (gone.status, gone.out) == (1, "Failure [DELETE_FAILED_INTERNAL_ERROR]\n")
