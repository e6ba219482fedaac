"""Processes from the shell: toybox ps, pidof and kill, over the shared process table."""

from __future__ import annotations

from adbwire.testing.userland.android.packages import uid_name
from adbwire.testing.userland.android.state import Process
from adbwire.testing.userland.proctable import SIGNAL_NAMES, signal_number
from adbwire.testing.userland.shell.interp import CommandFn, Invocation

_DEFAULT_FIELDS = ("USER", "PID", "PPID", "VSZ", "RSS", "WCHAN", "ADDR", "S", "NAME")
_FULL_FIELDS = ("UID", "PID", "PPID", "C", "STIME", "TTY", "TIME", "CMD")
_WIDTHS = {"USER": -11, "UID": -11, "PID": 6, "PPID": 5, "VSZ": 10, "RSS": 6, "WCHAN": -16,
           "ADDR": 4, "S": 1, "C": 1, "STIME": -8, "TTY": -12, "TIME": 8, "TID": 5}  # fmt: skip
_ALIASES = {"ARGS": "CMD", "COMMAND": "CMD", "COMM": "NAME", "STAT": "S", "CMDLINE": "CMD"}
TOYBOX_PS_SDK = 26
"""Android 8 made toybox's ps the system's; older releases run toolbox's (procs_toolbox)."""


def memory_kb(process: Process) -> tuple[int, int]:
    """(VSZ, RSS) in KiB: made up, but stable per process and plausible for Android."""
    size = 1_200_000 + process.pid * 31 % 900_000
    if process.session:
        size = 10_900_000 + process.pid * 7 % 40_000
    return size, size // 12 if not process.session else 3_000 + process.pid % 1000


def _state(process: Process, inv: Invocation) -> str:
    running = process.pid == (inv.shell.child.pid if inv.shell.child else -1)
    return "R" if running else "S"


def _wchan(process: Process, inv: Invocation) -> str:
    if _state(process, inv) == "R":
        return "0"
    if process.session and process.name in ("sh", "mksh"):
        return "sigsuspend"
    if process.session:
        return "hrtimer_nanosleep" if process.name == "sleep" else "pipe_read"
    return "do_epoll_wait"


def _value(field: str, process: Process, inv: Invocation) -> str:
    vsz, rss = memory_kb(process)
    if field == "UID" and inv.args and "-o" in inv.args:
        return str(process.uid)  # -o UID is the number; -f's UID column shows the name
    if field in ("USER", "UID"):
        return uid_name(process.uid)
    values = {
        "PID": str(process.pid),
        "TID": str(process.pid),
        "PPID": str(0 if process.pid == 1 else process.ppid),
        "VSZ": str(vsz),
        "RSS": str(rss),
        "WCHAN": _wchan(process, inv),
        "ADDR": "0",
        "S": _state(process, inv),
        "NAME": process.name,
        "CMD": " ".join(process.argv) if process.argv else process.name,
        "C": "0",
        "STIME": "00:00:00",
        "TTY": "pts/0" if process.session and inv.shell.pty else "?",
        "TIME": "00:00:00",
    }
    return values.get(field, "")


def _format(fields: tuple[str, ...], values: list[str]) -> str:
    cells = []
    for index, (field, value) in enumerate(zip(fields, values, strict=True)):
        width = _WIDTHS.get(field, 0)
        last = index == len(fields) - 1
        if last and width < 0:
            cells.append(value)
        elif width < 0:
            cells.append(f"{value:<{-width}}")
        else:
            cells.append(f"{value:>{width}}")
    return " ".join(cells).rstrip() if fields[-1] in ("NAME", "CMD") else " ".join(cells)


