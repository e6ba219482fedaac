"""The shell's special built-ins: cd, exit, export, unset, eval, exec, shift, read, `:`.

They change the shell itself (its directory, variables, positional parameters), so they run
inside it rather than as device commands.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.process import Streams

if TYPE_CHECKING:
    from adbwire.testing.userland.shell.interp import Shell

SHELL_PATH = "/system/bin/sh"


class ExitShell(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _cd(shell: Shell, argv: list[str], streams: Streams) -> int:
    target = shell.resolve(argv[1] if len(argv) > 1 else shell.vars.get("HOME", "/"))
    try:
        stat = shell.host.files.stat(target)
    except FsError as exc:
        streams.stderr.write(f"{SHELL_PATH}: cd: {target}: {exc.message}\n".encode())
        return 2
    if stat.mode & 0o170000 != 0o040000:
        streams.stderr.write(f"{SHELL_PATH}: cd: {target}: Not a directory\n".encode())
        return 2
    shell.cwd = target
    return 0


def _exit(shell: Shell, argv: list[str], streams: Streams) -> int:
    code = shell.last_status
    if len(argv) > 1:
        try:
            code = int(argv[1]) & 0xFF
        except ValueError:
            streams.stderr.write(f"{SHELL_PATH}: exit: {argv[1]}: bad number\n".encode())
            code = 1
    raise ExitShell(code)


def _export(shell: Shell, argv: list[str], streams: Streams) -> int:
    for arg in argv[1:]:
        if "=" in arg:
            name, value = arg.split("=", 1)
            shell.vars[name] = value
    return 0


def _unset(shell: Shell, argv: list[str], streams: Streams) -> int:
    for name in argv[1:]:
        shell.vars.pop(name, None)
    return 0


def _eval(shell: Shell, argv: list[str], streams: Streams) -> int:
    return shell.run_source(" ".join(argv[1:]), streams)


def _exec(shell: Shell, argv: list[str], streams: Streams) -> int:
    if len(argv) == 1:
        return 0
    raise ExitShell(shell.execute(argv[1:], streams))


def _shift(shell: Shell, argv: list[str], streams: Streams) -> int:
    count = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 1
    shell.set_positional(shell.positional[count:])
    return 0


def _read(shell: Shell, argv: list[str], streams: Streams) -> int:
    names = [arg for arg in argv[1:] if not arg.startswith("-")] or ["REPLY"]
    line = bytearray()
    while True:
        byte = streams.stdin.read(1)
        if not byte or byte == b"\n":
            break
        line += byte
    fields = line.decode("utf-8", "replace").split(None, len(names) - 1)
    for index, name in enumerate(names):
        shell.vars[name] = fields[index] if index < len(fields) else ""
    return 0 if line or byte else 1


def _colon(shell: Shell, argv: list[str], streams: Streams) -> int:
    return 0


SHELL_BUILTINS: dict[str, Callable[[Shell, list[str], Streams], int]] = {
    "cd": _cd,
    "exit": _exit,
    "export": _export,
    "unset": _unset,
    "eval": _eval,
    "exec": _exec,
    "shift": _shift,
    "read": _read,
    ":": _colon,
}
