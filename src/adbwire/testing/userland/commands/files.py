"""Toybox file commands on the device's files: ls, cat, rm, mkdir, stat, touch, cp, mv."""

from __future__ import annotations

import contextlib
import posixpath
import stat as statmod
from datetime import datetime, timezone

from adbwire.testing.device_files import FileStat, FsError
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from adbwire.testing.userland.special_files import list_path, open_input, stat_path

_NAMES = {
    0: "root",
    1000: "system",
    1015: "sdcard_rw",
    1023: "media_rw",
    1028: "sdcard_r",
    1077: "external_storage",
    1078: "ext_data_rw",
    2000: "shell",
    3003: "inet",
    9997: "everybody",
}


def owner_name(uid: int) -> str:
    if uid in _NAMES:
        return _NAMES[uid]
    return f"u0_a{uid - 10000}" if uid >= 10000 else str(uid)


def split_flags(inv: Invocation, allowed: str) -> tuple[set[str], list[str]] | None:
    """Toybox-style option parsing: combined single-letter flags before operands."""
    flags: set[str] = set()
    operands: list[str] = []
    for index, arg in enumerate(inv.args):
        if arg == "--":
            operands.extend(inv.args[index + 1 :])
            break
        if arg.startswith("-") and len(arg) > 1 and not operands:
            for letter in arg[1:]:
                if letter not in allowed:
                    inv.err(f"{inv.name}: Unknown option '{letter}' (see \"{inv.name} --help\")\n")
                    return None
                flags.add(letter)
        else:
            operands.append(arg)
    return flags, operands


def _mode_string(mode: int) -> str:
    return statmod.filemode(mode)


def _time(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%d %H:%M")


def _long_lines(entries: list[tuple[str, FileStat]], inv: Invocation, base: str) -> list[str]:
    rows = []
    for name, st in entries:
        display = name
        if statmod.S_ISLNK(st.mode):
            with contextlib.suppress(FsError):
                display += " -> " + inv.device.files.readlink(posixpath.join(base, name))
        rows.append(
            (
                _mode_string(st.mode),
                str(st.nlink),
                owner_name(st.uid),
                owner_name(st.gid),
                str(st.size),
                _time(st.mtime),
                display,
            )
        )
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(5)]
    return [
        f"{r[0]} {r[1]:>{widths[1]}} {r[2]:<{widths[2]}} {r[3]:<{widths[3]}} "
        f"{r[4]:>{widths[4]}} {r[5]} {r[6]}"
        for r in rows
    ]


