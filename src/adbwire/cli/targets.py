"""Choosing the device a command talks to: -s SERIAL (USB serial, usb:PORT-PATH or
HOST:PORT), $ADBWIRE_DEVICES for TCP devices, or the only device present."""

from __future__ import annotations

import argparse
import math
import os
import re

from adbwire.cli import targets_usb
from adbwire.errors import UsageError
from adbwire.wire.client import AdbClient
from adbwire.wire.recording import ReplayKey, wrap_transport
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.usb import open_transport

DEVICES_VARIABLE = "ADBWIRE_DEVICES"
_SPLIT = re.compile(r"[\s,]+")


def configured_addresses() -> list[str]:
    """TCP devices named in $ADBWIRE_DEVICES (comma- or space-separated HOST:PORT)."""
    text = os.environ.get(DEVICES_VARIABLE, "")
    return [item for item in _SPLIT.split(text) if item]


def timeouts_from(args: argparse.Namespace) -> Timeouts:
    for name in ("timeout", "connect_timeout", "auth_timeout"):
        value = getattr(args, name)
        if math.isnan(value) or value <= 0:
            raise UsageError(
                f"--{name.replace('_', '-')} must be a positive number of seconds (or inf)"
            )
    return Timeouts(connect=args.connect_timeout, auth=args.auth_timeout, operation=args.timeout)


def connect(args: argparse.Namespace) -> AdbClient:
    """Connect to the device the command line selects (-s, $ADBWIRE_DEVICES, or the only one),
    or to a replayed recording with --replay; --record writes the session as it happens."""
    timeouts = timeouts_from(args)
    if args.replay is not None:
        transport = wrap_transport(
            None, replay=args.replay, record=args.record, strict=args.strict_replay
        )
        return AdbClient.connect(transport, [ReplayKey()], timeouts=timeouts)
    candidate = targets_usb.choose(args.serial, configured_addresses())
    if args.record is None:
        return targets_usb.connect(candidate, timeouts)
    transport = wrap_transport(
        open_transport(candidate, timeouts=timeouts),
        record=args.record,
        origin=args.record_origin,
        note=args.record_note,
        redact_serial=args.redact_serial,
    )
    return AdbClient.connect(transport, timeouts=timeouts)
