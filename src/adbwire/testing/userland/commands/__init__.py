"""The device's commands, one module per family; each exports a `COMMANDS` table."""

from __future__ import annotations

from adbwire.testing.userland.commands import (
    activity,
    basic,
    dumpsys,
    files,
    filestat,
    input,
    logcat,
    packages,
    paths,
    screen,
    system,
    text,
    toybox,
)
from adbwire.testing.userland.shell.interp import CommandFn

_FAMILIES = (basic, files, filestat, paths, text, system, packages, activity, dumpsys, input,
             screen, logcat, toybox)  # fmt: skip


def build_registry() -> dict[str, CommandFn]:
    registry: dict[str, CommandFn] = {}
    for module in _FAMILIES:
        registry.update(module.COMMANDS)
    return registry
