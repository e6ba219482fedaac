"""`toybox [APPLET [ARGS…]]`: Android's multi-call binary, for the applets the device has."""

from __future__ import annotations

from typing import Final

from adbwire.testing.userland.shell.interp import CommandFn, Invocation

APPLETS: Final = (
    *("cat", "cp", "date", "echo", "env", "false", "grep", "head", "id", "ls", "mkdir", "mv"),
    *("pidof", "printf", "ps", "pwd", "readlink", "realpath", "rm", "sleep", "sort", "stat"),
    *("tail", "test", "touch", "true", "uname", "wc", "whoami"),
)


def toybox(inv: Invocation) -> int:
    if not inv.args:
        inv.out(" ".join(APPLETS) + "\n")
        return 0
    name = inv.args[0]
    command = inv.device.lookup(name) if name in APPLETS else None
    if command is None:
        return inv.fail(f"Unknown command {name}")
    return command(Invocation(inv.args, inv.streams, inv.shell))


COMMANDS: dict[str, CommandFn] = {"toybox": toybox}
