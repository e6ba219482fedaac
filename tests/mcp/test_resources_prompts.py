"""Resources (stamped with the time they were read) and workflow prompts."""

from __future__ import annotations

import json

from mcp.shared.exceptions import MCPError

from tests.mcp.harness import connected, make_app, simulated


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
