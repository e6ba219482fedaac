"""Resources: devices, one device's info, and the policy in force; each stamped with the time
it was read, since a resource an agent takes for current but is minutes old misleads it."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from adbwire.device import validate
from adbwire.errors import AdbwireError
from adbwire.mcp.results.envelope import ERROR_CODES, NEXT_ACTIONS, ToolFailure
from adbwire.mcp.safety.audit import now_iso
from adbwire.mcp.server.app import App

if TYPE_CHECKING:
    from adbwire.device.info import DeviceInfo
    from adbwire.wire.client import AdbClient

JSON = "application/json"
ConnectChecked = Callable[[App, str], Awaitable["AdbClient"]]


def _dump(data: dict[str, Any]) -> str:
    return json.dumps({"read_at": now_iso(), **data}, ensure_ascii=False, indent=1)


def policy_document(app: App) -> dict[str, Any]:
    policy = app.policy
    return {
        "profile": policy.profile,
        "sources": list(policy.sources),
        "destructive_calls": "run without asking (--allow-destructive)"
        if policy.allow_destructive
        else f"ask the user; no answer within {policy.confirm_timeout:g}s means no",
        "tools_on": [spec.name for spec in app.enabled],
        "tools_off": app.disabled,
        "devices": {
            "allowed": sorted(policy.allowed_devices) or "any",
            "emulators_only": policy.emulators_only,
        },
        "files": {
            "host_files": "on, confined to the local root" if policy.local_root else "off",
            "device_paths": list(policy.device_paths),
            "max_transfer_bytes": policy.max_transfer_bytes,
        },
        "max_output_bytes": {
            spec.name: policy.output_cap(spec.name) for spec in app.enabled if spec.needs_device
        },
        "error_codes": {code.value: meaning for code, (meaning, _, _) in ERROR_CODES.items()},
        "next_actions": {action.value: meaning for action, meaning in NEXT_ACTIONS.items()},
    }


def register(server: MCPServer[Any], app: App) -> None:
    @server.resource(
        "adbwire://devices",
        name="devices",
        description="Known devices and their state",
        mime_type=JSON,
    )
    def devices() -> str:
        app.devices.refresh()
        return _dump({"devices": [asdict(record) for record in app.devices.records()]})

    @server.resource(
        "adbwire://policy",
        name="policy",
        description="The policy in force: tools on and off (and why), device and file limits",
        mime_type=JSON,
    )
    def policy() -> str:
        return _dump(policy_document(app))

    @server.resource(
        "adbwire://device/{serial}/info",
        name="device_info",
        description="One device's model, Android version, screen, battery",
        mime_type=JSON,
    )
    async def device_info(serial: str) -> str:
        try:
            validate.serial(serial)
            if serial not in app.devices.serials():
                raise ResourceError(f"no device {serial!r}")
            read_info, connect_checked = await anyio.to_thread.run_sync(_load_device_layer)
            client = await connect_checked(app, serial)
            found = await app.devices.lane(serial).run(read_info, client)
        except (AdbwireError, ToolFailure) as exc:
            raise ResourceError(str(exc)) from None
        return _dump({"device": asdict(found)})


def _load_device_layer() -> tuple[Callable[[AdbClient], DeviceInfo], ConnectChecked]:
    """What reading a device's info needs, imported at the first read (not to list the
    resources, issue #20) and in a worker thread: the device layer and the runtime take
    100-200 ms to import, which would hold every other call of the server meanwhile."""
    from adbwire.device import info  # noqa: PLC0415
    from adbwire.mcp.runtime import connect_checked  # noqa: PLC0415

    return info.device_info, connect_checked
