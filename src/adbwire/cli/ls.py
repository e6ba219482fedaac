"""`adbwire ls [--json] PATH`: list a device directory as `adb ls` does.

Each entry the device sends (with "." and "..") is one line of hex fields, like adb:
`MODE SIZE MTIME NAME` as `%08x %08x %08x %s`. With --json: a list of objects with the same
fields plus the file type and, on devices with ls_v2, uid/gid/inode/nlink and 64-bit sizes.
A path that does not exist is an error here (adb prints nothing and exits 0).
"""

from __future__ import annotations

import argparse
import json
import stat as stat_module
import sys
from typing import Any

from adbwire.cli import targets
from adbwire.cli.terminal_text import visible
from adbwire.wire.services.sync import DirEntry

_TYPES = {
    stat_module.S_IFDIR: "directory",
    stat_module.S_IFREG: "file",
    stat_module.S_IFLNK: "symlink",
    stat_module.S_IFCHR: "character-device",
    stat_module.S_IFBLK: "block-device",
    stat_module.S_IFIFO: "fifo",
    stat_module.S_IFSOCK: "socket",
}


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "ls",
        help="list a device directory",
        description="List a device directory (like adb ls: hex mode, size and mtime).",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("path", metavar="PATH")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with targets.connect(args) as client:
        entries = client.list_dir(args.path, dot_entries=True, timeout=args.timeout)
    if args.json:
        json.dump([as_json(entry) for entry in entries], sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for entry in entries:
            print(as_line(entry))
    return 0


def as_line(entry: DirEntry) -> str:
    found = entry.stat
    return f"{found.mode:08x} {found.size:08x} {found.mtime:08x} {visible(entry.name)}"


def as_json(entry: DirEntry) -> dict[str, Any]:
    found = entry.stat
    row: dict[str, Any] = {
        "name": entry.name,
        "type": _TYPES.get(stat_module.S_IFMT(found.mode), "unknown"),
        "mode": found.mode,
        "permissions": f"{found.permissions:04o}",
        "size": found.size,
        "mtime": found.mtime,
    }
    for field in ("atime", "ctime", "uid", "gid", "dev", "ino", "nlink"):
        value = getattr(found, field)
        if value is not None:
            row[field] = value
    if entry.error:
        row["error"] = entry.error
    return row
