"""`adbwire reverse`: adb's reverse forwards (a device port relayed to a host port).

A reverse forward is a listener on the device: each connection to it arrives at the host as
a stream the *device* opens (an OPEN packet from adbd, through adb's server). adbwire's wire
layer opens streams but does not yet accept ones a device opens, and has no background
server to keep a listener between commands, so there is no relay yet: `--list` lists
nothing (and says why), `--remove`/`--remove-all` have nothing to remove, and
`reverse REMOTE LOCAL` explains instead of pretending to work.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from adbwire.cli.terminal_text import visible
from adbwire.errors import UsageError
from adbwire.wire.services.forward import check_remote, parse_local

NOT_YET = (
    "adbwire cannot relay reverse forwards yet: it does not accept streams the device opens "
    "(docs/cli.md, reverse)"
)
NOTHING_KEPT = (
    "adbwire: no reverse forwards: adbwire has no background server, and runs none itself yet"
)


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "reverse",
        help="reverse socket connections from the device (not relayed yet: see --help)",
        description="adb's reverse forwards: REMOTE (on the device: tcp:PORT, "
        "localabstract:NAME, ...) to LOCAL (tcp:PORT on this host). " + NOT_YET + ".",
    )
    parser.add_argument("remote", nargs="?", metavar="REMOTE")
    parser.add_argument("local", nargs="?", metavar="LOCAL")
    actions = parser.add_mutually_exclusive_group()
    actions.add_argument("--list", action="store_true", help="list reverse forwards (none)")
    actions.add_argument("--remove", metavar="REMOTE", help="remove a reverse forward")
    actions.add_argument("--remove-all", action="store_true", help="remove them all")
    actions.add_argument("--no-rebind", action="store_true", help="as adb (no effect)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.list:
        if args.remote or args.local:
            raise UsageError("reverse --list takes no other argument")
        print(NOTHING_KEPT, file=sys.stderr)
        return 0
    if args.remove_all:
        print(NOTHING_KEPT, file=sys.stderr)
        return 0
    if args.remove is not None:
        print(f"adbwire: error: listener '{visible(args.remove)}' not found", file=sys.stderr)
        print(NOTHING_KEPT, file=sys.stderr)
        return 1
    if not args.remote or not args.local:
        raise UsageError("usage: adbwire reverse REMOTE LOCAL, e.g. tcp:8081 tcp:8081")
    check_remote(args.remote)  # the same forms as forward's REMOTE
    parse_local(args.local)
    print(f"adbwire: error: {NOT_YET}", file=sys.stderr)
    return 1
