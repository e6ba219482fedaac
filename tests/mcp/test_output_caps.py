"""Every read-only tool that reads device output answers `output_too_large` against a device
whose output never ends, within the tool's cap from the policy, and closes the stream."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adbwire.errors import describe_size
from adbwire.mcp.safety.policy import DEFAULT_OUTPUT_CAPS, OTHER_TOOLS, Policy
from adbwire.testing import DeviceOptions, SimulatedDevice, running_device
from adbwire.testing.hostile.endless import endless_output
from adbwire.testing.hostile.files import HostileFiles
from adbwire.testing.hostile.userland import hostile_userland
from tests.mcp.harness import connected, data_of, error_of, make_app

ENDLESS_DIR = "/sdcard/endless"

# Each tool with arguments that make it read device output (and, for list_dir, a listing).
READS: dict[str, dict[str, Any]] = {
    "device_info": {},
    "get_property": {"name": "ro.product.model"},
    "list_properties": {"prefix": "ro."},
    "battery_status": {},
    "list_packages": {},
    "package_info": {"package": "com.example.notes"},
    "current_activity": {},
    "screen_state": {},
    "read_logcat": {},
    "last_crash": {},
    "ui_tree": {},
    "find_elements": {"query": "Save"},
    "assert_element": {"query": "Save", "expect": "visible"},
    "accessibility_audit": {},
    "list_dir": {"path": ENDLESS_DIR},
}


@contextlib.contextmanager
def endless_device(root: Path, match: str | None = None) -> Iterator[SimulatedDevice]:
    """Commands matching `match` (every command by default) and LIST of ENDLESS_DIR never
    stop sending."""
    files = HostileFiles(root, endless_listing_at=ENDLESS_DIR)
    userland = hostile_userland(endless_output(match))
    options = DeviceOptions(auth_required=False)
    with running_device(options, userland, files=files) as device:
        yield device


def open_streams(app: Any) -> int:
    total = 0
    for serial in app.devices.serials():
        connection = app.devices.client(serial).connection
        with connection.state_lock:
            total += len(connection._streams)
    return total


@pytest.mark.parametrize("tool", sorted(READS))
async def test_each_reading_tool_stops_at_its_cap(tmp_path: Path, tool: str) -> None:
    with endless_device(tmp_path) as device:
        app = make_app([device], policy=Policy(profile="full"))
        async with connected(app) as client:
            started, cpu_started = time.monotonic(), time.process_time()
            result = await client.call_tool(tool, READS[tool])
            elapsed = time.monotonic() - started
            cpu = time.process_time() - cpu_started
        error = error_of(result)
        cap = Policy().output_cap(tool)
        assert error["code"] == "output_too_large", error
        assert error["next_action"] == "ask_operator" and error["retryable"] is False
        assert error["details"]["tool"] == tool
        assert error["details"]["cap_bytes"] == cap
        assert error["details"]["policy_key"] == f"max_output_mb.{tool}"
        assert f"[max_output_mb] {tool} =" in error["message"]
        assert describe_size(cap) in error["message"]
        # The work is bounded by the cap: CPU time (device and server run in this process)
        # is what grows with it. Wall time only rules out a hang: list_dir took 2.5 s of CPU
        # and 6.4 s of wall time at load 8, and 28 s of wall time under two more CPU hogs.
        assert cpu < 25, f"{tool} took {cpu:.1f} s of CPU"
        assert elapsed < 90, f"{tool} took {elapsed:.1f} s"
        assert open_streams(app) == 0, "the endless stream was closed"
        app.close()


async def test_the_policy_cap_is_the_one_applied(tmp_path: Path) -> None:
    small = 64 * 1024
    policy = Policy(profile="full", output_caps={"get_property": small, OTHER_TOOLS: 2 * small})
    with endless_device(tmp_path) as device:
        app = make_app([device], policy=policy)
        async with connected(app) as client:
            one = error_of(await client.call_tool("get_property", {"name": "ro.x"}))
            other = error_of(await client.call_tool("screen_state", {}))
            listed = error_of(await client.call_tool("list_packages", {}))
        app.close()
    assert one["details"]["cap_bytes"] == small
    assert other["details"]["cap_bytes"] == 2 * small, "default covers tools not in the table"
    assert listed["details"]["cap_bytes"] == DEFAULT_OUTPUT_CAPS["list_packages"]


async def test_a_well_behaved_device_is_within_the_default_caps(tmp_path: Path) -> None:
    """The default scenario's output fits well within each tool's cap."""
    with endless_device(tmp_path, match=r"^never-matches$") as device:
        app = make_app([device], policy=Policy(profile="full"))
        async with connected(app) as client:
            for tool in ("device_info", "list_packages", "read_logcat", "ui_tree"):
                data_of(await client.call_tool(tool, {}))
            data_of(await client.call_tool("list_dir", {"path": "/sdcard"}))
        app.close()


async def test_run_shell_cuts_endless_output_and_ends_the_command(tmp_path: Path) -> None:
    with endless_device(tmp_path, match=r"\byes\b") as device:
        app = make_app([device], policy=Policy(profile="full", allow_destructive=True))
        async with connected(app) as client:
            shell = {"command": "yes", "reason": "endless output test"}
            result = data_of(await client.call_tool("run_shell", shell))
            after = data_of(await client.call_tool("get_property", {"name": "ro.product.model"}))
        assert open_streams(app) == 0
        app.close()
    assert "output stopped" in result["note"] and "exit_code" not in result
    assert after["value"]


async def test_the_policy_resource_shows_each_tools_cap() -> None:
    policy = Policy(profile="full", output_caps={"ui_tree": 3 * 1024 * 1024})
    app = make_app(policy=policy)
    async with connected(app) as client:
        contents = (await client.read_resource("adbwire://policy")).contents
    caps = json.loads(contents[0].text)["max_output_bytes"]  # type: ignore[union-attr]
    assert caps["ui_tree"] == 3 * 1024 * 1024
    assert caps["get_property"] == DEFAULT_OUTPUT_CAPS["get_property"]
    assert caps["stat_path"] == DEFAULT_OUTPUT_CAPS[OTHER_TOOLS]
    assert "list_devices" not in caps, "tools without a device read nothing"
