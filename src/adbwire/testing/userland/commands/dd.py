"""Toybox dd: if=, of=, bs=, ibs=, obs=, count=, skip=, seek=, conv=notrunc, status=.

The summary on stderr is toybox's: `N+M records in`, `N+M records out`, then
`BYTES bytes (HUMAN) copied, SECONDS s, RATE/s` (status=noxfer drops the last line,
status=none all three). Output is re-blocked to obs, as toybox does.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.process import Reader
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from adbwire.testing.userland.special_files import is_special, open_input

NEW_FILE_MODE = 0o100666
MAX_BLOCK = 64 << 20
_SUFFIXES = {
    "c": 1,
    "w": 2,
    "b": 512,
    "kd": 1000,
    "k": 1024,
    "md": 1000**2,
    "m": 1024**2,
    "gd": 1000**3,
    "g": 1024**3,
}


class _Usage(Exception):
    pass


def parse_size(text: str) -> int:
    """A dd number: digits with an optional c/w/b/kD/k/MD/M/GD/G suffix."""
    match = re.fullmatch(r"(\d+)([a-zA-Z]*)", text)
    if match is None or match.group(2).lower() not in ("", *_SUFFIXES):
        raise _Usage(f"invalid number '{text}'")
    return int(match.group(1)) * _SUFFIXES.get(match.group(2).lower(), 1)


def human_readable(value: float) -> str:
    """toybox's human_readable(HR_SPACE|HR_B): "512 B", "1.2 K", "12 M", with its rounding
    (divide rounding to nearest while over 3 digits; one digit gets a truncated decimal)."""
    number, snap, unit = int(value), 0, 0
    while len(str(number)) > 3 and unit < 6:
        snap = number
        number = (number + 512) // 1024
        unit += 1
    if unit == 0:
        return f"{number} B"
    letter = "KMGTPE"[unit - 1]
    if number < 10:
        whole = snap // 1024
        tenths = ((snap - whole * 1024) * 100 + 50) // 1024 // 10
        return f"{whole}.{tenths} {letter}"
    return f"{number} {letter}"


@dataclass
class _Options:
    source: str | None = None
    target: str | None = None
    ibs: int = 512
    obs: int = 512
    count: int | None = None
    skip: int = 0
    seek: int = 0
    notrunc: bool = False
    records: bool = True
    transfer: bool = True


def _options(args: list[str]) -> _Options:
    opts = _Options()
    for arg in args:
        key, eq, value = arg.partition("=")
        if not eq:
            raise _Usage(f"unknown argument '{arg}'")
        if key == "if":
            opts.source = value
        elif key == "of":
            opts.target = value
        elif key in ("bs", "ibs", "obs"):
            size = parse_size(value)
            if not 0 < size <= MAX_BLOCK:
                raise _Usage(f"{key} out of range")
            opts.ibs = size if key != "obs" else opts.ibs
            opts.obs = size if key != "ibs" else opts.obs
        elif key in ("count", "skip", "seek"):
            setattr(opts, key, parse_size(value))
        elif key == "conv":
            opts.notrunc = "notrunc" in value.split(",")
        elif key == "status":
            if value not in ("noxfer", "none", "progress"):
                raise _Usage(f"unknown status '{value}'")
            opts.transfer = value not in ("noxfer", "none")
            opts.records = value != "none"
        elif key not in ("iflag", "oflag"):
            raise _Usage(f"unknown argument '{arg}'")
    return opts


class _Counters:
    def __init__(self) -> None:
        self.in_full = self.in_part = self.out_full = self.out_part = self.bytes = 0


def _read_block(source: Reader, size: int) -> bytes:
    """One read(2) of up to `size` bytes (a pipe may return less: a partial record)."""
    return source.read(size)


def dd(inv: Invocation) -> int:
    try:
        opts = _options(inv.args)
    except _Usage as exc:
        return inv.fail(str(exc))
    started = time.monotonic()
    counters = _Counters()
    try:
        status = _copy(inv, opts, counters)
    except FsError as exc:  # toybox's xopen/xwrite: the message, no summary
        inv.err(f"dd: {exc.path}: {exc.message}\n")
        return 1
    _summary(inv, opts, counters, time.monotonic() - started)
    return status


def _copy(inv: Invocation, opts: _Options, counters: _Counters) -> int:
    files = inv.device.files
    source: Reader = inv.streams.stdin
    handle = None
    if opts.source is not None:
        try:
            handle = open_input(inv.shell, opts.source)
        except FsError as exc:
            raise FsError(exc.errno_name, exc.message, opts.source) from exc
    if handle is not None:
        source = handle
    try:
        for _ in range(opts.skip):
            if not _read_block(source, opts.ibs):
                break
        if opts.target is not None and not is_special(inv.path(opts.target)):
            write_path = inv.path(opts.target)
            old = b""
            if opts.seek or opts.notrunc:
                try:
                    old = files.read_bytes(write_path)
                except FsError as exc:
                    if exc.errno_name != "ENOENT":
                        raise
            offset = opts.seek * opts.obs
            prefix = old[:offset].ljust(offset, b"\0")
            mode = files.stat(write_path).mode if files.exists(write_path) else NEW_FILE_MODE
            try:
                out_file = files.open_write(write_path, mode)
            except FsError as exc:
                raise FsError(exc.errno_name, exc.message, opts.target) from exc
            with out_file as out:
                out.write(prefix)
                _pump(inv, opts, counters, source, out.write)
                end = len(prefix) + counters.bytes
                if opts.notrunc and len(old) > end:
                    out.write(old[end:])
        elif opts.target is not None:
            _pump(inv, opts, counters, source, lambda data: None)
        else:
            _pump(inv, opts, counters, source, inv.out)
    finally:
        if handle is not None:
            handle.close()
    return 0


def _pump(
    inv: Invocation,
    opts: _Options,
    counters: _Counters,
    source: Reader,
    write: Callable[[bytes], object],
) -> None:
    pending = b""
    blocks = 0
    while not inv.cancelled and (opts.count is None or blocks < opts.count):
        block = _read_block(source, opts.ibs)
        if not block:
            break
        blocks += 1
        if len(block) == opts.ibs:
            counters.in_full += 1
        else:
            counters.in_part += 1
        pending += block
        while len(pending) >= opts.obs:
            write(pending[: opts.obs])
            counters.out_full += 1
            counters.bytes += opts.obs
            pending = pending[opts.obs :]
    if pending:
        write(pending)
        counters.out_part += 1
        counters.bytes += len(pending)


def _summary(inv: Invocation, opts: _Options, counters: _Counters, seconds: float) -> None:
    if opts.records:
        inv.err(
            f"{counters.in_full}+{counters.in_part} records in\n"
            f"{counters.out_full}+{counters.out_part} records out\n"
        )
    if opts.transfer:
        seconds = max(seconds, 1e-6)
        inv.err(
            f"{counters.bytes} bytes ({human_readable(counters.bytes)}) copied, "
            f"{seconds:f} s, {human_readable(counters.bytes / seconds)}/s\n"
        )


COMMANDS: dict[str, CommandFn] = {"dd": dd}
