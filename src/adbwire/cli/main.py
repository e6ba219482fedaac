"""Entry point: build the parser from the command modules, run one, map errors to exit codes.

Expected failures (device unreachable, bad argument, refused service) print one line on
stderr and exit non-zero; a traceback is shown only with --debug or ADBWIRE_DEBUG=1.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from adbwire import __version__
from adbwire.cli import (
    bugreport,
    connect,
    demo,
    devices,
    forward,
    import_capture,
    install,
    install_multiple,
    keygen,
    logcat,
    ls,
    mdns,
    pair,
    pull,
    push,
    reboot,
    remount,
    reverse,
    root,
    serve,
    shell,
    simulate,
    state,
    tcpip,
    trace,
    uninstall,
    wait_for,
)
from adbwire.cli.suggest import SuggestingParser
from adbwire.cli.terminal_text import visible
from adbwire.errors import AdbwireError, Fault

EXIT_USAGE = 2
EXIT_FAILURE = 1
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141

COMMANDS = (
    serve,
    demo,
    devices,
    shell,
    push,
    pull,
    ls,
    install,
    install_multiple,
    uninstall,
    forward,
    reverse,
    logcat,
    state,
    wait_for,
    connect,
    remount,
    bugreport,
    reboot,
    root,
    tcpip,
    pair,
    mdns,
    keygen,
    simulate,
    import_capture,
    trace,
)


def build_parser() -> argparse.ArgumentParser:
    parser = SuggestingParser(
        prog="adbwire",
        description="Talk to Android devices over the ADB wire protocol, with no adb binary.",
    )
    parser.add_argument("--version", action="version", version=f"adbwire {__version__}")
    parser.add_argument(
        "-s",
        "--serial",
        metavar="SERIAL",
        default=os.environ.get("ANDROID_SERIAL"),
        help="device to use: USB serial, usb:PORT-PATH or HOST:PORT "
        "(default: $ANDROID_SERIAL, or the only device)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="deadline of one operation; for file transfers, the longest wait for the "
        "device between two steps (default: 30; inf for none)",
    )
    parser.add_argument(
        "--connect-timeout", type=float, default=10.0, metavar="SECONDS", help="default: 10"
    )
    parser.add_argument(
        "--auth-timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how long to wait for 'Allow USB debugging?' to be accepted (default: 60)",
    )
    parser.add_argument(
        "--debug", action="store_true", help="log protocol details, show tracebacks"
    )
    recording = parser.add_argument_group("record and replay (docs/fixtures.md)")
    recording.add_argument(
        "--record", type=Path, metavar="FILE", help="write the device session to FILE"
    )
    recording.add_argument(
        "--replay", type=Path, metavar="FILE", help="replay FILE instead of using a device"
    )
    recording.add_argument(
        "--record-note", default="", metavar="TEXT", help="free text for the recording's header"
    )
    recording.add_argument(
        "--record-origin",
        choices=("real device", "simulated device"),
        default=None,
        help="what the recording says it came from (default: real device)",
    )
    recording.add_argument(
        "--redact-serial",
        nargs="?",
        const=True,
        default=False,
        metavar="SERIAL",
        help="replace the device serial in the recording with X's",
    )
    recording.add_argument(
        "--strict-replay",
        action="store_true",
        help="recorded traffic the command did not use is an error (default: a warning)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMANDS:
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = args.debug or os.environ.get("ADBWIRE_DEBUG") == "1"
    logging.captureWarnings(True)
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)  # see cli/__init__.py
    try:
        code: int = args.handler(args)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader of our output went away (`adbwire shell cat big | head`): stop quietly,
        # as a pipeline expects, and keep Python from complaining when stdout is flushed.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except AdbwireError as exc:
        if debug:
            raise
        # Messages quote device text (names, error output): shown with escapes made visible.
        print(f"adbwire: error: {visible(str(exc), multiline=True)}", file=sys.stderr)
        return EXIT_USAGE if exc.fault is Fault.CALLER else EXIT_FAILURE
    return code


if __name__ == "__main__":
    sys.exit(main())
