"""`adbwire mdns services|check`: wireless-debugging devices advertised on the local network,
as `adb mdns services` and `adb mdns check` show them.

`services` listens for `--wait` seconds (default 1.5) and prints each instance: name, service
type, IPv4 address:port (the first address; `--json` gives all of them and the TXT record).
Names come from whoever answers on the network: shown with escapes (terminal_text.visible).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict
from typing import Any, Final

from adbwire.cli.terminal_text import visible
from adbwire.errors import UsageError
from adbwire.wire.mdns.browser import browse, mdns_stack

DEFAULT_WAIT: Final = 1.5


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "mdns",
        help="wireless-debugging devices advertised by mDNS",
        description="Browse the local network for _adb-tls-pairing._tcp, "
        "_adb-tls-connect._tcp and _adb._tcp services (docs/wireless.md).",
    )
    actions = parser.add_subparsers(dest="mdns_command", metavar="ACTION", required=True)
    services = actions.add_parser("services", help="list the advertised instances")
    services.add_argument(
        "--wait",
        type=float,
        default=DEFAULT_WAIT,
        metavar="SECONDS",
        help=f"how long to listen (default: {DEFAULT_WAIT:g})",
    )
    services.add_argument("--json", action="store_true", help="machine-readable output")
    services.set_defaults(handler=run_services)
    check = actions.add_parser("check", help="say whether mDNS discovery works here")
    check.set_defaults(handler=run_check)


def browse_seconds(value: float, option: str) -> float:
    if math.isnan(value) or not 0 < value <= 600:
        raise UsageError(f"{option} must be within 0..600 seconds")
    return value


def run_services(args: argparse.Namespace) -> int:
    discovery = browse(duration=browse_seconds(args.wait, "--wait"))
    if args.json:
        rows = [asdict(service) for service in discovery.services]
        print(json.dumps({"services": rows, "dropped": discovery.dropped}, indent=2))
        return 0
    print("List of discovered mdns services")
    width = max((len(visible(s.instance)) for s in discovery.services), default=0)
    for service in discovery.services:
        print(
            f"{visible(service.instance):<{width}}  {service.service_type:<22} "
            f"{visible(service.address)}"
        )
    if discovery.dropped:
        print(
            f"adbwire: {discovery.dropped} more instance(s) not shown (over the limit, a bad "
            "name, or no address)",
            file=sys.stderr,
        )
    return 0


def run_check(args: argparse.Namespace) -> int:
    browse(duration=0.1)  # opens the multicast sockets: TransportError if mDNS is unusable
    print(f"mdns daemon version [{mdns_stack()}]")
    return 0
