"""`adbwire install-multiple APK...`: install an app made of several APKs (a base and its
splits) in one package-installer session, like `adb install-multiple`.

Prints ``Success`` as adb does. A refused APK is named and the session abandoned (nothing
is installed); a refusal at the commit prints adb's "failed to finalize session" and the
package manager's answer. Each APK's manifest is read on the host first, so a file that is
not an APK never reaches the device (an intended difference: adb lets the device refuse it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from adbwire.cli import targets
from adbwire.cli.install import add_install_options, options_of
from adbwire.cli.terminal_text import visible
from adbwire.wire.services.install_multiple import SplitWriteError
from adbwire.wire.services.install_result import InstallOptions


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "install-multiple",
        help="install an app made of several APKs (base and splits)",
        description="Install a base APK and its split APKs in one session "
        "(prints Success, or why the package manager refused).",
    )
    parser.add_argument("apks", nargs="*", metavar="APK", help="the .apk files")
    add_install_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not args.apks:
        bare = options_of(args) == InstallOptions()
        # adb's two messages: no argument at all, or options but no APK.
        problem = (
            "install-multiple requires an argument" if bare else "need APK file on command line"
        )
        print(f"adbwire: {problem}", file=sys.stderr)
        return 1
    for apk in args.apks:
        if not Path(apk).is_file():
            print(
                visible(f'adbwire: failed to stat "{apk}": No such file or directory'),
                file=sys.stderr,
            )
            return 1
    options = options_of(args)
    with targets.connect(args) as client:
        try:
            result = client.install_multiple(args.apks, options, timeout=args.timeout)
        except SplitWriteError as refused:
            print(f"adbwire: failed to write {visible(str(refused.path))}", file=sys.stderr)
            print(visible(refused.answer.strip(), multiline=True), file=sys.stderr)
            print("adbwire: the install session was abandoned", file=sys.stderr)
            return 1
    if result.ok:
        print("Success")
        return 0
    print("adbwire: failed to finalize session", file=sys.stderr)
    print(visible(result.output.strip(), multiline=True), file=sys.stderr)
    return 1
