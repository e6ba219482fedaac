"""Small toybox utilities scripts reach for: which, seq, tee, uniq, mktemp, sync, truncate,
base64, cmp, timeout, nproc, yes, getenforce."""

from __future__ import annotations

import base64 as b64
import binascii
import secrets
import time

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.commands.files import split_flags
from adbwire.testing.userland.commands.textedit import read_inputs
from adbwire.testing.userland.process import Streams
from adbwire.testing.userland.procfs import CPU_COUNT
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from adbwire.testing.userland.special_files import open_input

MAX_YES_BYTES = 1 << 20
"""Pipeline stages run one after another, so `yes | head` stops yes at this much."""
MAX_SEQ_LINES = 10_000_000


def which(inv: Invocation) -> int:
    status = 0
    for name in (a for a in inv.args if not a.startswith("-")):
        if "/" not in name and inv.device.lookup(name) is not None:
            inv.out(f"/system/bin/{name}\n")
        else:
            status = 1
    return status


def _number(text: str) -> float:
    value = float(text)
    return int(value) if value == int(value) and "." not in text else value  # 3 prints "3"


def seq(inv: Invocation) -> int:
    args = list(inv.args)
    separator = "\n"
    while args and args[0][:2] in ("-s", "-w", "-f") and not _is_number(args[0]):
        flag = args.pop(0)
        option = flag[2:] or (args.pop(0) if args else "")
        if flag.startswith("-s"):
            separator = option
    try:
        numbers = [_number(a) for a in args]
    except ValueError:
        return inv.fail(f"Not a number '{next(a for a in args if not _is_number(a))}'")
    if not 1 <= len(numbers) <= 3:
        return inv.fail("Need 1 argument" if not numbers else "Max 3 arguments")
    first: float = 1
    step: float = 1
    if len(numbers) == 1:
        last = numbers[0]
    elif len(numbers) == 2:
        first, last = numbers
    else:
        first, step, last = numbers
    if step == 0:
        return inv.fail("step must not be 0")
    out: list[str] = []
    value = first
    while (value <= last if step > 0 else value >= last) and len(out) < MAX_SEQ_LINES:
        out.append(f"{value:g}")
        value += step
    if out:
        inv.out(separator.join(out) + "\n")
    return 0


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def tee(inv: Invocation) -> int:
    parsed = split_flags(inv, "ai")
    if parsed is None:
        return 1
    flags, operands = parsed
    files = inv.device.files
    data = inv.read_stdin()
    status = 0
    for operand in operands:
        path = inv.path(operand)
        try:
            old = files.read_bytes(path) if "a" in flags and files.exists(path) else b""
            files.write_file(path, old + data, 0o100666)
        except FsError as exc:
            inv.err(f"tee: {operand}: {exc.message}\n")
            status = 1
    inv.out(data)
    return status


def uniq(inv: Invocation) -> int:
    parsed = split_flags(inv, "cdui")
    if parsed is None:
        return 1
    flags, operands = parsed
    data, status = read_inputs(inv, operands[:1])
    groups: list[tuple[str, int]] = []
    for line in data.decode("utf-8", "replace").splitlines():
        key = line.lower() if "i" in flags else line
        if groups and (groups[-1][0].lower() if "i" in flags else groups[-1][0]) == key:
            groups[-1] = (groups[-1][0], groups[-1][1] + 1)
        else:
            groups.append((line, 1))
    for line, count in groups:
        if ("d" in flags and count < 2) or ("u" in flags and count > 1):
            continue
        inv.out(f"{count:>7} {line}\n" if "c" in flags else line + "\n")
    return status


def mktemp(inv: Invocation) -> int:
    parsed = split_flags(inv, "dqtup")
    if parsed is None:
        return 1
    flags, operands = parsed
    template = operands[0] if operands else "tmp.XXXXXXXXXX"
    if "/" not in template:
        template = f"{inv.shell.vars.get('TMPDIR', '/data/local/tmp')}/{template}"
    stem = template.rstrip("X")
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    name = stem + "".join(secrets.choice(letters) for _ in range(len(template) - len(stem)))
    if "u" not in flags:
        try:
            if "d" in flags:
                inv.device.files.mkdir(inv.path(name))
            else:
                inv.device.files.write_file(inv.path(name), b"", 0o100600)
        except FsError as exc:
            return inv.fail(f"{name}: {exc.message}")
    inv.out(name + "\n")
    return 0


def sync(inv: Invocation) -> int:
    return 0  # writes are synchronous in the simulated file tree


