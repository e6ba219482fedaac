"""`adbwire import-capture FILE.pcap|FILE.pcapng [--port 5555] -o FIXTURE`.

Turns a tcpdump/Wireshark capture of an ADB session over TCP, or a USB capture (usbmon on
Linux, USBPcap on Windows), into a fixture that `--replay FIXTURE` and the test suite can
play back.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from adbwire.wire.pcap import DEFAULT_PORT, import_capture


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "import-capture",
        help="turn a pcap/pcapng capture of an ADB session into a replayable fixture",
        description=(
            "Read a packet capture (tcpdump -w, Wireshark) of ADB over TCP, or a USB capture "
            "(usbmon, USBPcap), reassemble the session and write it as a fixture (see "
            "docs/fixtures.md)."
        ),
    )
    parser.add_argument("capture", metavar="FILE", help="a .pcap or .pcapng file")
    parser.add_argument(
        "-o", "--output", required=True, metavar="FIXTURE", help="the fixture to write"
    )
    parser.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help=(
            f"the device's TCP port in the capture, or 'auto' (default: {DEFAULT_PORT}; "
            "ignored for USB captures)"
        ),
    )
    parser.add_argument(
        "--connection",
        type=int,
        default=1,
        metavar="N",
        help=(
            "which connection on that port (or which USB device's session), in capture "
            "order (default: the first)"
        ),
    )
    parser.add_argument("--note", help="free text for the fixture's header")
    parser.add_argument(
        "--redact-serial",
        metavar="SERIAL",
        nargs="?",
        const=True,
        default=False,
        help="replace the device serial (from the banner, or the one given) with X's",
    )
    parser.set_defaults(handler=run)


def _port(text: str) -> int | None:
    if text == "auto":
        return None
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise argparse.ArgumentTypeError(f"{text!r} is not a TCP port (1-65535) or 'auto'")
    return int(text)


def run(args: argparse.Namespace) -> int:
    report = import_capture(
        args.capture,
        args.output,
        port=args.port,
        connection=args.connection,
        note=args.note,
        redact_serial=args.redact_serial,
    )
    for warning in report.warnings:
        print(f"adbwire: warning: {warning}", file=sys.stderr)
    if len(report.connections) > 1:
        print(
            f"adbwire: the capture has {len(report.connections)} ADB connections on port "
            f"{report.port}; imported number {report.chosen} (choose with --connection):",
            file=sys.stderr,
        )
        for number, description in enumerate(report.connections, 1):
            print(f"  {number}: {description}", file=sys.stderr)
    print(
        f"wrote {args.output}: {report.streams} streams, {report.host_packets} host and "
        f"{report.device_packets} device packets"
    )
    return 0
