"""The timeouts every command shares (--timeout, --connect-timeout, --auth-timeout), checked
and read into the wire layer's `Timeouts`. A module of its own: `serve` needs it without
loading how a command picks its device (cli/targets, USB, the known devices)."""

from __future__ import annotations

import argparse
import math

from adbwire.errors import UsageError
from adbwire.wire.timeouts import Timeouts


def timeouts_from(args: argparse.Namespace) -> Timeouts:
    """The command line's timeouts; each must be a positive number of seconds (or inf)."""
    for name in ("timeout", "connect_timeout", "auth_timeout"):
        value = getattr(args, name)
        if math.isnan(value) or value <= 0:
            raise UsageError(
                f"--{name.replace('_', '-')} must be a positive number of seconds (or inf)"
            )
    return Timeouts(connect=args.connect_timeout, auth=args.auth_timeout, operation=args.timeout)
