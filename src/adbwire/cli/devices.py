"""`adbwire devices [-l] [--json] [HOST:PORT...]`: list devices and their state, like
`adb devices -l`. USB devices are found on the bus; TCP devices come from the arguments and
$ADBWIRE_DEVICES.

With -l, wireless-debugging devices advertised by mDNS (`_adb-tls-connect._tcp`, `_adb._tcp`)
are listed too, in the state `discovered` (found, not connected): the browse runs beside the
probes for --mdns-wait seconds (default 1; 0, or ADBWIRE_MDNS=0 in the environment, turns
it off). Plain `devices` does not browse.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from typing import Any

from adbwire.cli import targets, targets_usb
from adbwire.cli.mdns import browse_seconds
from adbwire.cli.terminal_text import visible
from adbwire.cli.timeout_options import timeouts_from
from adbwire.errors import TransportError
from adbwire.wire.mdns.browser import browse, mdns_disabled
from adbwire.wire.mdns.names import CONNECT_SERVICE, LEGACY_SERVICE, MdnsService
from adbwire.wire.transport import parse_tcp_address

DEFAULT_MDNS_WAIT = 1.0


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "devices",
        help="list devices",
        description="List USB devices and TCP devices (given here or in $ADBWIRE_DEVICES).",
    )
    parser.add_argument("addresses", nargs="*", metavar="HOST:PORT")
    parser.add_argument("-l", "--long", action="store_true", help="show product/model/device")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--mdns-wait",
        type=float,
        default=DEFAULT_MDNS_WAIT,
        metavar="SECONDS",
        help="with -l: how long to look for wireless-debugging devices by mDNS "
        f"(default: {DEFAULT_MDNS_WAIT:g}; 0: not at all)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    addresses = list(dict.fromkeys([*args.addresses, *targets.configured_addresses()]))
    for address in addresses:
        parse_tcp_address(address)  # validates the form before any connection
    timeouts = timeouts_from(args)
    usb = targets_usb.usb_devices()
    candidates = targets_usb.candidates(addresses, usb)
    wait = _mdns_wait(args)
    with ThreadPoolExecutor(max_workers=max(1, min(16, len(candidates))) + 1) as pool:
        discovery = pool.submit(_discover, wait) if wait else None
        rows = list(pool.map(lambda c: targets_usb.probe(c, timeouts), candidates))
        discovered = discovery.result() if discovery is not None else []
    for note in targets_usb.notes_for(usb):
        print(visible(note), file=sys.stderr)
    listed = {row.serial for row in rows}
    discovered = [s for s in discovered if s.address not in listed]
    if args.json:
        entries = [asdict(row) for row in rows] + [_discovered_entry(s) for s in discovered]
        print(json.dumps(entries, indent=2))
        return 0
    print("List of devices attached")
    for row in rows:
        # Serial (USB descriptor), state and details (banner) are the device's own words.
        line = f"{visible(row.serial):<22} {visible(row.state)}"
        if args.long:
            details = {
                "usb": row.usb,
                "product": row.product,
                "model": row.model,
                "device": row.device,
            }
            line += "".join(
                f" {key}:{visible(value.replace(' ', '_'))}"
                for key, value in details.items()
                if value
            )
        print(line)
    for service in discovered:
        model = service.txt.get("name", "").replace(" ", "_")
        print(
            f"{visible(service.serial):<22} discovered address:{visible(service.address)}"
            + (f" model:{visible(model)}" if model else "")
            + " (wireless debugging, found by mDNS)"
        )
    return 0


def _mdns_wait(args: argparse.Namespace) -> float:
    if not args.long or args.mdns_wait == 0 or mdns_disabled():
        return 0.0
    return browse_seconds(args.mdns_wait, "--mdns-wait")


def _discover(wait: float) -> list[MdnsService]:
    """Connectable wireless-debugging devices on the network; none when mDNS is unusable."""
    try:
        discovery = browse([CONNECT_SERVICE, LEGACY_SERVICE], duration=wait)
    except TransportError as error:
        print(f"adbwire: no mDNS discovery: {visible(str(error))}", file=sys.stderr)
        return []
    return list(discovery.services)


def _discovered_entry(service: MdnsService) -> dict[str, object]:
    return {
        "serial": service.serial,
        "state": "discovered",
        "transport": "mdns",
        "address": service.address,
        "service_type": service.service_type,
        "model": service.txt.get("name") or None,
    }
