"""getprop parsing on real phones' output and on hand-written edge cases."""

from __future__ import annotations

from adbwire.device.parsers.getprop import parse_getprop, summarize_properties
from tests.device_outputs import device_output


def test_android_4_4_huawei() -> None:
    props = parse_getprop(device_output("getprop/huawei_g700_android4.4.2_sdk19.txt"))
    assert len(props) == 429  # one record per line in this file
    assert props["ro.product.model"] == "G700-U20"
    assert props["ro.build.version.sdk"] == "19"
    assert props["bwc.mm.SensorSize"] == "0 -1226243361"
    assert props["dhcp.wlan0.mtu"] == ""
    summary = summarize_properties(props)
    assert summary.model == "G700-U20"
    assert summary.manufacturer == "Xiaomi"  # a Xiaomi ROM on Huawei hardware
    assert summary.sdk == 19
    assert summary.abis == ("armeabi-v7a", "armeabi")  # pre-5.0: abi + abi2, no abilist
    assert summary.is_emulator is False


def test_android_11_oneplus_with_a_multiline_value() -> None:
    props = parse_getprop(device_output("getprop/oneplus_be2028_android11_sdk30.txt"))
    assert len(props) == 1120  # 1122 lines, two of them continue a value
    assert props["persist.sys.boot.reason.history"] == (
        "reboot,ota,1691858645\nreboot,unattended,ota_update,1691858601\nreboot,ota,1691857091"
    )
    assert props["persist.sys.bootloader"] == "yes"  # the record after the multi-line one
    assert props["persist.sys.boot.reason"] == ""
    summary = summarize_properties(props)
    assert (summary.model, summary.android_version, summary.sdk) == ("BE2028", "11", 30)
    assert summary.abis == ("arm64-v8a", "armeabi-v7a", "armeabi")


def test_crlf_line_endings() -> None:
    text = "[ro.product.model]: [Nexus 7]\r\n[ro.build.version.sdk]: [16]\r\n"
    assert parse_getprop(text) == {"ro.product.model": "Nexus 7", "ro.build.version.sdk": "16"}


def test_double_carriage_return_of_old_ptys() -> None:
    text = "[a]: [1]\r\r\n[b]: [two\r\r\nlines]\r\r\n"
    assert parse_getprop(text) == {"a": "1", "b": "two\nlines"}


def test_empty_output() -> None:
    assert parse_getprop("") == {}


def test_truncated_last_record_is_dropped_not_guessed() -> None:
    assert parse_getprop("[a]: [1]\n[ro.product.model]: [Pix") == {"a": "1"}


def test_value_with_brackets_and_noise_lines() -> None:
    text = "[x]: [[1][2]]\nwarning: something odd\n[y]: [ok]\n"
    assert parse_getprop(text) == {"x": "[1][2]", "y": "ok"}


def test_qemu_properties_mark_an_emulator() -> None:
    assert summarize_properties({"ro.boot.qemu": "1"}).is_emulator is True
    assert summarize_properties({"ro.kernel.qemu": "1"}).is_emulator is True
    empty = summarize_properties({})
    assert (empty.model, empty.sdk, empty.abis, empty.is_emulator) == (None, None, (), False)
