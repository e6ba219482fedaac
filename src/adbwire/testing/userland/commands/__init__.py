"""The device's commands, one module per family; each exports a `COMMANDS` table."""

from __future__ import annotations

from adbwire.testing.userland.commands import (
    activity,
    awk,
    basic,
    bugreport,
    checksums,
    dd,
    device_modes,
    dumpsys,
    fileops,
    files,
    filestat,
    find,
    input,
    logcat,
    misc,
    netcat,
    network,
    packages,
    paths,
    procs,
    remount,
    screen,
    screenrecord,
    sed,
    system,
    terminal,
    text,
    textedit,
    toybox,
    toybox_more,
)
from adbwire.testing.userland.shell.interp import CommandFn

_FAMILIES = (basic, files, filestat, paths, text, system, packages, activity, dumpsys, input,
             screen, logcat, checksums, dd, fileops, find, textedit, sed, awk, terminal,
             procs, netcat, network, misc, toybox, device_modes, screenrecord, remount,
             bugreport, toybox_more)  # fmt: skip


def build_registry() -> dict[str, CommandFn]:
    registry: dict[str, CommandFn] = {}
    for module in _FAMILIES:
        registry.update(module.COMMANDS)
    return registry
