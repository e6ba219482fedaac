"""`adbwire root` / `adbwire unroot`: restart adbd with or without root, like adb.

adbd restarts and the connection drops; adbwire then reconnects (for at most --wait
seconds) and checks the new uid with `id -u`. The exit status is 0 when adbd ends up as
asked, 1 otherwise (adb exits 0 even when a production build refuses root).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from adbwire.cli import targets
from adbwire.cli.terminal_text import visible
from adbwire.errors import DeviceCommandError
from adbwire.wire.connection import Connection
from adbwire.wire.services import control
from adbwire.wire.services.reconnect import ConnectionFactory


def register(commands: Any) -> None:
    for name, wanted, summary in (
        ("root", True, "restart adbd with root permissions"),
        ("unroot", False, "restart adbd without root permissions"),
    ):
        parser: argparse.ArgumentParser = commands.add_parser(
            name, help=summary, description=f"{summary[0].upper()}{summary[1:]}."
        )
        parser.add_argument(
            "--wait",
            type=float,
            default=30.0,
            metavar="SECONDS",
            help="how long to wait for adbd to come back (default: 30)",
        )
        parser.add_argument(
            "--no-reconnect",
            action="store_true",
            help="do not wait for adbd to come back (like adb with a transport id)",
        )
        parser.set_defaults(handler=run, wanted_root=wanted)


def reconnect_factory(args: argparse.Namespace) -> ConnectionFactory:
    """Connect again the way the first connection was made."""

    def connect() -> Connection:
        return targets.connect(args).connection

    return connect


def run(args: argparse.Namespace) -> int:
    wanted: bool = args.wanted_root
    action = control.root if wanted else control.unroot
    factory = None if args.no_reconnect else reconnect_factory(args)
    with targets.connect(args) as client:
        result = action(
            client.connection, reconnect_with=factory, wait=args.wait, timeout=args.timeout
        )
    print(visible(result.message.rstrip(), multiline=True))
    if result.connection is not None:
        result.connection.close()
    if result.is_root is None:
        return 0
    if result.is_root != wanted:
        state = "as root" if result.is_root else "without root"
        raise DeviceCommandError(f"adbd came back {state}")
    if result.connection is not None:
        runs_as = "as root" if result.is_root else "without root (as the shell user)"
        print(f"adbwire: reconnected; adbd now runs {runs_as}", file=sys.stderr)
    return 0
