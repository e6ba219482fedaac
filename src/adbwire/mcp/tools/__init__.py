"""The tool families; each module exports TOOLS. Add a family here to publish it.

The UI family (screenshots, UI tree, taps; issue 8) slots in as one more module whose TOOLS
use the same `tool(...)` declaration, risk levels, envelope and audit.
"""

from __future__ import annotations

from adbwire.mcp.registry import ToolSpec
from adbwire.mcp.tools import (
    apps,
    devices,
    files,
    forwards,
    install,
    logs,
    packages,
    properties,
    shell,
    system,
)

FAMILIES: list[list[ToolSpec]] = [
    devices.TOOLS,
    properties.TOOLS,
    packages.TOOLS,
    install.TOOLS,
    apps.TOOLS,
    files.TOOLS,
    logs.TOOLS,
    system.TOOLS,
    shell.TOOLS,
    forwards.TOOLS,
]
