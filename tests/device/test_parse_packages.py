"""pm list packages, pm path, resolve-activity and dumpsys package."""

from __future__ import annotations

import pytest

from adbwire.device.parsers.component import Component
from adbwire.device.parsers.package_info import parse_package_info
from adbwire.device.parsers.packages import (
    PackageEntry,
    parse_package_list,
    parse_pm_path,
    parse_resolve_activity,
)
from adbwire.errors import DeviceCommandError
from tests.device_outputs import device_output


def test_pm_list_packages_plain_and_with_paths() -> None:
    text = (
        "package:com.android.settings\r\n"
        "package:/data/app/~~Ab3x==/com.example.app-Zq9==/base.apk=com.example.app\r\n"
        "package:/system/priv-app/Settings/Settings.apk=com.android.settings2\r\n"
        "\r\n"
    )
    assert parse_package_list(text) == (
        PackageEntry("com.android.settings"),
        PackageEntry("com.example.app", "/data/app/~~Ab3x==/com.example.app-Zq9==/base.apk"),
        PackageEntry("com.android.settings2", "/system/priv-app/Settings/Settings.apk"),
    )


def test_pm_list_packages_extra_fields() -> None:
    text = (
        "package:/data/app/x==/base.apk=com.example.app versionCode:42 uid:10123\n"
        "package:com.android.vending  installer=null\n"
        "package:com.whatsapp  installer=com.android.vending\n"
    )
    first, second, third = parse_package_list(text)
    assert first == PackageEntry("com.example.app", "/data/app/x==/base.apk", 10123, None, 42)
    assert (second.name, second.installer) == ("com.android.vending", None)
    assert (third.name, third.installer) == ("com.whatsapp", "com.android.vending")


def test_pm_list_packages_empty_and_errors() -> None:
    assert parse_package_list("") == ()
    with pytest.raises(DeviceCommandError):
        parse_package_list("Error: java.lang.SecurityException: Shell does not have permission\n")


def test_pm_path_with_splits() -> None:
    text = (
        "package:/data/app/~~q==/com.x-w==/base.apk\n"
        "package:/data/app/~~q==/com.x-w==/split_config.arm64_v8a.apk\n"
    )
    assert parse_pm_path(text) == (
        "/data/app/~~q==/com.x-w==/base.apk",
        "/data/app/~~q==/com.x-w==/split_config.arm64_v8a.apk",
    )
    assert parse_pm_path("") == ()


def test_resolve_activity_brief() -> None:
    text = "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n"
    text += "com.example.app/.ui.MainActivity\n"
    assert parse_resolve_activity(text) == Component(
        "com.example.app", "com.example.app.ui.MainActivity"
    )
    assert parse_resolve_activity("No activity found\n") is None


def test_samsung_whole_device_dump() -> None:
    text = device_output("dumpsys_package/mvt_samsung_excerpt.txt")
    info = parse_package_info(text, "com.sec.android.app.DataCreate")
    assert info is not None
    assert (info.version_name, info.version_code, info.min_sdk, info.target_sdk) == (
        "1.0",
        1,
        29,
        29,
    )
    assert info.uid == 10143
    assert info.code_path == "/system/app/AutomationTest_FB"
    assert info.first_install_time == "2008-12-31 16:00:00"
    assert info.last_update_time == "2008-12-31 16:00:00"
    assert info.installer is None
    assert info.is_system
    assert len(info.requested_permissions) == 11
    assert info.requested_permissions[0] == "android.permission.ACCESS_WIFI_STATE"
    install = [p for p in info.permissions if p.kind == "install"]
    runtime = {p.name: p for p in info.permissions if p.kind == "runtime"}
    assert len(install) == 20 and all(p.granted for p in install)
    assert len(runtime) == 13 and not any(p.granted for p in runtime.values())
    assert runtime["android.permission.READ_SMS"].flags == (
        "USER_SENSITIVE_WHEN_GRANTED",
        "RESTRICTION_UPGRADE_EXEMPT",
    )
    assert "android.permission.CAMERA" not in info.granted_permissions
    assert "android.permission.INTERNET" in info.granted_permissions
    # The whole-device dump prints "(2 filters)", not the filters: no launcher can be told.
    assert info.launchable_activity is None

    other = parse_package_info(text, "com.samsung.android.provider.filterprovider")
    assert other is not None
    assert (other.version_name, other.version_code, other.uid) == ("5.0.07", 500700000, 1000)
    assert other.requested_permissions == ()
    assert parse_package_info(text, "com.not.installed") is None


def test_unable_to_find_package_is_none() -> None:
    text = device_output("dumpsys_package/error_unable_to_find_package.txt")
    assert parse_package_info(text, "com.funnyenglish.app") is None


