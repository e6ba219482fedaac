"""`adbwire bugreport [PATH]`: a zipped bug report, like `adb bugreport`.

The device's `bugreportz -p` writes the report (minutes on a real phone) and prints its
progress, shown on a terminal as adb shows it (`[ 42%] generating NAME.zip`); then the zip
is pulled: into PATH if it is a directory (or the current directory when PATH is left out)
under the device's name for it, else to PATH (`.zip` added when missing). The pull prints
adb's summary line. There is no deadline: it ends when bugreportz does, or with Ctrl-C.

Every line bugreportz prints is untrusted: each is capped in length, and only an `OK:`
.zip file inside the device's bugreport directory is pulled (never a directory).
"""

from __future__ import annotations

import argparse
import posixpath
import re
import sys
from pathlib import Path
from typing import Any, TextIO

from adbwire.cli import progress, targets
from adbwire.cli.terminal_text import visible
from adbwire.errors import DeviceCommandError, RemoteProtocolError
from adbwire.wire.client import AdbClient
from adbwire.wire.services.shell import Channel

MAX_LINE = 4096
MAX_LINES = 100_000
"""bugreportz prints a few hundred lines at most; more is a device gone wrong."""
REPORT_DIRS = ("/data/user_de/", "/bugreports/", "/data/data/com.android.shell/")
_FRACTION = re.compile(r"([0-9]{1,18})/([0-9]{1,18})")
"""`DONE/TOTAL` in ASCII digits (str.isdigit also takes "²", which int() refuses)."""


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "bugreport",
        help="write a zipped bug report to PATH",
        usage="%(prog)s [-h] [PATH]",  # PATH takes *, so that two give adb's usage error
        description="Have the device write a zipped bug report (bugreportz) and pull it: "
        "into PATH if it is a directory (default: the current one), else to PATH.",
    )
    parser.add_argument("path", nargs="*", metavar="PATH")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if len(args.path) > 1:
        print("adbwire: usage: adbwire bugreport [PATH]", file=sys.stderr)
        return 1
    target = Path(args.path[0]) if args.path else Path()
    with targets.connect(args) as client:
        version = client.shell("bugreportz -v", timeout=args.timeout)
        if version.exit_code != 0 or not version.stderr.strip():
            out = version.stdout.decode(errors="replace").strip()
            print(
                visible(
                    f"Failed to get bugreportz version: 'bugreportz -v' returned '{out}' "
                    f"(code {version.exit_code}).\nIf the device does not run Android 7.0 or "
                    "above, try 'adbwire shell bugreport' instead.",
                    multiline=True,
                ),
                file=sys.stderr,
            )
            return version.exit_code or 1
        device_file = _generate(client)
        destination = target / posixpath.basename(device_file) if target.is_dir() else target
        if not target.is_dir() and destination.suffix.lower() != ".zip":
            destination = destination.with_name(destination.name + ".zip")
        result = client.pull([device_file], str(destination), timeout=args.timeout)
    return progress.report(result, quiet=False, out=sys.stdout, err=sys.stderr)


def _generate(client: AdbClient) -> str:
    """Run `bugreportz -p`; the device path of the zip it wrote."""
    shown = ShownProgress(sys.stderr)
    found: str | None = None
    failure: str | None = None
    count = 0
    pending = b""
    with client.start_shell("bugreportz -p") as process:
        try:
            for channel, data in process.output():
                if channel is not Channel.STDOUT:
                    continue
                *lines, pending = (pending + data).split(b"\n")
                count += len(lines)
                if len(pending) > MAX_LINE or count > MAX_LINES:
                    raise RemoteProtocolError("bugreportz printed more than a report's lines")
                for raw in lines:
                    text = raw.decode("utf-8", errors="replace").strip()
                    if text.startswith(("BEGIN:", "OK:")):
                        shown.name = posixpath.basename(text.split(":", 1)[1])
                        found = text[len("OK:") :] if text.startswith("OK:") else found
                    elif text.startswith("FAIL:"):
                        failure = text[len("FAIL:") :]
                    elif text.startswith("PROGRESS:"):
                        shown.update(text[len("PROGRESS:") :])
        finally:
            shown.finish()
    if failure is not None:
        raise DeviceCommandError(f"Device failed to take a zipped bugreport: {failure}")
    if found is None:
        raise DeviceCommandError("bugreportz did not return a 'OK:' or 'FAIL:' line")
    if (
        not found.startswith(REPORT_DIRS)
        or ".." in found.split("/")
        or not posixpath.basename(found).endswith(".zip")  # not a directory to pull whole
    ):
        raise RemoteProtocolError(f"bugreportz named a file outside its directory: {found!r}")
    return found


class ShownProgress:
    """adb's `[ 42%] generating NAME` line, redrawn in place on a terminal only."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.enabled = stream.isatty()
        self.name = "bugreport.zip"
        self._drawn = False

    def update(self, fraction: str) -> None:
        found = _FRACTION.fullmatch(fraction.strip())
        if not self.enabled or found is None or int(found.group(2)) == 0:
            return
        percent = min(100, int(found.group(1)) * 100 // int(found.group(2)))
        # Only the device's name is escaped: the carriage return redraws the line.
        self.stream.write("\r" + visible(f"[{percent:3d}%] generating {self.name}"))
        self.stream.flush()
        self._drawn = True

    def finish(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
