"""Running a device command: found by name (or by a path in a bin directory), run as a
child process of the shell in the device's process table (so `ps` shows it), its status
128+N when a signal ended it. The few mksh runs itself (`echo`, `true`, `false`) run in
the shell, with no process of their own, unless named by a path."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.process import SIGPIPE_STATUS, BrokenPipe, Streams
from adbwire.testing.userland.shell.builtins import MKSH_BUILTIN_NAMES, SHELL_PATH
from adbwire.testing.userland.shell.invocation import Invocation

if TYPE_CHECKING:
    from adbwire.testing.userland.shell.interp import Shell

__all__ = ["BIN_DIRS", "IN_SHELL", "run_device_command", "run_in_shell"]

BIN_DIRS = ("/system/bin", "/bin", "/system/xbin", "/vendor/bin", "/product/bin", "/system_ext/bin")
IN_SHELL = frozenset(("echo", "true", "false"))
"""mksh built-ins whose device command does what the built-in does (`printf` is not in
builtins.py's list of mksh's; `test` and `[` have their own, testexpr.py)."""


def run_in_shell(shell: Shell, argv: list[str], streams: Streams) -> int:
    """One of IN_SHELL, by its bare name: the device's command run as mksh runs its
    built-in, inside the shell (no process for `ps`, no pid used)."""
    command = shell.host.lookup(argv[0])
    if command is None:
        return run_device_command(shell, argv, streams)
    try:
        return command(Invocation(argv, streams, shell))
    except BrokenPipe:  # the same status as the command's own process would have had
        return SIGPIPE_STATUS


def run_device_command(shell: Shell, argv: list[str], streams: Streams) -> int:
    """Run a command that is not a shell built-in, or say it is not found (127)."""
    name = argv[0]
    lookup_name = name
    if "/" in name:
        directory, base = posixpath.split(name)
        lookup_name = base if directory in BIN_DIRS else ""
    command = shell.host.lookup(lookup_name) if lookup_name else None
    if command is None:
        streams.stderr.write(f"{SHELL_PATH}: {name}: inaccessible or not found\n".encode())
        return 127
    if "/" not in name and name not in MKSH_BUILTIN_NAMES:  # `hash`, `alias -t` list it
        shell.tracked.setdefault(name, f"/system/bin/{name}")
    table = shell.host.processes
    child = table.spawn(argv, ppid=shell.pid, uid=shell.host.user_id(),
                        session=shell.process.session if shell.process else 0)  # fmt: skip
    outer_child, shell.child = shell.child, child
    try:
        status = command(Invocation(argv, streams, shell))
    except BrokenPipe:  # SIGPIPE ends the command, not the shell that ran it
        status = SIGPIPE_STATUS
    except FsError as exc:  # a file error the command did not report itself
        streams.stderr.write(f"{posixpath.basename(name)}: {exc.path}: {exc.message}\n".encode())
        status = 1
    finally:
        shell.child = outer_child
        table.reap(child)
    return 128 + child.pending_signal if child.pending_signal else status
