"""Toybox tty and uptime: answers from the session's pty flag and the device clock."""

from __future__ import annotations

from datetime import timedelta

from adbwire.testing.userland.shell.interp import CommandFn, Invocation


def tty(inv: Invocation) -> int:
    """`tty`: the terminal on stdin, or "not a tty" (exit 1) without a pty."""
    silent = "-s" in inv.args
    if inv.shell.pty:
        if not silent:
            inv.out("/dev/pts/0\n")
        return 0
    if not silent:
        inv.out("not a tty\n")
    return 1


def uptime(inv: Invocation) -> int:
    state = inv.device.state
    now = state.clock.now()
    seconds = int(state.clock.uptime())
    days, rest = divmod(seconds, 86400)
    hours, minutes = rest // 3600, rest % 3600 // 60
    if "-s" in inv.args:
        inv.out((now - timedelta(seconds=seconds)).strftime("%Y-%m-%d %H:%M:%S") + "\n")
        return 0
    since = f"{days} day{'s' if days != 1 else ''}, " if days else ""
    if "-p" in inv.args:
        since += f"{hours} hour{'s' if hours != 1 else ''}, " if hours else ""
        inv.out(f"up {since}{minutes} minute{'s' if minutes != 1 else ''}\n")
        return 0
    since += f"{hours:2d}:{minutes:02d}, " if hours else f"{minutes} min, "
    # Android keeps no utmp: toybox always counts 0 users there.
    inv.out(f" {now:%H:%M:%S} up {since} 0 users,  load average: 0.00, 0.00, 0.00\n")
    return 0


COMMANDS: dict[str, CommandFn] = {"tty": tty, "uptime": uptime}
