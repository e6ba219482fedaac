"""`adbwire get-state`, `get-serialno`, `get-devpath`: one fact about the chosen device.

As adb: the state (`device`, `recovery`, `bootloader`, `sideload`, `rescue`) is printed
when the device answers in one of them; `unauthorized` and `offline` are errors (exit 1).
The device is the one `-s`, $ADBWIRE_DEVICES or `adbwire connect` selects, probed once
(nothing waits for a person to accept the debugging prompt).
"""

from __future__ import annotations

import argparse
from typing import Any

from adbwire.cli import targets, targets_usb
from adbwire.cli.terminal_text import visible
from adbwire.cli.timeout_options import timeouts_from
from adbwire.errors import DeviceCommandError, UsageError
from adbwire.wire.usb import DeviceCandidate

ONLINE_STATES = frozenset({"device", "recovery", "bootloader", "sideload", "rescue"})
"""States in which adb's get-state answers rather than failing."""


def register(commands: Any) -> None:
    for name, help_text, handler in (
        ("get-state", "print the device's state: device, recovery, bootloader, ...", _state),
        ("get-serialno", "print the device's serial number", _serial),
        ("get-devpath", "print the device's USB path (unknown for TCP devices)", _devpath),
    ):
        parser: argparse.ArgumentParser = commands.add_parser(
            name, help=help_text, description=help_text[0].upper() + help_text[1:] + "."
        )
        parser.set_defaults(handler=_runner(handler))


def _runner(handler: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        timeouts = timeouts_from(args)
        try:
            candidate = targets.choose(args.serial, timeouts)
        except UsageError as no_choice:
            # adb exits 1 for "no devices/emulators found" and "more than one device": a
            # script asking for the state is told the device is not there, not misused.
            raise DeviceCommandError(str(no_choice)) from None
        probe = targets_usb.probe(candidate, timeouts)
        if probe.state not in ONLINE_STATES:
            reason = f" ({probe.error})" if probe.error else ""
            raise DeviceCommandError(f"device {probe.state}{reason}")
        print(visible(handler(candidate, probe)))
        return 0

    return run


def _state(candidate: DeviceCandidate, probe: targets_usb.ProbeResult) -> str:
    return probe.state


def _serial(candidate: DeviceCandidate, probe: targets_usb.ProbeResult) -> str:
    return candidate.serial


def _devpath(candidate: DeviceCandidate, probe: targets_usb.ProbeResult) -> str:
    return f"usb:{probe.usb}" if probe.usb else "unknown"
