"""Terminal escape sequences in device-provided strings: banner, packages, file names."""

from __future__ import annotations

from pathlib import Path

from adbwire.testing import DeviceFiles
from adbwire.testing.hostile import (
    ESCAPE_FILE_NAMES,
    ESCAPE_PACKAGE_NAMES,
    escape_banner_properties,
    escape_userland_factory,
    plant_escape_files,
)
from tests.simulator.hostile_helpers import hostile_device


def test_banner_properties_carry_escapes() -> None:
    properties = escape_banner_properties()
    with hostile_device(options={"banner_properties": properties}) as (_device, client):
        banner = client.banner
        assert banner.model == properties["ro.product.model"]
        assert banner.product == properties["ro.product.name"]
        assert banner.device == properties["ro.product.device"]
        assert "\x1b" in banner.model
        assert "shell_v2" in client.features  # the rest of the banner still parses


def test_scenario_with_escapes_in_properties_and_package_names() -> None:
    with hostile_device(userland_factory=escape_userland_factory()) as (_device, client):
        assert "\x1b[2J" in (client.banner.product or "")
        model = client.shell("getprop ro.product.model").stdout
        assert b"\x1b[31m" in model
        listed = client.shell("pm list packages").stdout.decode().split("\n")
        for name in ESCAPE_PACKAGE_NAMES:
            assert f"package:{name}" in listed
        assert "package:com.example.notes" in listed
        path = client.shell_argv(["pm", "path", ESCAPE_PACKAGE_NAMES[0]])
        assert path.stdout.startswith(b"package:/data/app/")


def test_file_names_with_escapes_in_sync_listing_and_ls(tmp_path: Path) -> None:
    files = DeviceFiles(tmp_path)
    plant_escape_files(files, "/sdcard/Download")
    with hostile_device(files=files) as (_device, client):
        names = {entry.name for entry in client.list_dir("/sdcard/Download")}
        assert set(ESCAPE_FILE_NAMES) <= names
        ls = client.shell("ls /sdcard/Download").stdout
        assert b"\x1b]0;owned\x07" in ls
