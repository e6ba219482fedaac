"""`adbwire reverse REMOTE LOCAL`: a device port relayed to a host port, in the foreground
until interrupted (Ctrl-C) or until the device goes away.

adbd keeps the listener (the device asks the host to open a stream for each connection
made to it), and drops it when the connection that made it ends. adb's server holds that
connection open after `adb reverse` returns; adbwire has no server, so the listener lives
as long as this command runs. `--list`, `--remove` and `--remove-all` ask the device, as
adb does: they see (and remove) the listeners of every connection, including those of an
`adbwire reverse` still running in another terminal.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from adbwire.cli import targets
from adbwire.errors import UsageError
from adbwire.wire.services.reverse import (
    DEFAULT_MAX_STREAMS,
    check_reverse_local,
    check_reverse_remote,
)


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "reverse",
        help="relay a device port to a host port (foreground)",
        description=(
            "Have the device listen on REMOTE and relay each connection made to it there to "
            "LOCAL on this host, until interrupted. REMOTE: tcp:PORT (tcp:0 lets the device "
            "pick one and prints it). LOCAL: tcp:PORT, reached on 127.0.0.1. --list, --remove "
            "and --remove-all ask the device about its reverse listeners."
        ),
    )
    parser.add_argument("remote", nargs="?", metavar="REMOTE")
    parser.add_argument("local", nargs="?", metavar="LOCAL")
    actions = parser.add_mutually_exclusive_group()
    actions.add_argument("--list", action="store_true", help="list the device's reverse sockets")
    actions.add_argument("--remove", metavar="REMOTE", help="remove one reverse socket")
    actions.add_argument("--remove-all", action="store_true", help="remove every reverse socket")
    parser.add_argument(
        "--no-rebind", action="store_true", help="fail if REMOTE is already reversed"
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=DEFAULT_MAX_STREAMS,
        metavar="N",
        help="device connections relayed at once; more are refused (default: %(default)s)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.max_connections < 1:
        raise UsageError(f"--max-connections {args.max_connections}: must be at least 1")
    managing = args.list or args.remove is not None or args.remove_all
    if managing and (args.remote or args.local):
        raise UsageError("reverse --list/--remove/--remove-all take no REMOTE LOCAL")
    if not managing:
        if not args.remote or not args.local:
            raise UsageError("usage: adbwire reverse REMOTE LOCAL, e.g. tcp:8081 tcp:8081")
        check_reverse_remote(args.remote)
        check_reverse_local(args.local)
    with (
        targets.connect(args) as client,
        client.reverse_forwarder(
            max_streams=args.max_connections, timeout=args.timeout
        ) as reverser,
    ):
        if args.list:
            # As adb: one `TRANSPORT REMOTE LOCAL` line each, then an empty line.
            for entry in reverser.list_reverses():
                print(f"{entry.transport} {entry.remote} {entry.local}")
            print()
            return 0
        if args.remove_all:
            reverser.remove_all()
            return 0
        if args.remove is not None:
            reverser.remove(args.remove)
            return 0
        remote = reverser.reverse(args.remote, args.local, rebind=not args.no_rebind)
        if remote != args.remote:
            print(remote.removeprefix("tcp:"), flush=True)  # as adb prints the port it got
        print(
            f"adbwire: reversing device {remote} -> 127.0.0.1:{args.local.removeprefix('tcp:')} "
            "(Ctrl-C to stop)",
            file=sys.stderr,
            flush=True,
        )
        reverser.wait()
        failure = client.failure
        if failure is not None:
            raise failure
    return 0
