"""More of toybox: rmdir, expr, hostname, getconf, pgrep/pkill, xxd, paste, mount and free,
in toybox's formats and exit statuses (toybox's own help texts describe them)."""

from __future__ import annotations

import re
import stat as statmod

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.commands.fileops import MOUNTS
from adbwire.testing.userland.commands.files import split_flags
from adbwire.testing.userland.proctable import signal_number
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from adbwire.testing.userland.special_files import open_input

GETCONF = {
    "PAGESIZE": "4096",
    "PAGE_SIZE": "4096",
    "LONG_BIT": "64",
    "CLK_TCK": "100",
    "_NPROCESSORS_CONF": "4",
    "_NPROCESSORS_ONLN": "4",
    "ARG_MAX": "131072",
    "OPEN_MAX": "32768",
    "HOST_NAME_MAX": "255",
}


def rmdir(inv: Invocation) -> int:
    parsed = split_flags(inv, "p")
    if parsed is None:
        return 1
    flags, operands = parsed
    if not operands:
        return inv.fail("Need 1 argument")
    status = 0
    for operand in operands:
        path = operand.rstrip("/") or "/"
        while True:
            if not _remove_dir(inv, path):
                status = 1
                break
            parent = path.rsplit("/", 1)[0] if "/" in path else ""
            if "p" not in flags or not parent:
                break
            path = parent
    return status


def _remove_dir(inv: Invocation, operand: str) -> bool:
    files = inv.device.files
    path = inv.path(operand)
    try:
        if not statmod.S_ISDIR(files.stat(path, follow=False).mode):
            inv.err(f"rmdir: {operand}: Not a directory\n")
            return False
        if files.listdir(path):
            inv.err(f"rmdir: {operand}: Directory not empty\n")
            return False
        files.remove(path, recursive=True)
    except FsError as exc:
        inv.err(f"rmdir: {operand}: {exc.message}\n")
        return False
    return True


def hostname(inv: Invocation) -> int:
    inv.out("localhost\n")  # Android's kernel hostname
    return 0


def getconf(inv: Invocation) -> int:
    if not inv.args:
        return inv.fail("Need 1 argument")
    value = GETCONF.get(inv.args[0])
    if value is None:
        return inv.fail(f"bad '{inv.args[0]}'")
    inv.out(value + "\n")
    return 0


# ---------------------------------------------------------------- mount, free

_MOUNT_TYPES = {
    "/": ("ext4", "ro,seclabel,relatime"),
    "/dev": ("tmpfs", "rw,seclabel,nosuid,relatime,size=2936408k,nr_inodes=734102,mode=755"),
    "/mnt": ("tmpfs", "rw,seclabel,nosuid,nodev,noexec,relatime,size=2936408k,mode=755,gid=1000"),
    "/system_ext": ("ext4", "ro,seclabel,relatime"),
    "/product": ("ext4", "ro,seclabel,relatime"),
    "/vendor": ("ext4", "ro,seclabel,relatime"),
    "/data": ("f2fs", "rw,lazytime,seclabel,nosuid,nodev,noatime,background_gc=on"),
    "/storage/emulated": ("fuse", "rw,lazytime,nosuid,nodev,noexec,noatime,user_id=0,group_id=0"),
}


def mount(inv: Invocation) -> int:
    """The mount table (the same mounts `df` shows); mounting is for root, and not simulated."""
    if inv.args:
        return inv.fail("Permission denied" if inv.device.user_id() else "not simulated")
    for source, point, _blocks, _taken in MOUNTS:
        kind, options = _MOUNT_TYPES.get(point, ("ext4", "rw"))
        inv.out(f"{source} on {point} type {kind} ({options})\n")
    return 0


