"""`adbwire reboot [MODE]`: reboot the device, like `adb reboot`.

MODE is bootloader, recovery, sideload, sideload-auto-reboot or fastboot; none reboots
normally. The command returns once the device has taken the request (the connection then
drops); it does not wait for the device to come back.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from adbwire.cli import targets
from adbwire.cli.terminal_text import visible
from adbwire.wire.services.control import RebootMode

MODES = [mode.value for mode in RebootMode if mode.value]


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "reboot",
        help="reboot the device",
        description="Reboot the device, optionally into another mode.",
    )
    parser.add_argument(
        "mode",
        nargs="?",
        default=None,
        choices=MODES,
        metavar="MODE",
        help=f"one of: {', '.join(MODES)} (default: normal boot)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with targets.connect(args) as client:
        text = client.reboot(args.mode or "", timeout=args.timeout)
    if text.strip():
        print(visible(text.rstrip(), multiline=True), file=sys.stderr)
    return 0