SINGLE_PACKAGE = """\
Activity Resolver Table:
  Non-Data Actions:
      android.intent.action.VIEW:
        5d1c2a0 com.google.android.youtube/.UrlActivity filter 33aa11
          Action: "android.intent.action.VIEW"
          Category: "android.intent.category.DEFAULT"
      android.intent.action.MAIN:
        8c7e1f2 com.google.android.youtube/com.google.android.apps.youtube.app.application.Shell$TvHomeActivity filter 9e8d7c
          Action: "android.intent.action.MAIN"
          Category: "android.intent.category.LEANBACK_LAUNCHER"
        a1b2c3d com.google.android.youtube/.app.honeycomb.Shell$HomeActivity filter 4f5e6d
          Action: "android.intent.action.MAIN"
          Category: "android.intent.category.LAUNCHER"
          Category: "android.intent.category.DEFAULT"
        e4f5a6b com.google.android.youtube/.app.honeycomb.Shell$ShortsAlias filter 7a8b9c
          Action: "android.intent.action.MAIN"
          Category: "android.intent.category.LAUNCHER"

Key Set Manager:
  [com.google.android.youtube]
      Signing KeySets: 12

Packages:
  Package [com.google.android.youtube] (2b3c4d5):
    userId=10122
    pkg=Package{6e7f809 com.google.android.youtube}
    codePath=/data/app/~~kT2==/com.google.android.youtube-Qw==
    versionCode=1541152192 minSdk=26 targetSdk=33
    versionName=18.45.43
    flags=[ HAS_CODE ALLOW_CLEAR_USER_DATA UPDATED_SYSTEM_APP ]
    timeStamp=2023-11-20 09:15:02
    firstInstallTime=2008-12-31 16:00:00
    lastUpdateTime=2023-11-20 09:15:04
    installerPackageName=com.android.vending
    requested permissions:
      android.permission.INTERNET
      android.permission.POST_NOTIFICATIONS
      android.permission.ACCESS_BACKGROUND_LOCATION: restricted=true
    install permissions:
      android.permission.INTERNET: granted=true
    User 0: ceDataInode=131478 installed=true hidden=false suspended=false stopped=false
      runtime permissions:
        android.permission.POST_NOTIFICATIONS: granted=true, flags=[ USER_SET|USER_SENSITIVE_WHEN_GRANTED]
    User 10: ceDataInode=2210 installed=true hidden=false suspended=false stopped=true
      runtime permissions:
        android.permission.POST_NOTIFICATIONS: granted=false, flags=[ USER_SENSITIVE_WHEN_GRANTED]

Hidden system packages:
  Package [com.google.android.youtube] (8a9b0c1):
    userId=10122
    codePath=/product/app/YouTube
    versionCode=1530123456 minSdk=26 targetSdk=33
    versionName=17.36.37
"""  # noqa: E501 (dump lines as devices print them)


def test_single_package_dump_of_an_updated_system_app() -> None:
    info = parse_package_info(SINGLE_PACKAGE, "com.google.android.youtube")
    assert info is not None
    assert (info.version_name, info.version_code) == ("18.45.43", 1541152192)  # not the hidden one
    assert info.installer == "com.android.vending"
    assert info.requested_permissions == (
        "android.permission.INTERNET",
        "android.permission.POST_NOTIFICATIONS",
        "android.permission.ACCESS_BACKGROUND_LOCATION",
    )
    # Only the first user's runtime grants count.
    runtime = [(p.name, p.granted) for p in info.permissions if p.kind == "runtime"]
    assert runtime == [("android.permission.POST_NOTIFICATIONS", True)]
    assert info.granted_permissions == (
        "android.permission.INTERNET",
        "android.permission.POST_NOTIFICATIONS",
    )
    assert not info.is_system
    # LAUNCHER is preferred over LEANBACK_LAUNCHER even when listed after it; of two
    # LAUNCHER activities the first listed is the one.
    assert info.launchable_activity == Component(
        "com.google.android.youtube", "com.google.android.youtube.app.honeycomb.Shell$HomeActivity"
    )


def test_package_only_in_hidden_system_packages_is_not_installed() -> None:
    hidden_only = SINGLE_PACKAGE.replace(
        "Package [com.google.android.youtube] (2b3c4d5)", "Package [com.other] (2b3c4d5)"
    )
    assert parse_package_info(hidden_only, "com.google.android.youtube") is None


def test_single_package_dump_with_crlf() -> None:
    info = parse_package_info(SINGLE_PACKAGE.replace("\n", "\r\n"), "com.google.android.youtube")
    assert info is not None
    assert info.launchable_activity is not None
    assert info.version_name == "18.45.43"


def test_android_5_granted_permissions_list() -> None:
    text = (
        "Packages:\n"
        "  Package [com.example.old] (41e2a3b0):\n"
        "    userId=10056 gids=[3003]\n"
        "    versionCode=7 targetSdk=19\n"
        "    versionName=1.6\n"
        "    grantedPermissions:\n"
        "      android.permission.INTERNET\n"
        "      android.permission.CAMERA\n"
    )
    info = parse_package_info(text, "com.example.old")
    assert info is not None
    assert (info.version_code, info.min_sdk, info.target_sdk, info.uid) == (7, None, 19, 10056)
    assert info.granted_permissions == ("android.permission.INTERNET", "android.permission.CAMERA")


def test_errors_and_empty() -> None:
    assert parse_package_info("", "com.x") is None
    with pytest.raises(DeviceCommandError):
        parse_package_info("Can't find service: package\n", "com.x")
