from __future__ import annotations

import pytest

from adbwire.errors import RemoteProtocolError
from adbwire.wire.banner import HOST_FEATURES, Banner, host_banner, parse_banner

PIXEL = (
    b"device::ro.product.name=sdk_gphone64_x86_64;ro.product.model=sdk_gphone64_x86_64;"
    b"ro.product.device=emu64xa;features=sendrecv_v2_brotli,remount_shell,sendrecv_v2,abb_exec,"
    b"fixed_push_mkdir,fixed_push_symlink_timestamp,abb,shell_v2,cmd,ls_v2,apex,stat_v2,"
    b"delayed_ack\0"
)


def test_real_device_banner() -> None:
    banner = parse_banner(PIXEL)
    assert banner.system_type == "device"
    assert banner.serial == ""
    assert banner.product == "sdk_gphone64_x86_64"
    assert banner.device == "emu64xa"
    assert banner.has("shell_v2") and banner.has("delayed_ack") and banner.has("abb_exec")
    assert not banner.has("track_app")


def test_old_device_banner_with_serial_and_no_features() -> None:
    banner = parse_banner(b"device:0123456789ABCDEF:ro.product.name=mako;ro.product.model=Nexus 4")
    assert banner.serial == "0123456789ABCDEF"
    assert banner.model == "Nexus 4"
    assert banner.features == frozenset()


def test_recovery_and_bare_banners() -> None:
    assert parse_banner(b"recovery::").system_type == "recovery"
    assert parse_banner(b"sideload::").properties == {}


def test_malformed_banner_is_the_devices_fault() -> None:
    with pytest.raises(RemoteProtocolError, match="malformed CNXN banner"):
        parse_banner(b"garbage without colons")


def test_round_trip_of_our_host_banner() -> None:
    banner = host_banner()
    parsed = parse_banner(banner.encode())
    assert parsed.system_type == "host"
    assert parsed.features == frozenset(HOST_FEATURES)


def test_encode_keeps_properties_in_order() -> None:
    banner = Banner(
        "device", "", {"ro.product.name": "a", "ro.product.model": "b"}, frozenset({"cmd"})
    )
    assert banner.encode() == b"device::ro.product.name=a;ro.product.model=b;features=cmd"
