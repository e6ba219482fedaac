"""Package operations against the simulated device: each change is read back."""

from __future__ import annotations

import pytest

from adbwire.device import packages
from adbwire.device.errors import NotFoundError
from adbwire.errors import DeviceCommandError, UsageError
from adbwire.wire.client import AdbClient
from tests.mcp.harness import device_client

__all__ = ["device_client"]
NOTES = "com.example.notes"


def test_list_filters_on_the_host(device_client: AdbClient) -> None:
    third = [p.name for p in packages.list_packages(device_client, third_party_only=True)]
    assert third == [NOTES]
    every = packages.list_packages(device_client, contains="ANDROID")
    assert {p.name for p in every} >= {"android", "com.android.settings"}
    assert all("android" in p.name for p in every)


def test_package_info(device_client: AdbClient) -> None:
    info = packages.package_info(device_client, NOTES)
    assert (info.version_name, info.version_code) == ("2.3.1", 231)
    assert info.launchable_activity is not None
    assert info.launchable_activity.class_name == "com.example.notes.NotesListActivity"
    with pytest.raises(NotFoundError):
        packages.package_info(device_client, "com.not.installed")


def test_grant_and_revoke_are_read_back(device_client: AdbClient) -> None:
    camera = "android.permission.CAMERA"
    assert packages.set_permission(device_client, NOTES, camera, grant=True) is True
    assert camera in packages.package_info(device_client, NOTES).granted_permissions
    assert packages.set_permission(device_client, NOTES, camera, grant=False) is False
    with pytest.raises(NotFoundError):  # not requested by the app
        packages.set_permission(device_client, NOTES, "android.permission.READ_SMS", grant=True)
    with pytest.raises(DeviceCommandError):  # an install-time permission cannot change
        packages.set_permission(device_client, NOTES, "android.permission.INTERNET", grant=False)


def test_clear_and_uninstall(device_client: AdbClient) -> None:
    packages.clear_data(device_client, NOTES)
    packages.uninstall(device_client, NOTES)
    assert not packages.is_installed(device_client, NOTES)
    with pytest.raises(NotFoundError):
        packages.uninstall(device_client, NOTES)


@pytest.mark.parametrize("name", ["", "1abc", "a b", "a;b", "../x", "com..x"])
def test_bad_package_names(device_client: AdbClient, name: str) -> None:
    with pytest.raises(UsageError):
        packages.package_info(device_client, name)
