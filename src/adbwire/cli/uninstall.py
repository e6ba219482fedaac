"""`adbwire uninstall [-k] PKG`: remove an app, like `adb uninstall`.

Unlike adb, `-k` (keep the app's data and cache) is allowed: it is what
`cmd package uninstall -k` does. The package name is checked before anything is sent.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from adbwire.cli import targets
from adbwire.cli.install import parse_user
from adbwire.cli.terminal_text import visible
from adbwire.wire.services.install_result import check_package_name


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "uninstall",
        help="uninstall an app",
        description="Uninstall an app by package name (prints Success, or the failure).",
    )
    parser.add_argument("package", metavar="PKG", help="package name, e.g. com.example.app")
    parser.add_argument(
        "-k", dest="keep_data", action="store_true", help="keep the app's data and cache"
    )
    parser.add_argument(
        "--user", type=parse_user, metavar="USER", help="user id, 'current' or 'all'"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    check_package_name(args.package)
    with targets.connect(args) as client:
        result = client.uninstall(
            args.package,
            keep_data=args.keep_data,
            user=args.user,
            timeout=args.timeout,
        )
    if result.ok:
        print("Success")
        return 0
    detail = (
        f"{result.code}: {result.message}"
        if result.code and result.message
        else (result.code or result.message)
    )
    print(
        f"adbwire: failed to uninstall {args.package}: {visible(detail, multiline=True)}",
        file=sys.stderr,
    )
    return 1
