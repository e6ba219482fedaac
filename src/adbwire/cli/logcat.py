"""`adbwire logcat [ARGS...]`: the device's log, streamed until Ctrl-C or logcat ends.

As `adb logcat`: the arguments go to the device's logcat unchanged (each one quoted, so
`-d`, `-c`, `-b BUFFER`, `-v FORMAT` and filterspecs like `ActivityManager:I *:S` arrive as
typed), $ANDROID_LOG_TAGS is passed on, and the exit status is logcat's. No deadline: it
runs for as long as the device sends.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from adbwire.cli import targets
from adbwire.wire import shell_quote
from adbwire.wire.services.shell import Channel


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "logcat",
        help="show the device log (logcat --help for its options)",
        description="Run the device's logcat with ARGS (e.g. -d, -c, -b main, -v time, "
        "'*:W'); streams until Ctrl-C or logcat ends, and exits with logcat's status.",
        epilog="`adbwire logcat --help` shows this; `adbwire logcat -h`, logcat's own help.",
        prefix_chars="\0",  # every argument is logcat's (adb passes them all)
        add_help=False,
    )
    parser.add_argument("logcat_args", nargs="*", metavar="ARGS")
    parser.set_defaults(handler=run, logcat_parser=parser)


def command_line(arguments: list[str], log_tags: str | None) -> str:
    """The device command line, as adb builds it (the tags exported first when set)."""
    logcat = shell_quote.join(["exec", "logcat", *arguments])
    if log_tags is None:
        return logcat
    return f"export ANDROID_LOG_TAGS={shell_quote.quote(log_tags)}; {logcat}"


def run(args: argparse.Namespace) -> int:
    if args.logcat_args == ["--help"]:
        args.logcat_parser.print_help()
        return 0
    command = command_line(list(args.logcat_args), os.environ.get("ANDROID_LOG_TAGS"))
    with (
        targets.connect(args) as client,
        client.start_shell(command, timeout=args.timeout) as process,
    ):
        process.close_stdin()
        stdout, stderr = sys.stdout.buffer, sys.stderr.buffer
        for channel, data in process.output(None):
            sink = stdout if channel is Channel.STDOUT else stderr
            sink.write(data)
            sink.flush()
        if not process.v2:
            stdout.write(process.leftover_v1)
            stdout.flush()
    return 0 if process.exit_code is None else process.exit_code
