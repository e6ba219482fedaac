"""No argument ever runs a second command on the device.

The simulated device parses command lines like a POSIX shell; every payload below would
create a marker file (or reboot) if it escaped its quoting. Payloads go into every string
argument that reaches a device command line, through a real MCP client."""

from __future__ import annotations

from typing import Any

import pytest

from adbwire.device import commands
from adbwire.mcp.safety.policy import Policy
from adbwire.wire.client import AdbClient
from tests.mcp.harness import connected, data_of, make_app, simulated

MARKER = "/data/local/tmp/pwned"
PAYLOADS = [
    f"; touch {MARKER}",
    f"x; touch {MARKER}; reboot",
    f"$(touch {MARKER})",
    f"`touch {MARKER}`",
    f"'; touch {MARKER}; '",
    f'"; touch {MARKER}; "',
    f"x\ntouch {MARKER}",
    f"x && touch {MARKER} || reboot",
    f"x | touch {MARKER}",
    f"x > {MARKER}",
    f"x;touch${{IFS}}{MARKER}",
    f"$(touch${{IFS}}{MARKER})",
    "'\\''; reboot; '",
]


def calls(payload: str) -> list[tuple[str, dict[str, Any]]]:
    compact = payload.replace(" ", "")
    return [
        ("get_property", {"name": payload}),
        ("set_property", {"name": "debug.adbwire.test", "value": payload[:90]}),
        ("list_properties", {"prefix": payload}),
        ("list_packages", {"contains": payload[:100]}),
        ("package_info", {"package": payload}),
        ("launch_app", {"package": "com.example.notes", "activity": payload, "timeout_s": 1}),
        ("open_deep_link", {"uri": "notes://list/" + compact}),
        ("open_deep_link", {"uri": "notes://list", "package": payload}),
        ("read_logcat", {"tag": payload}),
        ("read_logcat", {"since": payload}),
        ("grant_permission", {"package": "com.example.notes", "permission": payload}),
        ("stat_path", {"path": "/sdcard/" + payload}),
        ("list_dir", {"path": "/sdcard/" + payload}),
        ("pull_file", {"path": "/sdcard/Download/" + payload}),
        ("stop_app", {"package": payload}),
        ("last_crash", {"package": payload}),
    ]


@pytest.mark.parametrize("payload", PAYLOADS)
async def test_payloads_never_run_a_second_command(payload: str, tmp_path: Any) -> None:
    with simulated() as (device,):
        app = make_app([device], policy=Policy(profile="full", local_root=tmp_path))
        async with connected(app) as client:
            for name, arguments in calls(payload):
                await client.call_tool(name, arguments)  # success or a clean error: both fine
                assert not device.files.host_path(MARKER).exists(), (name, arguments)
            # the device was not rebooted and still answers on the same connection
            info = data_of(await client.call_tool("device_info", {}))
            assert info["serial"] == device.serial
        app.close()


async def test_a_free_text_value_arrives_literally() -> None:
    """set_property takes free text: the device stores exactly the payload."""
    payload = f"a'b\"c;$(touch {MARKER})`x`"
    with simulated() as (device,):
        app = make_app([device])
        async with connected(app) as client:
            stored = await client.call_tool(
                "set_property", {"name": "debug.adbwire.test", "value": payload}
            )
            assert data_of(stored)["value"] == payload
        assert not device.files.host_path(MARKER).exists()
        app.close()


@pytest.mark.parametrize("payload", PAYLOADS)
def test_quoted_arguments_reach_the_program_unchanged(payload: str) -> None:
    with simulated() as (device,):
        with AdbClient.connect_tcp(device.serial, []) as client:
            out = commands.text(client, ["echo", payload])
        assert out == payload + "\n"
        assert not device.files.host_path(MARKER).exists()
