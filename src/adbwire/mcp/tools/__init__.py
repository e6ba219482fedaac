"""The tool families; each module exports TOOLS. Add a family here to publish it.

Every family uses the same `tool(...)` declaration, risk levels, envelope and audit.
"""

from __future__ import annotations

from adbwire.mcp.registry import ToolSpec
from adbwire.mcp.tools import (
    activity,
    apps,
    crashes,
    devices,
    files,
    forwards,
    gestures,
    install,
    instrumentation,
    logs,
    network,
    notifications,
    packages,
    processes,
    properties,
    recording,
    screen,
    settings,
    shell,
    system,
    ui,
    wireless,
)

FAMILIES: list[list[ToolSpec]] = [
    devices.TOOLS,
    wireless.TOOLS,
    properties.TOOLS,
    packages.TOOLS,
    install.TOOLS,
    apps.TOOLS,
    files.TOOLS,
    logs.TOOLS,
    crashes.TOOLS,
    system.TOOLS,
    processes.TOOLS,
    network.TOOLS,
    activity.TOOLS,
    instrumentation.TOOLS,
    shell.TOOLS,
    forwards.TOOLS,
    ui.TOOLS,
    screen.TOOLS,
    gestures.TOOLS,
    settings.TOOLS,
    recording.TOOLS,
    notifications.TOOLS,
]
