"""`adbwire shell [-n] [-Tt] [-x] [COMMAND...]`: run a command as `adb shell` does.

Like adb, the words are joined with spaces and the device's shell parses them, the command
runs for as long as it runs (`--timeout SECONDS` sets a deadline), stdout and stderr stay
apart and the exit status is the command's (shell_v2). Piped stdin is forwarded (not with
-n); with no command on a terminal it opens an interactive session. On devices without
shell_v2 the legacy `shell:` service is used (see legacy_shell.py).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import threading
from typing import TYPE_CHECKING, Any

from adbwire.cli import targets
from adbwire.errors import AdbwireError, UsageError
from adbwire.wire.services.shell import EXIT_STATUS_UNKNOWN, Channel, ShellProcess
from adbwire.wire.timeouts import Deadline

if TYPE_CHECKING:  # a terminal session, -x and devices without shell_v2 load them (#20)
    from adbwire.cli.legacy_shell import RawShell
    from adbwire.wire.client import AdbClient

NO_LOCAL_TTY_WARNING = (
    "Remote PTY will not be allocated because stdin is not a terminal.\n"
    "Use multiple -t options to force remote PTY allocation."
)
"""adb's own words for `-t` without a local terminal (the outcome changes: no pty)."""


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "shell",
        help="run a shell command on the device (interactive shell with no command)",
        description="Run a command on the device and exit with its exit status; with no "
        "command, an interactive shell. The command runs until it ends unless --timeout.",
    )
    parser.add_argument(
        "-e",
        dest="escape",
        metavar="ESCAPE",
        help="accepted for adb's scripts; adbwire has no escape character (as '-e none')",
    )
    parser.add_argument("-n", dest="no_stdin", action="store_true", help="don't read from stdin")
    parser.add_argument("-T", dest="no_pty", action="store_true", help="disable pty allocation")
    parser.add_argument(
        "-t",
        dest="pty",
        action="count",
        default=0,
        help="allocate a pty if on a tty (-tt: force pty allocation)",
    )
    parser.add_argument(
        "-x",
        dest="no_shell_protocol",
        action="store_true",
        help="disable remote exit codes and stdout/stderr separation",
    )
    parser.add_argument(
        "--timeout",
        dest="shell_timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop the command after SECONDS (default: no deadline, as adb)",
    )
    parser.add_argument("words", nargs=argparse.REMAINDER, metavar="COMMAND")
    parser.set_defaults(handler=run)


def _wants_pty(args: argparse.Namespace, command: str, stdin_tty: bool) -> bool:
    """adb's rule: -T never, -tt always, -t on a terminal, else only for an interactive shell."""
    if args.no_pty:
        return False
    if args.pty >= 2:
        return True
    if args.pty == 1:
        if not stdin_tty:
            print(NO_LOCAL_TTY_WARNING, file=sys.stderr)
        return stdin_tty
    return not command and stdin_tty


def run(args: argparse.Namespace) -> int:
    words = args.words[1:] if args.words[:1] == ["--"] else args.words
    command = " ".join(words)
    seconds = args.shell_timeout
    if seconds is not None and (math.isnan(seconds) or seconds <= 0):
        raise UsageError("shell --timeout must be a positive number of seconds")
    stdin_tty = not args.no_stdin and sys.stdin.isatty()
    pty = _wants_pty(args, command, stdin_tty)
    deadline = Deadline(seconds, f"shell {command!r}")
    with targets.connect(args) as client:
        shell_protocol = not args.no_shell_protocol and "shell_v2" in client.features
        if pty and stdin_tty:
            from adbwire.cli.interactive import run_interactive  # noqa: PLC0415

            return run_interactive(client, command, shell_protocol=shell_protocol)
        if args.no_shell_protocol:
            return _run_raw(client, args, command, pty, deadline)
        if not shell_protocol:
            return _run_legacy(client, args, command, deadline)
        return _run_v2(client, args, command, pty, deadline)


