"""`adbwire remount [-R]`: remount /system, /vendor … read-write, as `adb remount`.

It needs adbd running as root (`adbwire root`) and, on most devices, verity disabled; -R
lets the device reboot when that is what it takes. The device's own words are printed; a
failure exits 1.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from adbwire.cli import targets
from adbwire.cli.terminal_text import visible
from adbwire.errors import CommandFailedError


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "remount",
        help="remount partitions read-write (needs root)",
        description="Remount /system, /vendor and the other partitions read-write.",
    )
    parser.add_argument(
        "-R", dest="reboot", action="store_true", help="reboot the device if needed"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with targets.connect(args) as client:
        try:
            text = client.remount(reboot_if_needed=args.reboot, timeout=args.timeout)
        except CommandFailedError as failure:
            print(visible(failure.stderr.rstrip(), multiline=True), file=sys.stderr)
            return 1
    print(visible(text.rstrip(), multiline=True))
    return 0