def free(inv: Invocation) -> int:
    """toybox free: bytes by default (-k -m -g), from /proc/meminfo."""
    units = {"-b": 1, "-k": 1024, "-m": 1024**2, "-g": 1024**3}
    if any(arg not in units for arg in inv.args):
        return inv.fail(f"Unknown option '{inv.args[0].lstrip('-')}'")
    unit = units[inv.args[-1]] if inv.args else 1
    with open_input(inv.shell, "/proc/meminfo") as handle:
        text = handle.read().decode()
    kb = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in text.splitlines() if line}
    total, free_, buffers = kb["MemTotal"], kb["MemFree"], kb.get("Buffers", 0)
    shared = kb.get("Shmem", 0)
    swap, swap_free = kb.get("SwapTotal", 0), kb.get("SwapFree", 0)

    def n(value: int) -> str:
        return str(value // unit)

    inv.out(
        "\t\ttotal        used        free      shared     buffers\n"
        f"Mem:{n(total):>17}{n(total - free_):>12}{n(free_):>12}{n(shared):>12}{n(buffers):>12}\n"
        f"-/+ buffers/cache:{n(total - free_ - buffers):>15}{n(free_ + buffers):>12}\n"
        f"Swap:{n(swap):>16}{n(swap - swap_free):>12}{n(swap_free):>12}\n"
    )
    return 0


# ---------------------------------------------------------------- expr


class _ExprError(Exception):
    pass


def expr(inv: Invocation) -> int:
    """POSIX expr as toybox does it: `|` `&`, comparisons, `+ -`, `* / %`, `STR : RE`,
    parentheses; prints the value, exit 1 when it is 0 or empty, 2 on an error."""
    try:
        parser = _Expr(list(inv.args))
        value = parser.parse()
    except _ExprError as exc:
        inv.err(f"expr: {exc}\n")
        return 2
    text = str(value)
    inv.out(text + "\n")
    return 1 if text in ("", "0") else 0


class _Expr:
    _LEVELS = (("|",), ("&",), ("=", "==", "!=", "<", "<=", ">", ">="), ("+", "-"), ("*", "/", "%"))

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.pos = 0

    def parse(self) -> int | str:
        if not self.tokens:
            raise _ExprError("syntax error")
        value = self._level(0)
        if self.pos != len(self.tokens):
            raise _ExprError("syntax error")
        return value

    def _level(self, level: int) -> int | str:
        if level == len(self._LEVELS):
            return self._match()
        left = self._level(level + 1)
        while self.pos < len(self.tokens) and self.tokens[self.pos] in self._LEVELS[level]:
            op = self.tokens[self.pos]
            self.pos += 1
            right = self._level(level + 1)
            left = _apply(op, left, right)
        return left

    def _match(self) -> int | str:
        left = self._atom()
        while self.pos < len(self.tokens) and self.tokens[self.pos] == ":":
            self.pos += 1
            left = _regex_match(str(left), str(self._atom()))
        return left

    def _atom(self) -> int | str:
        if self.pos >= len(self.tokens):
            raise _ExprError("syntax error")
        word = self.tokens[self.pos]
        self.pos += 1
        if word == "(":
            value = self._level(0)
            if self.pos >= len(self.tokens) or self.tokens[self.pos] != ")":
                raise _ExprError("syntax error")
            self.pos += 1
            return value
        return int(word) if re.fullmatch(r"-?\d+", word) else word


def _as_int(value: int | str) -> int:
    if isinstance(value, int):
        return value
    if re.fullmatch(r"-?\d+", value):
        return int(value)
    raise _ExprError("non-integer argument")


def _apply(op: str, left: int | str, right: int | str) -> int | str:
    if op == "|":
        return left if left not in ("", 0) else right
    if op == "&":
        return left if left not in ("", 0) and right not in ("", 0) else 0
    if op in ("=", "==", "!=", "<", "<=", ">", ">="):
        both_ints = isinstance(left, int) and isinstance(right, int)
        a, b = (left, right) if both_ints else (str(left), str(right))
        result = {
            "=": a == b,
            "==": a == b,
            "!=": a != b,
            "<": a < b,  # type: ignore[operator]
            "<=": a <= b,  # type: ignore[operator]
            ">": a > b,  # type: ignore[operator]
            ">=": a >= b,  # type: ignore[operator]
        }[op]
        return int(result)
    x, y = _as_int(left), _as_int(right)
    if op in ("/", "%") and y == 0:
        raise _ExprError("division by zero")
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    quotient = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)  # C: toward zero
    return quotient if op == "/" else x - y * quotient


def _regex_match(text: str, pattern: str) -> int | str:
    """`STR : RE`: RE anchored at the start (a basic regex); \\( \\) returns the group."""
    translated = pattern.replace(r"\(", "(").replace(r"\)", ")")
    try:
        found = re.match(translated, text)
    except re.error:
        raise _ExprError(f"bad regex '{pattern}'") from None
    if found is None:
        return "" if found is None and "(" in translated else 0
    if found.groups():
        return found.group(1) or ""
    return len(found.group(0))


# ---------------------------------------------------------------- pgrep, pkill


def pgrep(inv: Invocation) -> int:
    return _pgrep(inv, kill=False)


def pkill(inv: Invocation) -> int:
    return _pgrep(inv, kill=True)


