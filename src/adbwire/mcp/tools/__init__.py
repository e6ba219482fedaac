"""The tool families; each module exports TOOLS. Add a family here to publish it.

Every family uses the same `tool(...)` declaration, risk levels, envelope and audit. The
families are imported only when asked for (`families()`): a server answers tools/list from
the generated catalogue (`adbwire.mcp.catalogue`) and imports a family at its first call.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator

from adbwire.mcp.registry import ToolSpec

FAMILY_MODULES: tuple[str, ...] = (
    "devices",
    "wireless",
    "properties",
    "packages",
    "install",
    "apps",
    "files",
    "logs",
    "crashes",
    "system",
    "processes",
    "network",
    "activity",
    "instrumentation",
    "shell",
    "forwards",
    "ui",
    "ui_actions",
    "ui_checks",
    "screen",
    "gestures",
    "settings",
    "recording",
    "notifications",
)
"""The modules of `adbwire.mcp.tools` that export TOOLS, in catalogue order."""


def family_tools(module: str) -> list[ToolSpec]:
    """The TOOLS of one family module (imported now if it was not yet)."""
    if module not in FAMILY_MODULES:
        raise ValueError(f"no tool family named {module!r}")
    tools: list[ToolSpec] = importlib.import_module(f"{__name__}.{module}").TOOLS
    return tools


def families() -> Iterator[tuple[str, list[ToolSpec]]]:
    """Each family module's name and its TOOLS, in catalogue order."""
    for module in FAMILY_MODULES:
        yield module, family_tools(module)
