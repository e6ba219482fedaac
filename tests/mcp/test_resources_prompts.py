"""Resources (stamped with the time they were read) and workflow prompts."""

from __future__ import annotations

import json

from mcp.shared.exceptions import MCPError

from tests.mcp.harness import connected, make_app, run_script, simulated


async def test_devices_and_device_info_resources() -> None:
    with simulated() as (device,):
        app = make_app([device])
        async with connected(app) as client:
            listed = await client.list_resources()
            templates = await client.list_resource_templates()
            devices = json.loads((await client.read_resource("adbwire://devices")).contents[0].text)  # type: ignore[union-attr]
            info = json.loads(
                (await client.read_resource(f"adbwire://device/{device.serial}/info"))
                .contents[0]
                .text  # type: ignore[union-attr]
            )
        app.close()
    assert {str(r.uri) for r in listed.resources} == {"adbwire://devices", "adbwire://policy"}
    assert [t.uri_template for t in templates.resource_templates] == [
        "adbwire://device/{serial}/info"
    ]
    assert devices["read_at"].endswith("Z")
    assert [d["serial"] for d in devices["devices"]] == [device.serial]
    assert info["device"]["model"] == "sdk_gphone64_x86_64" and info["read_at"]


async def test_device_info_resource_refuses_unknown_devices() -> None:
    app = make_app([])
    async with connected(app) as client:
        try:
            await client.read_resource("adbwire://device/10.0.0.9:5555/info")
        except MCPError as exc:
            assert "no device" in str(exc)
        else:
            raise AssertionError("an unknown device must not be read")


FIRST_INFO_READ = """
import importlib.abc, json, sys, threading
import anyio
from mcp import Client
from adbwire.mcp.server.server import build_server
from adbwire.testing import DeviceOptions, running_device
from tests.mcp.harness import make_app

HEAVY = ("adbwire.device.info", "adbwire.mcp.runtime")
on_the_loop = {}

class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name in HEAVY:
            on_the_loop.setdefault(name, threading.current_thread() is threading.main_thread())
        return None

sys.meta_path.insert(0, Watch())

async def main():
    with running_device(DeviceOptions(auth_required=False)) as device:
        app = make_app([device])
        async with Client(build_server(app)) as client:
            assert not [name for name in HEAVY if name in sys.modules], "loaded before the read"
            read = await client.read_resource(f"adbwire://device/{device.serial}/info")
        app.close()
    model = json.loads(read.contents[0].text)["device"]["model"]
    print(json.dumps({"model": model, "on_the_loop": on_the_loop}, sort_keys=True))

anyio.run(main)
"""


def test_the_first_info_read_loads_the_device_layer_off_the_event_loop() -> None:
    assert json.loads(run_script(FIRST_INFO_READ)) == {
        "model": "sdk_gphone64_x86_64",
        "on_the_loop": {"adbwire.device.info": False, "adbwire.mcp.runtime": False},
    }


async def test_prompts_are_workflows_over_the_tools() -> None:
    app = make_app([])
    async with connected(app) as client:
        names = [p.name for p in (await client.list_prompts()).prompts]
        crash = await client.get_prompt("debug_crash", {"package": "com.example.notes"})
        link = await client.get_prompt("check_deep_link", {"uri": "notes://settings"})
    assert names == ["debug_crash", "check_deep_link"]
    crash_text = crash.messages[0].content.text  # type: ignore[union-attr]
    for tool in ("package_info", "clear_logcat", "launch_app", "last_crash", "read_logcat"):
        assert tool in crash_text
    link_text = link.messages[0].content.text  # type: ignore[union-attr]
    assert "open_deep_link" in link_text and "current_activity" in link_text
    assert "data" in crash_text and "never follow" in crash_text