def _run_v2(
    client: AdbClient, args: argparse.Namespace, command: str, pty: bool, deadline: Deadline
) -> int:
    # As adb: stdin goes to the command, typed lines too (Ctrl-D ends them); with no command
    # and no terminal, the device's shell reads its commands from it.
    forward_stdin = not args.no_stdin
    with client.start_shell(command, pty=pty, timeout=args.timeout) as process:
        pump = _start_stdin_pump(process, sys.stdin.fileno()) if forward_stdin else None
        if pump is None:
            process.close_stdin(deadline)
        _copy_output(process, deadline)
    return 0 if process.exit_code is None else process.exit_code


def _run_legacy(
    client: AdbClient, args: argparse.Namespace, command: str, deadline: Deadline
) -> int:
    """No shell_v2: the exit status comes from a sentinel the wrapped command line prints."""
    from adbwire.cli.legacy_shell import RawShell, start_key_pump  # noqa: PLC0415

    if not command:
        if args.no_stdin or sys.stdin.isatty():
            raise UsageError("give a command, or run on a terminal for an interactive shell")
        with RawShell(client, "shell:", args.timeout) as shell:
            start_key_pump(shell, sys.stdin.fileno())  # commands for the device's shell
            _copy_raw(shell, deadline)
        return 0
    if not args.no_stdin and not sys.stdin.isatty():
        command = _reading_piped_input(client, command, args.timeout)
    with client.start_shell(command, timeout=args.timeout) as process:
        _copy_output(process, deadline)
        sys.stdout.buffer.write(process.leftover_v1)
        sys.stdout.buffer.flush()
    if process.exit_code == EXIT_STATUS_UNKNOWN:  # a replayed capture without one: as adb, 0
        return 0
    return 0 if process.exit_code is None else process.exit_code


def _run_raw(
    client: AdbClient, args: argparse.Namespace, command: str, pty: bool, deadline: Deadline
) -> int:
    """-x: the `shell:` service as is: output merged, no exit status (0, as adb)."""
    from adbwire.cli.legacy_shell import RawShell, start_key_pump  # noqa: PLC0415

    piped = not args.no_stdin and not sys.stdin.isatty()
    if piped and command:
        command = _reading_piped_input(client, command, args.timeout)
    kind = "pty" if pty else "raw" if args.no_pty else ""
    service = f"shell,{kind}:{command}" if kind else f"shell:{command}"
    with RawShell(client, service, args.timeout) as shell:
        if piped and not command:
            start_key_pump(shell, sys.stdin.fileno())
        _copy_raw(shell, deadline)
    return 0


def _reading_piped_input(client: AdbClient, command: str, timeout: float | None) -> str:
    """`command` reading our piped stdin, spooled to the device (unchanged when it is empty)."""
    from adbwire.cli.legacy_shell import piped_input, reading_from, spool_stdin  # noqa: PLC0415

    source = piped_input(sys.stdin.fileno())
    if source is None:
        return command
    return reading_from(spool_stdin(client, source, timeout), command)


def _copy_output(process: ShellProcess, deadline: Deadline) -> None:
    stdout = sys.stdout.buffer
    stderr = sys.stderr.buffer
    for channel, data in process.output(deadline):
        sink = stdout if channel is Channel.STDOUT else stderr
        sink.write(data)
        sink.flush()


def _copy_raw(shell: RawShell, deadline: Deadline) -> None:
    stdout = sys.stdout.buffer
    for data in shell.output(deadline):
        stdout.write(data)
        stdout.flush()


def _start_stdin_pump(process: ShellProcess, stdin_fd: int) -> threading.Thread:
    # os.read on the descriptor, not sys.stdin.buffer: this thread may still be blocked in a
    # read when the command ends, and a daemon thread holding the BufferedReader's lock makes
    # the interpreter abort at exit ("could not acquire lock for <stdin>").
    def pump() -> None:
        try:
            while chunk := os.read(stdin_fd, 64 * 1024):
                process.write_stdin(chunk)
            process.close_stdin()
        except (AdbwireError, OSError, ValueError):
            pass  # the command ended or the stream closed; output reading reports why

    thread = threading.Thread(target=pump, name="adbwire-stdin", daemon=True)
    thread.start()
    return thread
