"""Old toolbox ``ps`` (Android 7 and older), over the same process table as toybox's.

Toolbox reads every argument that is not one of its few flags as a filter: a number is a
pid, anything else a process name, so toybox's ``ps -A -o PID,NAME`` prints only the
header. Its header names eight columns but each row has nine values: the state letter,
unnamed, sits between PC and NAME.
"""

from __future__ import annotations

from adbwire.testing.userland.android.packages import uid_name
from adbwire.testing.userland.commands.procs import memory_kb
from adbwire.testing.userland.shell.interp import Invocation

HEADER = "USER     PID   PPID  VSIZE  RSS     WCHAN    PC         NAME\n"
_FLAGS = frozenset({"-t", "-x", "-P", "-p", "-c", "-Z", "-n", "--abi"})


def toolbox_ps(inv: Invocation) -> int:
    pid_filter: int | None = None
    name_filter: str | None = None
    for arg in inv.args:
        if arg in _FLAGS:
            continue
        if arg[:1].isdigit():
            pid_filter = int("".join(c for c in arg if c.isdigit()) or "0")
        else:
            name_filter = arg
    running = inv.shell.child.pid if inv.shell.child else -1
    rows = []
    for process in inv.device.processes.snapshot():
        if pid_filter is not None and process.pid != pid_filter:
            continue
        if name_filter is not None and process.name != name_filter:
            continue
        vsize, rss = memory_kb(process)
        state = "R" if process.pid == running else "S"
        wchan = "00000000" if state == "R" else "ffffffff"
        ppid = 0 if process.pid == 1 else process.ppid
        rows.append(
            f"{uid_name(process.uid):<9} {process.pid:<5} {ppid:<5} {vsize:<6} {rss:<5} "
            f"{wchan} 00000000 {state} {process.name}\n"
        )
    inv.out(HEADER + "".join(rows))
    return 0
