"""`adbwire connect HOST[:PORT]` and `adbwire disconnect [HOST[:PORT]]`, with adb's messages.

There is no server to keep a connection open: `connect` checks that the device answers,
then remembers its address (known_devices.py) so that `devices` lists it and commands
choose it like any TCP device (`-s HOST:PORT`, or alone: the only device). `disconnect`
forgets it. The port defaults to 5555, as in adb.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from adbwire.cli import known_devices, targets_usb
from adbwire.cli.state import ONLINE_STATES
from adbwire.cli.terminal_text import visible
from adbwire.cli.timeout_options import timeouts_from
from adbwire.wire.transport import parse_tcp_address
from adbwire.wire.usb import DeviceCandidate


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "connect",
        help="connect to a device via TCP/IP [default port=5555]",
        description="Check that HOST[:PORT] answers as an ADB device and remember it, so "
        f"`devices` lists it and -s finds it (kept in {known_devices.state_file()}).",
    )
    parser.add_argument("address", metavar="HOST[:PORT]")
    parser.set_defaults(handler=run_connect)
    parser = commands.add_parser(
        "disconnect",
        help="forget a TCP/IP device [default port=5555], or all",
        description="Forget HOST[:PORT] (every remembered device without an argument).",
    )
    parser.add_argument("address", nargs="?", metavar="HOST[:PORT]")
    parser.set_defaults(handler=run_disconnect)


def normalized(text: str) -> str:
    """`HOST[:PORT]` as devices are named: `HOST:PORT`, IPv6 hosts in brackets."""
    host, port = parse_tcp_address(text)
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def run_connect(args: argparse.Namespace) -> int:
    address = normalized(args.address)
    shown = visible(address)
    probe = targets_usb.probe(DeviceCandidate(address, "tcp"), timeouts_from(args))
    if probe.state == "unauthorized":
        known_devices.remember(address)  # adb lists it too, as unauthorized
        print(f"failed to authenticate to {shown}")
        return 1
    if probe.state not in ONLINE_STATES:
        reason = (probe.error or probe.state).removeprefix(f"cannot connect to {address}: ")
        print(f"failed to connect to '{shown}': {visible(reason)}")
        return 1
    added = known_devices.remember(address)
    print(f"{'connected' if added else 'already connected'} to {shown}")
    return 0


def run_disconnect(args: argparse.Namespace) -> int:
    if args.address is None:
        known_devices.forget(None)
        print("disconnected everything")
        return 0
    address = normalized(args.address)
    if not known_devices.forget(address):
        print(f"error: no such device '{visible(address)}'", file=sys.stderr)
        return 1
    print(f"disconnected {visible(address)}")
    return 0
