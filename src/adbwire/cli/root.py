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


def run(args: argparse.Namespace) -> int:
    wanted: bool = args.wanted_root
    with targets.connect(args) as client:
        client.reconnect = lambda: targets.connect(args)  # again the way the first was made
        action = client.root if wanted else client.unroot
        result = action(wait=args.wait, reconnect=not args.no_reconnect, timeout=args.timeout)
    print(visible(result.message.rstrip(), multiline=True))
    if result.is_root is None:
        return 0
    if result.is_root != wanted:
        state = "as root" if result.is_root else "without root"
        raise DeviceCommandError(f"adbd came back {state}")
    if result.connection is not None:
        runs_as = "as root" if result.is_root else "without root (as the shell user)"
        print(f"adbwire: reconnected; adbd now runs {runs_as}", file=sys.stderr)
    return 0
