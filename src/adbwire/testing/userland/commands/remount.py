"""`remount`: Android's /system/bin/remount (fs_mgr_remount.cpp), which `adb remount` runs.

It needs root and a userdebug/eng build (ro.debuggable=1); the simulated partitions have
no verity and no overlayfs to set up, so with both it only reports success. Its messages
go to stderr, as its logger writes them there; the exit codes are its RemountStatus values.
"""

from __future__ import annotations

from adbwire.testing.userland.shell.interp import CommandFn, Invocation

NOT_USERDEBUG = 1
NOT_ROOT = 3


def remount(inv: Invocation) -> int:
    if not inv.device.state.root:
        inv.err('Not running as root. Try "adb root" first.\n')
        return NOT_ROOT
    if inv.device.state.properties.get("ro.debuggable") != "1":
        inv.err("only functions on userdebug or eng builds\n")
        return NOT_USERDEBUG
    inv.err("remount succeeded\n")
    return 0


COMMANDS: dict[str, CommandFn] = {"remount": remount}
