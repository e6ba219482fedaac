"""Reading and writing the animation scales.

Endless animations keep ``uiautomator dump`` from ever seeing an idle screen. Setting the
three global animation scales to 0 fixes that; the MCP server keeps each device's original
values in its session ledger (``mcp/tools/session_restore.py``) and writes them back with
``write_scales`` when the session ends, deleting the settings that were unset before.
"""

from __future__ import annotations

from adbwire.device import commands
from adbwire.wire.client import AdbClient

SCALES = ("window_animation_scale", "transition_animation_scale", "animator_duration_scale")


def read_scales(client: AdbClient) -> dict[str, str | None]:
    """Each scale's setting (None when unset: the device's default, 1)."""
    values: dict[str, str | None] = {}
    for name in SCALES:
        value = commands.text(client, ["settings", "get", "global", name]).strip()
        values[name] = None if value in ("", "null") else value
    return values


def write_scales(client: AdbClient, values: dict[str, str | None]) -> None:
    for name, value in values.items():
        if name not in SCALES:
            raise ValueError(f"not an animation scale: {name}")
        if value is None:
            commands.text(client, ["settings", "delete", "global", name])
        else:
            commands.text(client, ["settings", "put", "global", name, value])
