"""Streaming install and abb: `exec:cmd package install -S SIZE …` (also `pm install -S`),
`abb_exec:package\\0install\\0…\\0-S\\0SIZE`, and `abb:`/`abb_exec:` for other `cmd` calls.

adb writes exactly SIZE bytes of APK after the OPEN and then reads one status line
("Success" or "Failure [CODE: message]"); the bytes go to the userland's install_apk.
abb_exec is raw like exec:, abb: speaks the shell protocol (daemon/abb.cpp).
"""

from __future__ import annotations

import shlex
import tempfile
from collections.abc import Sequence
from typing import BinaryIO, Final

from adbwire.testing.services.base import ServiceContext, ServiceHandler
from adbwire.testing.services.process_io import RawProcessIO, ShellProtocolIO
from adbwire.testing.services.shell import run_command
from adbwire.testing.stream import DeviceStream

__all__ = ["open_abb", "open_abb_exec", "open_exec_install", "parse_install_args"]

IN_MEMORY_LIMIT: Final = 64 * 1024 * 1024
"""APKs up to this size are handed over as bytes; bigger ones as a temporary file."""


def parse_install_args(args: Sequence[str]) -> tuple[int, list[str]] | None:
    """(size, options) for `[cmd package|pm] install … -S SIZE …`, else None."""
    if list(args[:3]) == ["cmd", "package", "install"]:
        rest = list(args[3:])
    elif list(args[:2]) in (["pm", "install"], ["package", "install"]):
        rest = list(args[2:])
    else:
        return None
    size: int | None = None
    options: list[str] = []
    index = 0
    while index < len(rest):
        if rest[index] == "-S" and index + 1 < len(rest):
            try:
                size = int(rest[index + 1])
            except ValueError:
                return None
            index += 2
            continue
        options.append(rest[index])
        index += 1
    if size is None or size < 0:
        return None
    return size, options


def _install_handler(size: int, options: list[str], context: ServiceContext) -> ServiceHandler:
    userland = context.state.userland
    files = context.state.files

    def serve(stream: DeviceStream) -> None:
        if files.capacity_bytes is not None and size > files.capacity_bytes - files.usage_bytes():
            # The package manager sizes the session from -S before reading a byte; the
            # host is still sending when the answer comes.
            stream.write(b"Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]\n")
            return
        apk: bytes | BinaryIO
        if size <= IN_MEMORY_LIMIT:
            apk = stream.read_exact(size)
            _ok, text = userland.install_apk(apk, size, options)
        else:
            with tempfile.TemporaryFile() as spool:
                stream.read_into(size, spool.write)
                spool.seek(0)
                _ok, text = userland.install_apk(spool, size, options)
        stream.write((text.rstrip("\n") + "\n").encode())

    return serve


def open_exec_install(command: str, context: ServiceContext) -> ServiceHandler | None:
    try:
        args = shlex.split(command)
    except ValueError:
        return None
    parsed = parse_install_args(args)
    if parsed is None:
        return None
    return _install_handler(*parsed, context)


def _cmd_line(args: Sequence[str]) -> str:
    return " ".join(["cmd", *(shlex.quote(arg) for arg in args)])


def _abb_args(spec: str) -> list[str]:
    """`abb:` with nothing after it is `cmd` with no arguments, not `cmd ''`."""
    return spec.split("\0") if spec else []


def open_abb_exec(spec: str, context: ServiceContext) -> ServiceHandler:
    args = _abb_args(spec)
    parsed = parse_install_args(args)
    if parsed is not None:
        return _install_handler(*parsed, context)
    userland = context.state.userland
    command = _cmd_line(args)

    def serve(stream: DeviceStream) -> None:
        run_command(userland, command, RawProcessIO(stream), pty=False)

    return serve


def open_abb(spec: str, context: ServiceContext) -> ServiceHandler:
    userland = context.state.userland
    command = _cmd_line(_abb_args(spec))

    def serve(stream: DeviceStream) -> None:
        io = ShellProtocolIO(stream)
        status = run_command(userland, command, io, pty=False)
        if not stream.cancelled:
            io.exit_and_close(status)

    return serve
