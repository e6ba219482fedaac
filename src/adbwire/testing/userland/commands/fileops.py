"""Toybox chmod, ln, du, df, basename and dirname."""

from __future__ import annotations

import posixpath
import re
import stat as statmod

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.commands.dd import human_readable
from adbwire.testing.userland.commands.files import split_flags
from adbwire.testing.userland.shell.interp import CommandFn, Invocation

_WHO = {"u": 0o4700, "g": 0o2070, "o": 0o1007}
_SYMBOLIC = re.compile(r"([ugoa]*)([-+=])([rwxXst]*|[ugo])")


def apply_mode(spec: str, mode: int) -> int:
    """The permission bits after `chmod spec` (octal, or symbolic like u+x,go-w,a=r)."""
    if re.fullmatch(r"[0-7]{1,4}", spec):
        return int(spec, 8)
    bits = statmod.S_IMODE(mode)
    is_dir = statmod.S_ISDIR(mode)
    for clause in spec.split(","):
        match = _SYMBOLIC.fullmatch(clause)
        if match is None:
            raise ValueError(spec)
        who, op, perms = match.groups()
        mask = sum(_WHO[w] for w in (who or "ugo").replace("a", "ugo"))
        if perms in ("u", "g", "o"):
            shift = {"u": 6, "g": 3, "o": 0}[perms]
            triple = (bits >> shift) & 0o7
            wanted = triple << 6 | triple << 3 | triple
        else:
            wanted = 0
            for letter in perms:
                if letter == "r":
                    wanted |= 0o444
                elif letter == "w":
                    wanted |= 0o222
                elif letter == "x" or (letter == "X" and (is_dir or bits & 0o111)):
                    wanted |= 0o111
                elif letter == "s":
                    wanted |= 0o6000
                elif letter == "t":
                    wanted |= 0o1000
        wanted &= mask
        if op == "+":
            bits |= wanted
        elif op == "-":
            bits &= ~wanted
        else:
            bits = (bits & ~mask) | wanted
    return bits


def chmod(inv: Invocation) -> int:
    args = list(inv.args)
    recursive = False
    while args and args[0] in ("-R", "-f", "-v"):
        recursive = recursive or args.pop(0) == "-R"
    if len(args) < 2:
        return inv.fail("Need 2 arguments")
    spec, operands = args[0], args[1:]
    files = inv.device.files
    status = 0
    for operand in operands:
        for path in _walk(inv, inv.path(operand), recursive):
            try:
                mode = files.stat(path).mode
                files.chmod(path, statmod.S_IFMT(mode) | apply_mode(spec, mode))
            except ValueError:
                return inv.fail(f"bad mode '{spec}'")
            except FsError as exc:
                shown = operand if path == inv.path(operand) else path
                inv.err(f"chmod: {shown}: {exc.message}\n")
                status = 1
    return status


def _walk(inv: Invocation, path: str, recursive: bool) -> list[str]:
    found = [path]
    files = inv.device.files
    if recursive and files.exists(path, follow=False) and files.stat(path, follow=False).is_dir:
        for name, st in files.listdir(path):
            found.extend(_walk(inv, posixpath.join(path, name), recursive=not st.is_symlink))
    return found


def ln(inv: Invocation) -> int:
    parsed = split_flags(inv, "sfnvT")
    if parsed is None:
        return 1
    flags, operands = parsed
    if not operands:
        return inv.fail("Need 1 argument")
    if "s" not in flags:
        return inv.fail("hard links are not simulated; use -s")
    files = inv.device.files
    if len(operands) == 1:
        operands.append(".")
    *targets, where = operands
    into = files.exists(inv.path(where)) and files.stat(inv.path(where)).is_dir
    into = into and "T" not in flags and not ("n" in flags and _is_link(inv, where))
    if len(targets) > 1 and not into:
        return inv.fail(f"'{where}' not a directory")
    status = 0
    for target in targets:
        link = inv.path(where)
        if into:
            link = posixpath.join(link, posixpath.basename(target.rstrip("/")))
        try:
            if "f" in flags and files.exists(link, follow=False):
                files.remove(link)
            files.symlink(link, target)
        except FsError as exc:
            inv.err(f"ln: cannot create symlink '{link}': {exc.message}\n")
            status = 1
    return status


def _is_link(inv: Invocation, operand: str) -> bool:
    files = inv.device.files
    return (
        files.exists(inv.path(operand), follow=False)
        and files.stat(inv.path(operand), follow=False).is_symlink
    )


def _kilobytes(size: int) -> int:
    return (size + 4095) // 4096 * 4


def _usage(inv: Invocation, path: str, shown: str, depth: int, opts: set[str]) -> int:
    files = inv.device.files
    st = files.stat(path, follow=False)
    if not st.is_dir:
        return _kilobytes(st.size)
    total = 4
    for name, child in files.listdir(path):
        child_path = posixpath.join(path, name)
        child_shown = posixpath.join(shown, name)
        if child.is_dir and not child.is_symlink:
            total += _usage(inv, child_path, child_shown, depth + 1, opts)
        else:
            size = _kilobytes(child.size) if not child.is_symlink else 0
            total += size
            if "a" in opts:
                _print_usage(inv, size, child_shown, opts)
    if "s" not in opts or depth == 0:
        _print_usage(inv, total, shown, opts)
    return total


