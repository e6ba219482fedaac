"""Choosing the device a command talks to: -s SERIAL, $ADBWIRE_DEVICES, or the only one."""

from __future__ import annotations

import argparse
import os
import re

from adbwire.errors import UsageError
from adbwire.wire.client import AdbClient
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.transport import parse_tcp_address

DEVICES_VARIABLE = "ADBWIRE_DEVICES"
_SPLIT = re.compile(r"[\s,]+")


def configured_addresses() -> list[str]:
    """TCP devices named in $ADBWIRE_DEVICES (comma- or space-separated HOST:PORT)."""
    text = os.environ.get(DEVICES_VARIABLE, "")
    return [item for item in _SPLIT.split(text) if item]


def is_tcp_serial(serial: str) -> bool:
    try:
        parse_tcp_address(serial)
    except UsageError:
        return False
    return ":" in serial


def choose_serial(requested: str | None) -> str:
    if requested:
        if not is_tcp_serial(requested):
            raise UsageError(
                f"device {requested!r} not found: this version reaches devices over TCP "
                "(HOST:PORT); USB support is not available yet"
            )
        return requested
    candidates = configured_addresses()
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise UsageError(f"no device: pass -s HOST:PORT, or list devices in ${DEVICES_VARIABLE}")
    listing = ", ".join(candidates)
    raise UsageError(f"more than one device ({listing}): choose one with -s SERIAL")


def timeouts_from(args: argparse.Namespace) -> Timeouts:
    for name in ("timeout", "connect_timeout", "auth_timeout"):
        if getattr(args, name) <= 0:
            raise UsageError(f"--{name.replace('_', '-')} must be a positive number of seconds")
    return Timeouts(connect=args.connect_timeout, auth=args.auth_timeout, operation=args.timeout)


def connect(args: argparse.Namespace) -> AdbClient:
    """Connect to the device the command line selects."""
    return AdbClient.connect_tcp(choose_serial(args.serial), timeouts=timeouts_from(args))
