"""`adbwire forward LOCAL REMOTE`: forward a host port to a device service, in the
foreground until interrupted (Ctrl-C) or until the device goes away.

adb keeps forwards in its server, so `adb forward` returns at once and `--list` /
`--remove` manage them later. adbwire has no server: the forward lives as long as this
command runs, so there is nothing for `--list` or `--remove` to find in another process;
they are refused with that explanation. The listener is on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from adbwire.cli import targets
from adbwire.errors import UsageError
from adbwire.wire.services.forward import check_remote, parse_local

NO_SERVER = (
    "adbwire has no background server: a forward lives only while `adbwire forward LOCAL "
    "REMOTE` runs in the foreground; stop it with Ctrl-C"
)


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "forward",
        help="forward a host port to the device (foreground)",
        description=(
            "Listen on 127.0.0.1:PORT and relay each connection to a device service, until "
            "interrupted. LOCAL: tcp:PORT (tcp:0 picks a free port and prints it). REMOTE: "
            "tcp:PORT, localabstract:NAME, localreserved:NAME, localfilesystem:PATH or "
            "jdwp:PID."
        ),
    )
    parser.add_argument("local", nargs="?", metavar="LOCAL")
    parser.add_argument("remote", nargs="?", metavar="REMOTE")
    parser.add_argument("--list", action="store_true", help="(refused: see the description)")
    parser.add_argument("--remove", metavar="LOCAL", help="(refused: see the description)")
    parser.add_argument("--remove-all", action="store_true", help="(refused)")
    parser.add_argument(
        "--max-connections",
        type=int,
        default=64,
        metavar="N",
        help="clients relayed at once; more are turned away (default: 64)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.list or args.remove or args.remove_all:
        raise UsageError(NO_SERVER)
    if not args.local or not args.remote:
        raise UsageError("usage: adbwire forward LOCAL REMOTE, e.g. tcp:8080 tcp:8080")
    parse_local(args.local)
    check_remote(args.remote)
    with (
        targets.connect(args) as client,
        client.port_forwarder(
            max_connections=args.max_connections, open_timeout=args.timeout
        ) as forwarder,
    ):
        forward = forwarder.forward(args.local, args.remote)
        if parse_local(args.local) == 0:
            print(forward.port, flush=True)  # as adb prints the port it picked
        print(
            f"adbwire: forwarding 127.0.0.1:{forward.port} -> {forward.remote} (Ctrl-C to stop)",
            file=sys.stderr,
            flush=True,
        )
        forwarder.wait()
        if forward.error is not None:
            raise forward.error
    return 0
