"""Property operations against the simulated device."""

from __future__ import annotations

import pytest

from adbwire.device import properties
from adbwire.device.errors import RefusedError
from adbwire.errors import UsageError
from adbwire.wire.client import AdbClient
from tests.mcp.harness import device_client

__all__ = ["device_client"]


def test_get_and_list(device_client: AdbClient) -> None:
    assert properties.get_property(device_client, "ro.product.model") == "sdk_gphone64_x86_64"
    assert properties.get_property(device_client, "no.such.property") is None
    listed = properties.list_properties(device_client, "ro.build.version.")
    assert listed["ro.build.version.sdk"] == "34"
    assert list(listed) == sorted(listed) and all(k.startswith("ro.build.version.") for k in listed)


def test_set_reads_back(device_client: AdbClient) -> None:
    assert properties.set_property(device_client, "debug.adbwire.x", "a b;c") == "a b;c"
    assert properties.get_property(device_client, "debug.adbwire.x") == "a b;c"


def test_a_read_only_property_is_not_changed(device_client: AdbClient) -> None:
    with pytest.raises(RefusedError):  # only debug/log switches are settable at all
        properties.set_property(device_client, "ro.product.model", "Evil")
    assert properties.get_property(device_client, "ro.product.model") == "sdk_gphone64_x86_64"


@pytest.mark.parametrize("name", ["ctl.start", "ctl.stop", "sys.powerctl"])
def test_control_properties_are_refused(name: str, device_client: AdbClient) -> None:
    with pytest.raises(RefusedError):
        properties.set_property(device_client, name, "adbd")


@pytest.mark.parametrize("name", ["", "a b", "x;y", "$(id)", "a" * 200])
def test_bad_names(device_client: AdbClient, name: str) -> None:
    with pytest.raises(UsageError):
        properties.get_property(device_client, name)
