"""`adbwire pull [-a] [-q] REMOTE... [LOCAL]`: copy device files and directories here.

Like `adb pull`: LOCAL defaults to the current directory; a LOCAL directory receives each
source under its own name; -a keeps the device's mtime and mode. Each file is written under
a temporary name beside its destination and renamed when complete, so an interrupted pull
never leaves a partial file under the final name.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from adbwire.cli import targets
from adbwire.cli.progress import ProgressLine, report
from adbwire.cli.push import add_transfer_options, check_compression
from adbwire.wire.services import sync


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "pull",
        help="copy device files/directories here",
        description="Copy files and directories from the device (like adb pull).",
    )
    add_transfer_options(parser)
    parser.add_argument(
        "-a", dest="preserve", action="store_true", help="keep the file's mtime and mode"
    )
    parser.add_argument("paths", nargs="+", metavar="REMOTE... [LOCAL]")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    check_compression(args)
    if len(args.paths) == 1:
        sources, local = args.paths, "."
    else:
        *sources, local = args.paths
    progress = ProgressLine(f"pull to {local}", sys.stderr)
    with targets.connect(args) as client:
        try:
            result = sync.pull(
                client.connection,
                sources,
                local,
                preserve=args.preserve,
                progress=progress,
                timeout=args.timeout,
            )
        finally:
            progress.finish()
    return report(result, quiet=args.quiet, out=sys.stdout, err=sys.stderr)