def _pgrep(inv: Invocation, *, kill: bool) -> int:
    args = list(inv.args)
    signal, show_name, full, exact, pattern = 15, False, False, False, None
    while args:
        arg = args.pop(0)
        if kill and arg.startswith("-") and signal_number(arg[1:]) is not None:
            signal = signal_number(arg[1:]) or 15
        elif arg in ("-l", "-f", "-x") or re.fullmatch(r"-[lfx]+", arg):
            show_name |= "l" in arg
            full |= "f" in arg
            exact |= "x" in arg
        elif arg.startswith("-") and len(arg) > 1:
            return inv.fail(f"Unknown option '{arg[1:]}'")
        elif pattern is None:
            pattern = arg
        else:
            return inv.fail("Max 1 argument")
    if pattern is None:
        return inv.fail("Need 1 argument")
    try:
        regex = re.compile(pattern)
    except re.error:
        return inv.fail(f"bad regex '{pattern}'")
    own = {inv.shell.pid, inv.shell.child.pid if inv.shell.child else -1}
    matched = []
    for process in inv.device.processes.snapshot():
        subject = " ".join(process.argv) if full and process.argv else process.name
        hit = regex.fullmatch(subject) if exact else regex.search(subject)
        if hit and process.pid not in own:
            matched.append(process)
    for process in matched:
        if kill:
            inv.device.processes.send(process.pid, signal, sender_uid=inv.device.user_id())
        else:
            inv.out(f"{process.pid} {process.name}\n" if show_name else f"{process.pid}\n")
    return 0 if matched else 1


# ---------------------------------------------------------------- xxd, paste


def xxd(inv: Invocation) -> int:
    args = [arg for arg in inv.args if arg != "-p"]
    plain = "-p" in inv.args
    if len(args) > 1 or any(arg.startswith("-") and arg != "-" for arg in args):
        return inv.fail("usage: xxd [-p] [FILE]")
    data = _read(inv, args[0] if args else "-")
    if data is None:
        return 1
    if plain:
        lines = [data[i : i + 30].hex() for i in range(0, len(data), 30)]
        inv.out("".join(line + "\n" for line in lines))
        return 0
    out = []
    for offset in range(0, len(data), 16):
        row = data[offset : offset + 16]
        groups = " ".join(row[i : i + 2].hex() for i in range(0, len(row), 2))
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in row)
        out.append(f"{offset:08x}: {groups:<39}  {text}\n")
    inv.out("".join(out))
    return 0


def paste(inv: Invocation) -> int:
    args = list(inv.args)
    delimiters, serial, names = "\t", False, []
    while args:
        arg = args.pop(0)
        if arg == "-s":
            serial = True
        elif arg == "-d" and args:
            delimiters = args.pop(0)
        elif arg.startswith("-d") and len(arg) > 2:
            delimiters = arg[2:]
        elif re.fullmatch(r"-s?d.*", arg):
            serial = True
            delimiters = arg.split("d", 1)[1] or (args.pop(0) if args else "\t")
        else:
            names.append(arg)
    contents = []
    for name in names or ["-"]:
        data = _read(inv, name)
        if data is None:
            return 1
        contents.append(data.decode("utf-8", "replace").splitlines())
    delimiters = delimiters.replace("\\t", "\t").replace("\\n", "\n") or "\t"

    def join(fields: list[str]) -> str:
        return "".join(
            field + (delimiters[i % len(delimiters)] if i < len(fields) - 1 else "")
            for i, field in enumerate(fields)
        )

    if serial:
        inv.out("".join(join(lines) + "\n" for lines in contents))
    else:
        rows = max((len(lines) for lines in contents), default=0)
        inv.out(
            "".join(
                join([lines[row] if row < len(lines) else "" for lines in contents]) + "\n"
                for row in range(rows)
            )
        )
    return 0


def _read(inv: Invocation, name: str) -> bytes | None:
    if name == "-":
        return inv.read_stdin()
    try:
        with open_input(inv.shell, name) as handle:
            data: bytes = handle.read()
            return data
    except FsError as exc:
        inv.err(f"{inv.name}: {name}: {exc.message}\n")
        return None


COMMANDS: dict[str, CommandFn] = {
    "rmdir": rmdir,
    "expr": expr,
    "hostname": hostname,
    "getconf": getconf,
    "pgrep": pgrep,
    "pkill": pkill,
    "xxd": xxd,
    "paste": paste,
    "mount": mount,
    "free": free,
}
