"""`adbwire devices [-l] [--json] [HOST:PORT...]`: list devices and their state, like
`adb devices -l`. TCP devices come from the arguments and $ADBWIRE_DEVICES.
"""

from __future__ import annotations

import argparse
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from adbwire.cli import targets
from adbwire.errors import AdbwireError, AuthPendingError
from adbwire.wire.client import AdbClient
from adbwire.wire.protocol import ConnectionState
from adbwire.wire.timeouts import Timeouts

PROBE_AUTH_WAIT = 0.5
"""A listing does not wait for the debugging prompt: it reports 'unauthorized' and moves on."""


@dataclass(frozen=True)
class DeviceRow:
    serial: str
    state: str
    transport: str
    product: str | None = None
    model: str | None = None
    device: str | None = None
    features: tuple[str, ...] = ()
    error: str | None = None


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "devices",
        help="list devices",
        description="List devices: TCP addresses given here or in $ADBWIRE_DEVICES.",
    )
    parser.add_argument("addresses", nargs="*", metavar="HOST:PORT")
    parser.add_argument("-l", "--long", action="store_true", help="show product/model/device")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run)


def probe(address: str, timeouts: Timeouts) -> DeviceRow:
    """Connect once to learn the state and banner; never waits for a person."""
    saw_prompt = threading.Event()

    def on_state(state: ConnectionState) -> None:
        if state is ConnectionState.UNAUTHORIZED:
            saw_prompt.set()

    probe_timeouts = Timeouts(timeouts.connect, PROBE_AUTH_WAIT, timeouts.operation)
    try:
        with AdbClient.connect_tcp(address, timeouts=probe_timeouts, on_state=on_state) as client:
            banner = client.banner
            return DeviceRow(
                serial=address,
                state=banner.system_type,
                transport="tcp",
                product=banner.product,
                model=banner.model,
                device=banner.device,
                features=tuple(sorted(banner.features)),
            )
    except AuthPendingError as exc:
        return DeviceRow(address, "unauthorized", "tcp", error=str(exc))
    except AdbwireError as exc:
        state = "unauthorized" if saw_prompt.is_set() else "offline"
        return DeviceRow(address, state, "tcp", error=str(exc))


def run(args: argparse.Namespace) -> int:
    addresses = list(dict.fromkeys([*args.addresses, *targets.configured_addresses()]))
    for address in addresses:
        targets.choose_serial(address)  # validates the form before any connection
    timeouts = targets.timeouts_from(args)
    with ThreadPoolExecutor(max_workers=max(1, min(16, len(addresses)))) as pool:
        rows = list(pool.map(lambda address: probe(address, timeouts), addresses))
    if args.json:
        print(json.dumps([asdict(row) for row in rows], indent=2))
        return 0
    print("List of devices attached")
    for row in rows:
        line = f"{row.serial:<22} {row.state}"
        if args.long and row.state == "device":
            details = {"product": row.product, "model": row.model, "device": row.device}
            line += "".join(
                f" {key}:{value.replace(' ', '_')}" for key, value in details.items() if value
            )
        print(line)
    return 0
