"""`adbwire push [--sync] [-q] LOCAL... REMOTE`: copy files and directories to the device.

Like `adb push`: REMOTE that is a directory receives each source under its own name, a
directory pushed onto a missing path becomes that path, and each source ends with
"SRC: N files pushed, M skipped. X MB/s (B bytes in Ts)". A progress line is drawn only on
a terminal. Exit status 1 if any file failed (each failure is printed), 2 for mistakes
found before anything moved (a missing local file, a directory onto a remote file).
Compression as adb 31+: `-z any|none|brotli|lz4|zstd`, `-Z` for none; the default comes
from ADB_COMPRESSION (0/1 or a name), else push uses the best the device offers and pull
none.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from adbwire.cli import targets
from adbwire.cli.progress import ProgressLine, report
from adbwire.errors import UsageError
from adbwire.wire.services.sync.compression import Compression, parse_compression


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "push",
        help="copy local files/directories to the device",
        description="Copy local files and directories to the device (like adb push).",
    )
    add_transfer_options(parser)
    parser.add_argument(
        "--sync",
        dest="sync_only",
        action="store_true",
        help="only push files that differ from the device's copy (size or mtime)",
    )
    parser.add_argument("paths", nargs="+", metavar="LOCAL... REMOTE")
    parser.set_defaults(handler=run)


def add_transfer_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    parser.add_argument(
        "-Z", dest="compression", action="store_const", const="none", help="no compression"
    )
    parser.add_argument(
        "-z",
        dest="compression",
        metavar="ALGORITHM",
        help="compress with any|none|brotli|lz4|zstd (adb 11+ devices; any: the best offered)",
    )


def compression_of(args: argparse.Namespace, default: Compression) -> Compression:
    """-z/-Z, else ADB_COMPRESSION, else the command's default (as adb decides)."""
    if args.compression is not None:
        return parse_compression(args.compression)
    from_environment = os.environ.get("ADB_COMPRESSION")
    if from_environment:
        return parse_compression(from_environment, allow_numbers=True)
    return default


def run(args: argparse.Namespace) -> int:
    compression = compression_of(args, Compression.ANY)
    if len(args.paths) < 2:
        raise UsageError("push requires LOCAL... and a REMOTE destination")
    *sources, remote = args.paths
    progress = ProgressLine(f"push to {remote}", sys.stderr)
    with targets.connect(args) as client:
        try:
            result = client.push(
                sources,
                remote,
                sync_only=args.sync_only,
                progress=progress,
                timeout=args.timeout,
                compression=compression,
            )
        finally:
            progress.finish()
    return report(result, quiet=args.quiet, out=sys.stdout, err=sys.stderr)
