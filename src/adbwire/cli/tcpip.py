"""`adbwire tcpip PORT` and `adbwire usb`: restart adbd listening on TCP PORT, or on USB
only, like adb. The connection drops as adbd restarts; connect again with
`-s HOST:PORT` (for tcpip), or over USB.
"""

from __future__ import annotations

import argparse
from typing import Any

from adbwire.cli import targets
from adbwire.cli.terminal_text import visible


def register(commands: Any) -> None:
    tcpip: argparse.ArgumentParser = commands.add_parser(
        "tcpip",
        help="restart adbd listening on TCP PORT",
        description="Restart adbd listening on TCP PORT (the connection drops).",
    )
    tcpip.add_argument("port", type=parse_port, metavar="PORT")
    tcpip.set_defaults(handler=run_tcpip)
    usb: argparse.ArgumentParser = commands.add_parser(
        "usb",
        help="restart adbd listening on USB only",
        description="Restart adbd listening on USB only (a TCP connection is lost).",
    )
    usb.set_defaults(handler=run_usb)


def parse_port(text: str) -> int:
    if not text.isdigit() or not 0 < int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"invalid port: {text}")
    return int(text)


def run_tcpip(args: argparse.Namespace) -> int:
    with targets.connect(args) as client:
        result = client.tcpip(args.port, timeout=args.timeout)
    print(visible(result.message.rstrip(), multiline=True))
    return 0


def run_usb(args: argparse.Namespace) -> int:
    with targets.connect(args) as client:
        result = client.usb(timeout=args.timeout)
    print(visible(result.message.rstrip(), multiline=True))
    return 0
