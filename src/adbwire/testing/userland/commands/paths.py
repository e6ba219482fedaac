"""Toybox `realpath` and `readlink`: canonical paths on the device's files.

As toybox's xabspath does it: every symlink and `.`/`..` is resolved physically; by default
(`realpath`, `readlink -f`) everything but the last component must exist, `-e` wants the
last one too, `-m` wants nothing. `realpath` reports failures (`realpath: X: No such file or
directory`, exit 1); `readlink` is quiet unless `-v`. Plain `readlink LINK` prints the
link's target, and fails silently for anything that is not a link.
"""

from __future__ import annotations

import posixpath

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.commands.files import split_flags
from adbwire.testing.userland.shell.interp import CommandFn, Invocation


def _canonical(inv: Invocation, operand: str, flags: set[str]) -> str:
    """The canonical path of `operand`, or FsError as toybox's xabspath would fail."""
    files = inv.device.files
    absolute = inv.shell.resolve(operand) if "s" in flags else operand
    if not absolute.startswith("/"):
        absolute = posixpath.join(inv.shell.cwd, absolute)
    if "s" in flags:
        return posixpath.normpath(absolute)
    trimmed = absolute.rstrip("/") or "/"
    canonical = files.resolve(trimmed) if "m" not in flags else _resolve_missing(inv, trimmed)
    if "e" in flags:
        files.stat(canonical, follow=False)
    elif "m" not in flags and canonical != "/":
        parent = files.stat(posixpath.dirname(canonical), follow=False)
        if not parent.is_dir:
            raise FsError.of("ENOTDIR", operand)
    return canonical


def _resolve_missing(inv: Invocation, path: str) -> str:
    """-m: resolve what exists, keep the rest of the names as they are."""
    try:
        return inv.device.files.resolve(path)
    except FsError as error:
        if error.errno_name != "ENOTDIR":
            raise
        return posixpath.normpath(path)


def _print_all(inv: Invocation, flags: set[str], operands: list[str], *, quiet: bool) -> int:
    status = 0
    for index, operand in enumerate(operands):
        try:
            if {"f", "e", "m", "resolve"} & flags:
                text = _canonical(inv, operand, flags)
            else:
                text = inv.device.files.readlink(inv.path(operand))
        except FsError as exc:
            if not quiet:
                inv.err(f"{inv.name}: {operand}: {exc.message}\n")
            status = 1
            continue
        last = index == len(operands) - 1
        end = "\0" if "z" in flags else "" if "n" in flags and last else "\n"
        inv.out(text + end)
    return status


def realpath(inv: Invocation) -> int:
    parsed = split_flags(inv, "LPemqsz")
    if parsed is None:
        return 1
    flags, operands = parsed
    if not operands:
        return inv.fail("Need 1 argument")
    return _print_all(inv, flags | {"resolve"}, operands, quiet="q" in flags)


def readlink(inv: Invocation) -> int:
    parsed = split_flags(inv, "vnfemqz")
    if parsed is None:
        return 1
    flags, operands = parsed
    if not operands:
        return inv.fail("Need 1 argument")
    return _print_all(inv, flags, operands, quiet="v" not in flags)


COMMANDS: dict[str, CommandFn] = {"realpath": realpath, "readlink": readlink}