def ps(inv: Invocation) -> int:
    if inv.device.state.sdk < TOYBOX_PS_SDK:
        from adbwire.testing.userland.commands.procs_toolbox import toolbox_ps  # noqa: PLC0415

        return toolbox_ps(inv)
    args = list(inv.args)
    every = False
    wanted: set[int] = set()
    fields: tuple[str, ...] = _DEFAULT_FIELDS
    show_header = True
    while args:
        arg = args.pop(0)
        if arg in ("-A", "-e"):
            every = True
        elif arg in ("-ef", "-fe", "-Af"):
            every, fields = True, _FULL_FIELDS
        elif arg == "-f":
            fields = _FULL_FIELDS
        elif arg in ("-p", "--pid") and args:
            for item in args.pop(0).split(","):
                if not item.isdigit():
                    return inv.fail(f"bad -p '{item}'")
                wanted.add(int(item))
        elif arg == "-o" and args:
            names = []
            for item in args.pop(0).split(","):
                name = item.rstrip("=").upper()
                show_header = show_header and not item.endswith("=")
                names.append(_ALIASES.get(name, name))
            if any(name not in _WIDTHS and name not in ("NAME", "CMD") for name in names):
                return inv.fail(f"bad -o '{','.join(names)}'")
            fields = tuple(names)
        elif arg.isdigit():
            wanted.add(int(arg))
        elif arg.replace(",", "").isdigit():
            wanted.update(int(item) for item in arg.split(",") if item)
        elif arg in ("-T", "-t", "-w", "-Z", "-M"):
            continue
        else:
            return inv.fail(f"Unknown option '{arg.lstrip('-')}' (see \"ps --help\")")
    session = inv.shell.process.session if inv.shell.process else 0
    rows = []
    for process in inv.device.processes.snapshot():
        if wanted:
            chosen = process.pid in wanted
        elif every:
            chosen = True
        else:
            chosen = bool(session) and process.session == session
        if chosen:
            rows.append(_format(fields, [_value(f, process, inv) for f in fields]))
    header = _format(fields, list(fields)) if show_header else None
    inv.out("".join(line + "\n" for line in ([header] if header else []) + rows))
    return 0 if rows or not wanted else 1


def pidof(inv: Invocation) -> int:
    single = "-s" in inv.args
    pids: list[int] = []
    names = [a for a in inv.args if not a.startswith("-")]
    for name in names:
        found = sorted(
            (p.pid for p in inv.device.processes.snapshot() if p.name == name), reverse=True
        )
        pids.extend(found[:1] if single else found)
    if not pids:
        return 1
    inv.out(" ".join(str(pid) for pid in pids) + "\n")
    return 0


def kill(inv: Invocation) -> int:
    """kill [-s SIG | -SIG | -n N] PID… and kill -l [N]; mksh's builtin texts."""
    args = list(inv.args)
    prefix = "/system/bin/sh: kill" if inv.argv[0] == "kill" else "kill"
    if not args:
        inv.err(
            f"{prefix}: usage: kill [-s signame | -signum | -signame] {{job | pid | pgrp}} ...\n"
        )
        return 1
    if args[0] == "-l":
        if len(args) > 1:
            number = signal_number(args[1])
            if number is None or number not in SIGNAL_NAMES:
                inv.err(f"{prefix}: {args[1]}: unknown signal\n")
                return 1
            value = SIGNAL_NAMES[number] if args[1].isdigit() else str(number)
            inv.out(value + "\n")
            return 0
        inv.out("".join(f"{number} {name}\n" for number, name in sorted(SIGNAL_NAMES.items())))
        return 0
    signal = 15
    if args[0] in ("-s", "-n") and len(args) > 1:
        args.pop(0)
        spec = args.pop(0)
        found = signal_number(spec)
        if found is None:
            inv.err(f"{prefix}: {spec}: unknown signal\n")
            return 1
        signal = found
    elif args[0].startswith("-") and args[0] != "--":
        spec = args.pop(0)[1:]
        found = signal_number(spec)
        if found is None:
            inv.err(f"{prefix}: {spec}: unknown signal\n")
            return 1
        signal = found
    if args and args[0] == "--":
        args.pop(0)
    status = 0
    for target in args:
        if not target.lstrip("-").isdigit():
            inv.err(f"{prefix}: {target}: arguments must be jobs or process IDs\n")
            status = 1
            continue
        error = inv.device.processes.send(int(target), signal, sender_uid=inv.device.user_id())
        if error is not None:
            inv.err(f"{prefix}: {target}: {error}\n")
            status = 1
    return status


COMMANDS: dict[str, CommandFn] = {"ps": ps, "pidof": pidof, "kill": kill}