def ls(inv: Invocation) -> int:
    parsed = split_flags(inv, "aAld1")
    if parsed is None:
        return 1
    flags, operands = parsed
    status = 0
    singles: list[tuple[str, FileStat]] = []
    dirs: list[tuple[str, str]] = []
    for operand in operands or ["."]:
        path = inv.path(operand)
        try:
            st = stat_path(inv.shell, path, follow=not {"l", "d"} & flags)  # -l: the link itself
        except FsError as exc:
            inv.err(f"ls: {operand}: {exc.message}\n")
            status = 1
            continue
        if statmod.S_ISDIR(st.mode) and "d" not in flags:
            dirs.append((operand, path))
        else:
            singles.append((operand, st))
    blocks: list[str] = []
    if singles:
        lines = (
            _long_lines(singles, inv, inv.shell.cwd) if "l" in flags else [n for n, _ in singles]
        )
        blocks.append("".join(line + "\n" for line in lines))
    for operand, path in dirs:
        try:
            entries = list_path(inv.shell, path)
        except FsError as exc:
            inv.err(f"ls: {operand}: {exc.message}\n")
            status = 1
            continue
        if "a" in flags:
            entries = [
                (".", stat_path(inv.shell, path)),
                ("..", stat_path(inv.shell, posixpath.dirname(path) or "/")),
                *entries,
            ]
        elif "A" not in flags:
            entries = [(name, st) for name, st in entries if not name.startswith(".")]
        header = f"{operand}:\n" if len(operands) > 1 else ""
        body = ""
        if "l" in flags:
            total = sum((st.size + 4095) // 4096 * 4 for _, st in entries)
            body = f"total {total}\n" + "".join(
                f"{line}\n" for line in _long_lines(entries, inv, path)
            )
        else:
            body = "".join(f"{name}\n" for name, _ in entries)
        blocks.append(header + body)
    inv.out("\n".join(blocks))
    return status


def cat(inv: Invocation) -> int:
    status = 0
    for operand in inv.args or ["-"]:
        if operand == "-":
            while not inv.cancelled:
                chunk = inv.streams.stdin.read(65536)
                if not chunk:
                    break
                inv.out(chunk)
            continue
        try:
            with open_input(inv.shell, operand) as handle:
                while not inv.cancelled:
                    chunk = handle.read(1 << 20)
                    if not chunk:
                        break
                    inv.out(chunk)
        except FsError as exc:
            inv.err(f"cat: {operand}: {exc.message}\n")
            status = 1
        except IsADirectoryError:
            inv.err(f"cat: {operand}: Is a directory\n")
            status = 1
    return status


def rm(inv: Invocation) -> int:
    parsed = split_flags(inv, "rRfvi")
    if parsed is None:
        return 1
    flags, operands = parsed
    status = 0
    for operand in operands:
        path = inv.path(operand)
        try:
            st = inv.device.files.stat(path, follow=False)
            if statmod.S_ISDIR(st.mode) and not flags & {"r", "R"}:
                inv.err(f"rm: {operand}: Is a directory\n")
                status = 1
                continue
            inv.device.files.remove(path, recursive=bool(flags & {"r", "R"}))
        except FsError as exc:
            if not ("f" in flags and exc.errno_name == "ENOENT"):
                inv.err(f"rm: {operand}: {exc.message}\n")
                status = 1
    if not operands and "f" not in flags:
        return inv.fail("Need 1 argument")
    return status


def mkdir(inv: Invocation) -> int:
    parsed = split_flags(inv, "pvm")
    if parsed is None:
        return 1
    flags, operands = parsed
    status = 0
    for operand in operands:
        try:
            inv.device.files.mkdir(inv.path(operand), parents="p" in flags)
        except FsError as exc:
            if "p" in flags and exc.errno_name == "EEXIST":
                continue
            inv.err(f"mkdir: '{operand}': {exc.message}\n")
            status = 1
    return status


def touch(inv: Invocation) -> int:
    files = inv.device.files
    now = int(inv.device.state.clock.now().replace(tzinfo=timezone.utc).timestamp())
    for operand in (a for a in inv.args if not a.startswith("-")):
        path = inv.path(operand)
        try:
            try:
                files.stat(path)
            except FsError:
                files.write_file(path, b"", 0o100666)
            files.set_mtime(path, now)
        except FsError as exc:
            return inv.fail(f"'{operand}': {exc.message}")
    return 0


def _copy(inv: Invocation, source: str, target: str) -> None:
    files = inv.device.files
    src, dst = inv.path(source), inv.path(target)
    try:
        if statmod.S_ISDIR(files.stat(dst).mode):
            dst = posixpath.join(dst, posixpath.basename(src))
    except FsError:
        pass
    mode = files.stat(src).mode
    with files.open_read(src) as reader, files.open_write(dst, mode) as writer:
        while chunk := reader.read(1 << 20):
            writer.write(chunk)


def cp(inv: Invocation) -> int:
    operands = [a for a in inv.args if not a.startswith("-")]
    if len(operands) != 2:
        return inv.fail("Needs 2 arguments")
    try:
        _copy(inv, operands[0], operands[1])
    except FsError as exc:
        return inv.fail(f"{exc.path if hasattr(exc, 'path') else operands[0]}: {exc.message}")
    return 0


def mv(inv: Invocation) -> int:
    """rename(2) each source onto the target (into it when it is a directory), as toybox."""
    parsed = split_flags(inv, "fivnT")
    if parsed is None:
        return 1
    flags, operands = parsed
    if len(operands) < 2:
        return inv.fail("Need 2 arguments")
    *sources, target = operands
    files = inv.device.files
    into = "T" not in flags and files.exists(inv.path(target))
    into = into and files.stat(inv.path(target)).is_dir
    if len(sources) > 1 and not into:
        return inv.fail(f"'{target}' not directory")
    status = 0
    for source in sources:
        trimmed = source.rstrip("/") or source
        destination = inv.path(target)
        if into:
            destination = posixpath.join(destination.rstrip("/"), posixpath.basename(trimmed))
        if "n" in flags and files.exists(destination, follow=False):
            continue
        try:
            files.rename(inv.path(trimmed), destination)
        except FsError as exc:
            inv.err(f"mv: bad '{source}': {exc.message}\n")
            status = 1
    return status


COMMANDS: dict[str, CommandFn] = {
    "ls": ls,
    "cat": cat,
    "rm": rm,
    "mkdir": mkdir,
    "touch": touch,
    "cp": cp,
    "mv": mv,
}
