"""`adbwire devices [-l] [--json] [HOST:PORT...]`: list devices and their state, like
`adb devices -l`. USB devices are found on the bus; TCP devices come from the arguments and
$ADBWIRE_DEVICES.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from typing import Any

from adbwire.cli import targets, targets_usb
from adbwire.cli.terminal_text import visible
from adbwire.wire.transport import parse_tcp_address


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "devices",
        help="list devices",
        description="List USB devices and TCP devices (given here or in $ADBWIRE_DEVICES).",
    )
    parser.add_argument("addresses", nargs="*", metavar="HOST:PORT")
    parser.add_argument("-l", "--long", action="store_true", help="show product/model/device")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    addresses = list(dict.fromkeys([*args.addresses, *targets.configured_addresses()]))
    for address in addresses:
        parse_tcp_address(address)  # validates the form before any connection
    timeouts = targets.timeouts_from(args)
    usb = targets_usb.usb_devices()
    candidates = targets_usb.candidates(addresses, usb)
    with ThreadPoolExecutor(max_workers=max(1, min(16, len(candidates)))) as pool:
        rows = list(pool.map(lambda c: targets_usb.probe(c, timeouts), candidates))
    for note in targets_usb.notes_for(usb):
        print(visible(note), file=sys.stderr)
    if args.json:
        print(json.dumps([asdict(row) for row in rows], indent=2))
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
    return 0
