"""`adbwire wait-for-device` and adb's other `wait-for[-TRANSPORT]-STATE` forms.

STATE is device, recovery, rescue, sideload, bootloader or disconnect; TRANSPORT is usb,
local (TCP) or any (the default). The devices looked at are the ones `-s`, $ADBWIRE_DEVICES,
`adbwire connect` and the USB bus give; they are probed again every second at most (a
device coming up sends no event to wait for). adb waits forever; `--timeout SECONDS` bounds
the wait (exit 1 when it passes).
"""

from __future__ import annotations

import argparse
import io
import math
import threading
from typing import Any

from adbwire.cli import targets, targets_usb
from adbwire.cli.state import ONLINE_STATES
from adbwire.cli.timeout_options import timeouts_from
from adbwire.errors import AdbTimeoutError, UsageError
from adbwire.wire.timeouts import Deadline, Timeouts
from adbwire.wire.usb import DeviceCandidate

STATES = ("device", "recovery", "rescue", "sideload", "bootloader", "disconnect")
TRANSPORTS = {"usb": "usb", "local": "tcp", "any": None}
FIRST_POLL_INTERVAL = 0.1
LONGEST_POLL_INTERVAL = 1.0


def register(commands: Any) -> None:
    for name, transport, state in _forms():
        documented = name == "wait-for-device"
        parser: argparse.ArgumentParser = commands.add_parser(
            name,
            # Only wait-for-device is listed in `adbwire --help`; the others are its variants.
            **(
                {"help": "wait for a device (also wait-for[-usb|-local|-any]-STATE)"}
                if documented
                else {}
            ),
            description=f"Wait until a device{_over(transport)} is in state {state!r}. "
            "Forms: wait-for[-TRANSPORT]-STATE with STATE one of "
            f"{', '.join(STATES)} and TRANSPORT one of {', '.join(TRANSPORTS)}.",
        )
        parser.add_argument(
            "--timeout",
            dest="wait_timeout",
            type=float,
            default=None,
            metavar="SECONDS",
            help="give up after SECONDS (default: wait forever, as adb)",
        )
        parser.set_defaults(handler=run, wait_transport=transport, wait_state=state)


def _forms() -> list[tuple[str, str, str]]:
    forms = [(f"wait-for-{state}", "any", state) for state in STATES]
    forms += [
        (f"wait-for-{transport}-{state}", transport, state)
        for transport in TRANSPORTS
        for state in STATES
    ]
    return forms


def _over(transport: str) -> str:
    return {"usb": " on USB", "local": " over TCP"}.get(transport, "")


def run(args: argparse.Namespace) -> int:
    seconds = args.wait_timeout
    if seconds is not None and (math.isnan(seconds) or seconds <= 0):
        raise UsageError("wait-for --timeout must be a positive number of seconds")
    what = f"waiting for a device{_over(args.wait_transport)} in state {args.wait_state!r}"
    deadline = Deadline(seconds, what)
    timeouts = timeouts_from(args)
    pause = threading.Event()  # never set: a bounded wait between two probes
    interval = FIRST_POLL_INTERVAL
    quiet = False
    while True:
        states = _states(args, TRANSPORTS[args.wait_transport], timeouts, quiet=quiet)
        quiet = True  # say once that USB is unavailable, not every second
        if args.wait_state == "disconnect":
            if not any(state in ONLINE_STATES for state in states):
                return 0
        elif args.wait_state in states:
            return 0
        remaining = deadline.remaining()
        if remaining is not None and remaining <= 0:
            raise AdbTimeoutError(f"{what}: timed out")
        pause.wait(interval if remaining is None else min(interval, remaining))
        interval = min(interval * 2, LONGEST_POLL_INTERVAL)


def _states(
    args: argparse.Namespace, kind: str | None, timeouts: Timeouts, *, quiet: bool
) -> list[str]:
    """The state of every device of the transport `kind` (None: any) that is selected."""
    candidates: list[DeviceCandidate]
    if args.serial:
        try:
            candidates = [targets.choose(args.serial, timeouts)]
        except UsageError:
            return []  # not there (yet)
    else:
        usb = [] if kind == "tcp" else targets_usb.usb_devices(io.StringIO() if quiet else None)
        candidates = targets_usb.candidates(targets.configured_addresses(), usb)
    probe_timeouts = Timeouts(min(timeouts.connect, 2.0), timeouts.auth, timeouts.operation)
    return [
        targets_usb.probe(candidate, probe_timeouts).state
        for candidate in candidates
        if kind is None or candidate.kind == kind
    ]
