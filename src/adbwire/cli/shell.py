"""`adbwire shell CMD...`: run a command, stream stdout and stderr apart, exit with its status.

Like `adb shell`, the words are joined with spaces and the device's shell parses them, so
`adbwire shell 'ls /sdcard | wc -l'` runs a pipeline on the device. Piped stdin is
forwarded (not with -n). With no command on a terminal it opens an interactive session.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from typing import Any

from adbwire.cli import targets
from adbwire.cli.interactive import run_interactive
from adbwire.errors import AdbwireError, UsageError
from adbwire.wire.services.shell import Channel, ShellProcess
from adbwire.wire.timeouts import Deadline


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "shell",
        help="run a shell command on the device",
        description="Run a command on the device; exits with the command's exit status.",
    )
    parser.add_argument(
        "-n", dest="no_stdin", action="store_true", help="do not forward stdin to the command"
    )
    parser.add_argument(
        "-T",
        "--no-deadline",
        action="store_true",
        help="let the command run until it ends (default: the --timeout deadline applies)",
    )
    parser.add_argument("words", nargs=argparse.REMAINDER, metavar="COMMAND")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    words = args.words[1:] if args.words[:1] == ["--"] else args.words
    if not words:
        if not sys.stdin.isatty():
            raise UsageError("give a command, or run on a terminal for an interactive shell")
        with targets.connect(args) as client:
            return run_interactive(client)
    command = " ".join(words)
    forward_stdin = not args.no_stdin and not sys.stdin.isatty()
    seconds = None if args.no_deadline else args.timeout
    stdout = sys.stdout.buffer
    stderr = sys.stderr.buffer
    with targets.connect(args) as client:
        deadline = Deadline(seconds, f"shell {command!r}")
        with client.start_shell(command, timeout=args.timeout) as process:
            pump = _start_stdin_pump(process, sys.stdin.fileno()) if forward_stdin else None
            if pump is None:
                process.close_stdin(deadline)
            for channel, data in process.output(deadline):
                sink = stdout if channel is Channel.STDOUT else stderr
                sink.write(data)
                sink.flush()
            if not process.v2:
                stdout.write(process.leftover_v1)
                stdout.flush()
        exit_code = process.exit_code
    return 0 if exit_code is None else exit_code


def _start_stdin_pump(process: ShellProcess, stdin_fd: int) -> threading.Thread | None:
    if not process.v2:
        print(
            "adbwire: warning: the device lacks shell_v2 (Android < 7): stdin is not forwarded",
            file=sys.stderr,
        )
        return None

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
