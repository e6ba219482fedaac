"""Toybox `stat`, with its default layout and `-c FORMAT`."""

from __future__ import annotations

import re
import stat as statmod
from datetime import datetime, timezone

from adbwire.testing.device_files import FileStat, FsError
from adbwire.testing.userland.commands.files import owner_name
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from adbwire.testing.userland.special_files import stat_path

DEFAULT_FORMAT = (
    "  File: %N\n  Size: %s\t Blocks: %b\t IO Blocks: %B\t%F\n"
    "Device: %Dh/%dd\t Inode: %i\t Links: %h\t Device type: %t,%T\n"
    "Access: (%a/%A)\tUid: (%5u/%8U)\tGid: (%5g/%8G)\n"
    "Access: %x\nModify: %y\nChange: %z"
)
_DIRECTIVE = re.compile(r"%(-?\d*)([a-zA-Z%])")


def file_type(st: FileStat) -> str:
    mode = st.mode
    if statmod.S_ISREG(mode):
        return "regular file" if st.size else "regular empty file"
    names = (
        (statmod.S_ISDIR, "directory"),
        (statmod.S_ISLNK, "symbolic link"),
        (statmod.S_ISCHR, "character device"),
        (statmod.S_ISBLK, "block device"),
        (statmod.S_ISFIFO, "FIFO (named pipe)"),
        (statmod.S_ISSOCK, "socket"),
    )
    return next((name for test, name in names if test(mode)), "unknown")


def _when(seconds: int) -> str:
    stamp = datetime.fromtimestamp(seconds, tz=timezone.utc)
    return stamp.strftime("%Y-%m-%d %H:%M:%S") + ".000000000 +0000"


def render(fmt: str, name: str, st: FileStat) -> str:
    values = {
        "n": name,
        "N": name,
        "s": st.size,
        "b": (st.size + 511) // 512,
        "B": 512,
        "F": file_type(st),
        "D": f"{st.dev:x}",
        "d": st.dev,
        "i": st.ino,
        "h": st.nlink,
        "t": 0,
        "T": 0,
        "a": f"{statmod.S_IMODE(st.mode):o}",
        "A": statmod.filemode(st.mode),
        "f": f"{st.mode:x}",
        "u": st.uid,
        "U": owner_name(st.uid),
        "g": st.gid,
        "G": owner_name(st.gid),
        "x": _when(st.atime),
        "X": st.atime,
        "y": _when(st.mtime),
        "Y": st.mtime,
        "z": _when(st.ctime),
        "Z": st.ctime,
        "o": 4096,
        "%": "%",
    }

    def one(match: re.Match[str]) -> str:
        width, key = match.groups()
        if key not in values:
            return match.group(0)
        return (
            f"{values[key]:{'<' if width.startswith('-') else '>'}{width.lstrip('-')}}"
            if width
            else str(values[key])
        )

    return _DIRECTIVE.sub(one, fmt.replace("\\n", "\n").replace("\\t", "\t"))


def stat(inv: Invocation) -> int:
    args = list(inv.args)
    fmt = DEFAULT_FORMAT
    follow = False
    operands: list[str] = []
    while args:
        arg = args.pop(0)
        if arg in ("-c", "--format") and args:
            fmt = args.pop(0)
        elif arg.startswith("--format="):
            fmt = arg.split("=", 1)[1]
        elif arg == "-L":
            follow = True
        elif arg.startswith("-") and len(arg) > 1:
            return inv.fail(f"Unknown option '{arg[1:]}' (see \"stat --help\")")
        else:
            operands.append(arg)
    if not operands:
        return inv.fail("Need 1 argument")
    status = 0
    for operand in operands:
        try:
            st = stat_path(inv.shell, inv.path(operand), follow=follow)
        except FsError as exc:
            inv.err(f"stat: {operand}: {exc.message}\n")
            status = 1
            continue
        inv.out(render(fmt, operand, st) + "\n")
    return status


COMMANDS: dict[str, CommandFn] = {"stat": stat}
