"""`logcat`: dump (-d), tail (-t/-T), clear (-c), buffers (-b), formats (-v), filters."""

from __future__ import annotations

import re
from datetime import datetime

from adbwire.testing.userland.android.logs import (
    ALL_BUFFERS,
    DEFAULT_BUFFERS,
    LogEntry,
    TagFilter,
    format_entry,
)
from adbwire.testing.userland.shell.interp import CommandFn, Invocation

FORMATS = ("threadtime", "brief", "time", "tag", "process", "raw")
_VALUE_OPTIONS = {
    "-b",
    "--buffer",
    "-v",
    "--format",
    "-t",
    "-T",
    "--pid",
    "-e",
    "--regex",
    "-m",
    "--max-count",
    "-f",
    "--file",
    "-r",
    "-n",
}


class _Options:
    def __init__(self) -> None:
        self.buffers: list[str] = []
        self.fmt = "threadtime"
        self.dump = False
        self.explicit_dump = False  # -d given: even -T dumps and exits
        self.clear = False
        self.follow_after_tail = False
        self.tail: int | None = None
        self.since: datetime | None = None
        self.pid: int | None = None
        self.regex: re.Pattern[str] | None = None
        self.max_count: int | None = None
        self.silent = False
        self.sizes = False
        self.specs: list[str] = []


def _add_buffers(opts: _Options, value: str) -> str | None:
    for name in value.split(","):
        if name == "all":
            opts.buffers += list(ALL_BUFFERS)
        elif name == "default":
            opts.buffers += list(DEFAULT_BUFFERS)
        elif name in ALL_BUFFERS:
            opts.buffers.append(name)
        else:
            return f"logcat: unknown buffer: {name}"
    return None


def _tail_option(opts: _Options, arg: str, value: str) -> str | None:
    """-t N / -T N (a count) or -t 'MM-DD hh:mm:ss.mmm' (a start time); -t implies -d."""
    opts.dump = opts.dump or arg == "-t"
    opts.follow_after_tail = arg == "-T"
    if value.isdigit():
        opts.tail = int(value)
        return None
    try:
        opts.since = datetime.strptime(value, "%m-%d %H:%M:%S.%f")
    except ValueError:
        return f'logcat: -{arg[-1]} "{value}" not in time format'
    return None


def _parse(inv: Invocation) -> _Options | str:
    opts = _Options()
    args = list(inv.args)
    while args:
        arg = args.pop(0)
        if "=" in arg and arg.startswith("--"):
            name, value = arg.split("=", 1)
            args.insert(0, value)
            arg = name
        if arg in _VALUE_OPTIONS and not args:
            return f"logcat: option requires an argument -- '{arg.lstrip('-')}'"
        if arg in ("-b", "--buffer"):
            problem = _add_buffers(opts, args.pop(0))
            if problem:
                return problem
        elif arg in ("-v", "--format"):
            value = args.pop(0)
            if value in FORMATS:
                opts.fmt = value
        elif arg in ("-t", "-T"):
            problem = _tail_option(opts, arg, args.pop(0))
            if problem:
                return problem
        elif arg == "--pid":
            value = args.pop(0)
            if not value.isdigit():
                return f"logcat: --pid {value} invalid"
            opts.pid = int(value)
        elif arg in ("-e", "--regex"):
            opts.regex = re.compile(args.pop(0))
        elif arg in ("-m", "--max-count"):
            opts.max_count = int(args.pop(0))
        elif arg in ("-f", "--file", "-r", "-n"):
            args.pop(0)
        elif arg == "-d":
            opts.dump = opts.explicit_dump = True
        elif arg == "-c":
            opts.clear = True
        elif arg == "-s":
            opts.silent = True
        elif arg == "-g":
            opts.sizes = True
        elif arg.startswith("-"):
            if not set(arg[1:]) <= set("dcsgD"):
                return f"logcat: invalid option -- '{arg[1:]}'"
            opts.dump |= "d" in arg
            opts.explicit_dump |= "d" in arg
            opts.clear |= "c" in arg
            opts.silent |= "s" in arg
        else:
            opts.specs.append(arg)
    opts.buffers = list(dict.fromkeys(opts.buffers)) or list(DEFAULT_BUFFERS)
    return opts


def _select(entries: list[LogEntry], opts: _Options, tags: TagFilter) -> list[LogEntry]:
    if opts.pid is not None:
        entries = [e for e in entries if e.pid == opts.pid]
    if opts.since is not None:
        since = opts.since
        entries = [e for e in entries if e.when.replace(year=since.year) >= since]
    if opts.tail is not None:
        entries = entries[-opts.tail :] if opts.tail else []
    entries = [e for e in entries if tags.allows(e)]
    if opts.regex is not None:
        regex = opts.regex
        entries = [e for e in entries if regex.search(e.message)]
    return entries


def logcat(inv: Invocation) -> int:
    parsed = _parse(inv)
    if isinstance(parsed, str):
        inv.err(parsed + "\n")
        return 1
    opts = parsed
    try:
        tags = TagFilter.from_specs(opts.specs, silent=opts.silent)
    except ValueError as exc:
        inv.err(f"logcat: Invalid filter expression '{exc}'\n")
        return 1
    store = inv.device.state.logs
    if opts.clear:
        store.clear(opts.buffers)
        return 0
    if opts.sizes:
        for name in opts.buffers:
            used = store.size(name) // 1024
            inv.out(
                f"{name}: ring buffer is 256 KiB ({used} KiB consumed), max entry is 5120 B, "
                "max payload is 4068 B\n"
            )
        return 0
    headers = len(opts.buffers) > 1
    printed: set[str] = set()
    count = 0

    def emit(batch: list[LogEntry]) -> bool:
        nonlocal count
        chunks: list[str] = []
        for entry in batch:
            if opts.max_count is not None and count >= opts.max_count:
                break
            if headers and entry.buffer not in printed:
                chunks.append(f"--------- beginning of {entry.buffer}\n")
            printed.add(entry.buffer)
            chunks.append(format_entry(entry, opts.fmt))
            count += 1
        if chunks:
            inv.out("".join(chunks))
        return opts.max_count is not None and count >= opts.max_count

    entries = store.entries(opts.buffers)
    last_seq = entries[-1].seq if entries else 0
    ends = opts.explicit_dump or (opts.dump and not opts.follow_after_tail)
    if emit(_select(entries, opts, tags)) or ends:
        return 0
    opts.tail = None
    opts.since = None
    while not inv.cancelled:
        store.wait_for_more(last_seq, timeout=0.05)
        fresh = store.entries(opts.buffers, after_seq=last_seq)
        if fresh:
            last_seq = fresh[-1].seq
            if emit(_select(fresh, opts, tags)):
                return 0
    return 0


COMMANDS: dict[str, CommandFn] = {"logcat": logcat}
