"""`toybox [APPLET [ARGS…]]`: Android's multi-call binary, for the applets the device has."""

from __future__ import annotations

from typing import Final

from adbwire.testing.userland.shell.interp import CommandFn, Invocation

APPLETS: Final = (
    *("awk", "basename", "cat", "chmod", "cp", "cut", "date", "dd", "df", "dirname", "du"),
    *("echo", "env", "false", "find", "grep", "head", "id", "kill", "ln", "ls", "md5sum"),
    *(
        "mkdir",
        "mv",
        "nc",
        "netcat",
        "pidof",
        "printf",
        "ps",
        "pwd",
        "readlink",
        "realpath",
        "rm",
        "sed",
    ),
    *("sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "sleep", "sort", "stat"),
    *("tail", "test", "touch", "tr", "true", "tty", "uname", "uptime", "wc", "whoami", "xargs"),
    *("which", "seq", "tee", "uniq", "mktemp", "sync", "truncate", "base64", "cmp", "timeout"),
    *("nproc", "yes", "getenforce"),
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
