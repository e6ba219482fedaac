"""`adbwire pull [-a] [-q] [--min-rate RATE] REMOTE... [LOCAL]`: copy device files and
directories here (`adbwire pull --help` lists every option).

Like `adb pull`: LOCAL defaults to the current directory; a LOCAL directory receives each
source under its own name; -a keeps the device's mtime and permission bits (never setuid,
setgid or sticky). Each file is written under a temporary name beside its destination and
renamed when complete, so an interrupted pull never leaves a partial file under the final
name. Trees are walked while they are pulled, within --max-entries and --max-depth; on a
terminal the progress line counts the entries listed so far.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from adbwire.cli import targets
from adbwire.cli.progress import ProgressLine, report
from adbwire.cli.push import add_transfer_options, compression_of
from adbwire.wire.services import sync
from adbwire.wire.services.sync.compression import Compression

_RATE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)i?[bB]?(?:/s)?\s*$")
_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "pull",
        help="copy device files/directories here",
        description="Copy files and directories from the device (like adb pull).",
    )
    add_transfer_options(parser)
    parser.add_argument(
        "-a",
        dest="preserve",
        action="store_true",
        help="keep the file's mtime and permission bits (never setuid/setgid/sticky)",
    )
    parser.add_argument(
        "--min-rate",
        type=rate_argument,
        metavar="RATE",
        help="fail a file that arrives slower than RATE bytes/s on average (K, M, G: "
        "binary units) once its --rate-grace is over; default: no minimum",
    )
    parser.add_argument(
        "--rate-grace",
        type=positive_float,
        default=sync.DEFAULT_RATE_GRACE,
        metavar="SECONDS",
        help="seconds each file gets on top of its size at --min-rate "
        f"(default {sync.DEFAULT_RATE_GRACE:g})",
    )
    parser.add_argument(
        "--max-entries",
        type=positive_int,
        default=sync.DEFAULT_MAX_ENTRIES,
        metavar="N",
        help=f"stop when the trees hold more than N entries (default {sync.DEFAULT_MAX_ENTRIES})",
    )
    parser.add_argument(
        "--max-depth",
        type=positive_int,
        default=sync.DEFAULT_MAX_DEPTH,
        metavar="N",
        help=f"directories nested deeper than N fail (default {sync.DEFAULT_MAX_DEPTH})",
    )
    parser.add_argument("paths", nargs="+", metavar="REMOTE... [LOCAL]")
    parser.set_defaults(handler=run)


def rate_argument(text: str) -> float:
    """`65536`, `64K`, `1.5M`, `64KiB/s` -> bytes per second."""
    match = _RATE.match(text)
    if match is None or float(match[1]) <= 0:
        raise argparse.ArgumentTypeError(f"not a rate in bytes/s: {text!r} (e.g. 64K, 1M)")
    return float(match[1]) * _UNITS[match[2].lower()]


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"not a positive number: {text!r}")
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"not a positive whole number: {text!r}")
    return value


class PullProgress:
    """The byte progress line, with the number of entries listed while trees are walked."""

    def __init__(self, local: str, line: ProgressLine) -> None:
        self.local = local
        self.line = line
        self.done = 0
        self.total: int | None = None

    def __call__(self, done: int, total: int | None) -> None:
        self.done, self.total = done, total
        self.line(done, total)

    def entries(self, count: int) -> None:
        self.line.label = f"pull to {self.local} ({count} entries listed)"
        self.line(self.done, self.total)


def run(args: argparse.Namespace) -> int:
    compression = compression_of(args, Compression.NONE)
    if len(args.paths) == 1:
        sources, local = args.paths, "."
    else:
        *sources, local = args.paths
    line = ProgressLine(f"pull to {local}", sys.stderr)
    progress = PullProgress(local, line)
    with targets.connect(args) as client:
        try:
            result = client.pull(
                sources,
                local,
                preserve=args.preserve,
                progress=progress,
                timeout=args.timeout,
                min_rate=args.min_rate,
                rate_grace=args.rate_grace,
                max_entries=args.max_entries,
                max_depth=args.max_depth,
                on_entries=progress.entries,
                compression=compression,
            )
        finally:
            line.finish()
    return report(result, quiet=args.quiet, out=sys.stdout, err=sys.stderr)