def _print_usage(inv: Invocation, kilobytes: int, shown: str, opts: set[str]) -> None:
    value = (
        human_readable(kilobytes * 1024).replace(" ", "").rstrip("B")
        if "h" in opts
        else str(kilobytes)
    )
    inv.out(f"{value or '0'}\t{shown}\n")


def du(inv: Invocation) -> int:
    parsed = split_flags(inv, "sahkcxdLHl")
    if parsed is None:
        return 1
    flags, operands = parsed
    status = 0
    grand = 0
    for operand in operands or ["."]:
        try:
            st = inv.device.files.stat(inv.path(operand), follow=False)
            if st.is_dir:
                grand += _usage(inv, inv.path(operand), operand, 0, flags)
            else:
                size = _kilobytes(st.size)
                grand += size
                _print_usage(inv, size, operand, flags)
        except FsError as exc:
            inv.err(f"du: {operand}: {exc.message}\n")
            status = 1
    if "c" in flags:
        _print_usage(inv, grand, "total", flags)
    return status


MOUNTS = (
    ("/dev/block/dm-4", "/", 1_026_540, 1_021_640),
    ("tmpfs", "/dev", 2_936_408, 1_432),
    ("tmpfs", "/mnt", 2_936_408, 0),
    ("/dev/block/dm-5", "/system_ext", 346_244, 344_764),
    ("/dev/block/dm-6", "/product", 1_164_084, 1_160_664),
    ("/dev/block/dm-7", "/vendor", 492_616, 490_756),
    ("/dev/block/dm-48", "/data", 0, 0),
    ("/dev/fuse", "/storage/emulated", 0, 0),
)
DATA_BLOCKS = 115_544_356
DATA_BASE_USED = 9_236_920


def df(inv: Invocation) -> int:
    parsed = split_flags(inv, "hkPa")
    if parsed is None:
        return 1
    flags, operands = parsed
    files = inv.device.files
    capacity = files.capacity_bytes
    total_data = capacity // 1024 if capacity is not None else DATA_BLOCKS
    used_data = files.usage_bytes() // 1024 + (0 if capacity is not None else DATA_BASE_USED)
    rows = []
    for source, mount, blocks, taken in MOUNTS:
        if mount in ("/data", "/storage/emulated"):
            rows.append((source, mount, total_data, min(used_data, total_data)))
        else:
            rows.append((source, mount, blocks, taken))
    if operands:
        wanted = []
        for operand in operands:
            path = inv.path(operand)
            if not files.exists(path) and not path.startswith("/dev"):
                inv.err(f"df: {operand}: No such file or directory\n")
                return 1
            best = max((r for r in rows if path == r[1] or path.startswith(r[1].rstrip("/") + "/")),
                       key=lambda r: len(r[1]))  # fmt: skip
            wanted.append(best)
        rows = wanted
    if "h" in flags:
        inv.out("Filesystem        Size Used Avail Use% Mounted on\n")
    else:
        inv.out("Filesystem       1K-blocks    Used Available Use% Mounted on\n")
    for source, mount, size, used in rows:
        avail = size - used
        percent = f"{(used * 100 + size - 1) // size}%" if size else "0%"
        if "h" in flags:
            inv.out(
                f"{source:<16} {_short(size):>5} {_short(used):>4} {_short(avail):>5} "
                f"{percent:>4} {mount}\n"
            )
        else:
            inv.out(f"{source:<16} {size:>9} {used:>7} {avail:>9} {percent:>4} {mount}\n")
    return 0


def _short(kilobytes: int) -> str:
    return human_readable(kilobytes * 1024).replace(" ", "").rstrip("B") or "0"


def basename(inv: Invocation) -> int:
    args = [a for a in inv.args if a != "--"]
    if not args:
        return inv.fail("Need 1 argument")
    name = args[0].rstrip("/")
    name = posixpath.basename(name) if name else "/"
    if len(args) > 1 and name != args[1] and name.endswith(args[1]):
        name = name[: -len(args[1])]
    inv.out(name + "\n")
    return 0


def dirname(inv: Invocation) -> int:
    if not inv.args:
        return inv.fail("Need 1 argument")
    for arg in inv.args:
        path = arg.rstrip("/") or ("/" if arg.startswith("/") else ".")
        parent = posixpath.dirname(path).rstrip("/") if "/" in path else "."
        inv.out((parent or "/") + "\n")
    return 0


COMMANDS: dict[str, CommandFn] = {
    "chmod": chmod,
    "ln": ln,
    "du": du,
    "df": df,
    "basename": basename,
    "dirname": dirname,
}