def truncate(inv: Invocation) -> int:
    args = list(inv.args)
    size: int | None = None
    operands: list[str] = []
    while args:
        arg = args.pop(0)
        if arg == "-s" and args:
            text = args.pop(0)
            units = {"k": 1024, "m": 1 << 20, "g": 1 << 30}
            multiplier = units.get(text[-1:].lower(), 1)
            digits = text[:-1] if text[-1:].lower() in units else text
            if not digits.isdigit():
                return inv.fail(f"bad -s '{text}'")
            size = int(digits) * multiplier
        elif arg == "-c":
            continue
        else:
            operands.append(arg)
    if size is None:
        return inv.fail("need -s")
    files = inv.device.files
    status = 0
    for operand in operands:
        path = inv.path(operand)
        try:
            old = files.read_bytes(path) if files.exists(path) else b""
            mode = files.stat(path).mode if files.exists(path) else 0o100666
            files.write_file(path, old[:size].ljust(size, b"\0"), mode)
        except FsError as exc:
            inv.err(f"truncate: {operand}: {exc.message}\n")
            status = 1
    return status


def base64(inv: Invocation) -> int:
    parsed = split_flags(inv, "diw")
    if parsed is None:
        return 1
    flags, operands = parsed
    data, status = read_inputs(inv, operands[:1])
    if "d" in flags:
        try:
            inv.out(b64.b64decode(b"".join(data.split()), validate=True))
        except (binascii.Error, ValueError):
            return inv.fail("bad input")
        return status
    encoded = b64.b64encode(data).decode()
    lines = [encoded[i : i + 76] for i in range(0, len(encoded), 76)]
    inv.out("".join(line + "\n" for line in lines))
    return status


def cmp(inv: Invocation) -> int:
    parsed = split_flags(inv, "ls")
    if parsed is None:
        return 1
    flags, operands = parsed
    if len(operands) != 2:
        return inv.fail("Need 2 arguments")
    contents = []
    for operand in operands:
        try:
            with open_input(inv.shell, operand) as handle:
                contents.append(handle.read())
        except FsError as exc:
            if "s" not in flags:
                inv.err(f"cmp: {operand}: {exc.message}\n")
            return 2
    first, second = contents
    for index, (a, b) in enumerate(zip(first, second, strict=False)):
        if a != b:
            if "s" not in flags:
                line = first[:index].count(b"\n") + 1
                inv.out(f"{operands[0]} {operands[1]} differ: char {index + 1}, line {line}\n")
            return 1
    if len(first) != len(second):
        if "s" not in flags:
            shorter = operands[0] if len(first) < len(second) else operands[1]
            inv.err(f"cmp: EOF on {shorter}\n")
        return 1
    return 0


def timeout(inv: Invocation) -> int:
    """timeout [-s SIG] SECONDS COMMAND…: 124 when the limit cut the command short."""
    args = list(inv.args)
    while args and args[0] in ("-s", "-k") and len(args) > 1:
        args = args[2:]
    if len(args) < 2:
        return inv.fail("Need 2 arguments")
    try:
        limit = float(args[0].rstrip("s"))
    except ValueError:
        return inv.fail(f"bad timeout '{args[0]}'")
    deadline = time.monotonic() + limit
    shell = inv.shell
    outer = shell.outer_cancelled
    expired = False

    def cancelled() -> bool:
        nonlocal expired
        expired = expired or time.monotonic() >= deadline
        return expired or outer()

    sub = shell.subshell()
    sub.outer_cancelled = cancelled
    status = sub.execute(args[1:], Streams(inv.streams.stdin, inv.streams.stdout,
                                           inv.streams.stderr))  # fmt: skip
    return 124 if expired else status


def nproc(inv: Invocation) -> int:
    inv.out(f"{CPU_COUNT}\n")
    return 0


def yes(inv: Invocation) -> int:
    line = (" ".join(inv.args) or "y").encode() + b"\n"
    block = line * max(1, 8192 // len(line))
    written = 0
    while not inv.cancelled and written < MAX_YES_BYTES:
        inv.out(block)
        written += len(block)
    return 0


def getenforce(inv: Invocation) -> int:
    inv.out("Enforcing\n")  # SELinux itself is not simulated: nothing is ever denied
    return 0


COMMANDS: dict[str, CommandFn] = {
    "which": which,
    "seq": seq,
    "tee": tee,
    "uniq": uniq,
    "mktemp": mktemp,
    "sync": sync,
    "truncate": truncate,
    "base64": base64,
    "cmp": cmp,
    "timeout": timeout,
    "nproc": nproc,
    "yes": yes,
    "getenforce": getenforce,
}
