"""`adbwire install APK`: install an app, like `adb install`.

The APK's package name and version are read from its manifest and shown before anything
is sent; the best method the device offers is used (streamed through `abb_exec` or `cmd`,
else pushed and installed with `pm`), and the package manager's verdict is printed:
``Success``, or an error naming the failure code (exit status 1).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, TextIO

from adbwire.cli import targets
from adbwire.cli.terminal_text import visible
from adbwire.device.heavy_jobs import heavy_job
from adbwire.wire.services.apk_manifest import read_apk_info
from adbwire.wire.services.install import choose_method
from adbwire.wire.services.install_result import InstallMethod, InstallOptions, UserSpec

REDRAW_SECONDS = 0.1


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "install",
        help="install an APK",
        description="Install an APK on the device (prints Success, or the failure code).",
    )
    parser.add_argument("apk", metavar="APK", help="the .apk file")
    add_install_options(parser)
    parser.add_argument(
        "--no-streaming",
        action="store_true",
        help="push to /data/local/tmp and run pm install (as on Android 6 and older)",
    )
    parser.set_defaults(handler=run)


def add_install_options(parser: argparse.ArgumentParser) -> None:
    """The package manager's options `install` and `install-multiple` share (adb's letters)."""
    parser.add_argument(
        "-r", "--replace", action="store_true", help="reinstall an existing app, keeping its data"
    )
    parser.add_argument("-d", "--downgrade", action="store_true", help="allow a lower versionCode")
    parser.add_argument(
        "-g", "--grant-all", action="store_true", help="grant all runtime permissions"
    )
    parser.add_argument(
        "-t", "--test", action="store_true", help="allow test-only APKs (android:testOnly)"
    )
    parser.add_argument(
        "--user", type=parse_user, metavar="USER", help="user id, 'current' or 'all'"
    )


def options_of(args: argparse.Namespace) -> InstallOptions:
    return InstallOptions(
        replace=args.replace,
        downgrade=args.downgrade,
        grant_permissions=args.grant_all,
        allow_test=args.test,
        user=args.user,
    )


def parse_user(text: str) -> UserSpec:
    if text in ("all", "current"):
        return "all" if text == "all" else "current"
    if text.isdigit():
        return int(text)
    raise argparse.ArgumentTypeError(f"expected a user id, 'current' or 'all', not {text!r}")


def run(args: argparse.Namespace) -> int:
    options = options_of(args)
    info = read_apk_info(args.apk)
    print(f"adbwire: installing {visible(info.describe())}", file=sys.stderr)
    job = f"adbwire install {os.path.basename(args.apk)}"
    with targets.connect(args) as client, heavy_job(client.serial, job):  # one at a time
        method = InstallMethod.PUSH if args.no_streaming else None
        chosen = method or choose_method(client.features)
        print(
            "Performing Push Install"
            if chosen is InstallMethod.PUSH
            else ("Performing Streamed Install")
        )
        sys.stdout.flush()
        bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
        try:
            result = client.install(
                args.apk,
                options,
                method=chosen,
                progress=bar.update if bar else None,
                timeout=args.timeout,
            )
        finally:
            if bar is not None:
                bar.finish()
    if result.ok:
        print("Success")
        return 0
    print(
        f"adbwire: failed to install {args.apk}: {visible(result.describe(), multiline=True)}",
        file=sys.stderr,
    )
    return 1


class ProgressBar:
    """A one-line progress bar for a terminal (redrawn at most ten times a second)."""

    def __init__(self, out: TextIO, width: int = 30) -> None:
        self._out = out
        self._width = width
        self._drawn_at = 0.0
        self._shown = False

    def update(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self._drawn_at < REDRAW_SECONDS:
            return
        self._drawn_at = now
        fraction = done / total if total else 1.0
        filled = int(fraction * self._width)
        bar = "#" * filled + "." * (self._width - filled)
        mib = 1024 * 1024
        self._out.write(f"\r[{bar}] {fraction:4.0%} {done / mib:.1f}/{total / mib:.1f} MiB")
        self._out.flush()
        self._shown = True

    def finish(self) -> None:
        if self._shown:
            self._out.write("\n")
            self._out.flush()
