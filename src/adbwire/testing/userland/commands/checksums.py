"""Toybox md5sum, sha1sum, sha224sum, sha256sum, sha384sum, sha512sum (with -b and -c)."""

from __future__ import annotations

import hashlib

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.commands.files import split_flags
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from adbwire.testing.userland.special_files import open_input

_ALGORITHMS = {
    "md5sum": "md5",
    "sha1sum": "sha1",
    "sha224sum": "sha224",
    "sha256sum": "sha256",
    "sha384sum": "sha384",
    "sha512sum": "sha512",
}
_CHUNK = 1 << 20


def _digest(inv: Invocation, operand: str) -> str:
    digest = hashlib.new(_ALGORITHMS[inv.name])
    if operand == "-":
        while chunk := inv.streams.stdin.read(_CHUNK):
            digest.update(chunk)
    else:
        with open_input(inv.shell, operand) as handle:
            while not inv.cancelled and (chunk := handle.read(_CHUNK)):
                digest.update(chunk)
    return digest.hexdigest()


def _check(inv: Invocation, operands: list[str]) -> int:
    """-c: each input holds "HASH  FILE" lines; print "FILE: OK" or "FILE: FAILED"."""
    status = 0
    for operand in operands or ["-"]:
        try:
            with open_input(inv.shell, operand) if operand != "-" else _stdin(inv) as handle:
                listing = handle.read().decode("utf-8", "replace")
        except FsError as exc:
            inv.err(f"{inv.name}: {operand}: {exc.message}\n")
            status = 1
            continue
        for line in listing.splitlines():
            expected, _, name = line.partition("  ")
            if not name:
                continue
            try:
                ok = _digest(inv, name) == expected.strip().lower()
            except FsError as exc:
                inv.err(f"{inv.name}: {name}: {exc.message}\n")
                ok = False
            inv.out(f"{name}: {'OK' if ok else 'FAILED'}\n")
            status |= 0 if ok else 1
    return status


class _stdin:  # used like open()
    def __init__(self, inv: Invocation) -> None:
        self._data = inv.read_stdin()

    def __enter__(self) -> _stdin:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def read(self) -> bytes:
        return self._data


def checksum(inv: Invocation) -> int:
    parsed = split_flags(inv, "bc")
    if parsed is None:
        return 1
    flags, operands = parsed
    if "c" in flags:
        return _check(inv, operands)
    status = 0
    for operand in operands or ["-"]:
        try:
            value = _digest(inv, operand)
        except FsError as exc:
            inv.err(f"{inv.name}: {operand}: {exc.message}\n")
            status = 1
            continue
        inv.out(f"{value}\n" if "b" in flags else f"{value}  {operand}\n")
    return status


COMMANDS: dict[str, CommandFn] = dict.fromkeys(_ALGORITHMS, checksum)
