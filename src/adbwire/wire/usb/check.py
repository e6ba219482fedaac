"""The real-device USB check: `python -m adbwire.wire.usb.check [-s SERIAL] [--record FILE]`.

Runs every step of docs/usb.md against a phone on USB and prints one line per step, so a
report can be pasted into an issue; with --record the session is saved as a fixture
(serial redacted) that we can replay in CI. It needs nothing but adbwire: no adb, no
platform-tools.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import usb1

from adbwire.errors import AdbwireError, DeviceCommandError, DisconnectedError
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import load_keys
from adbwire.wire.protocol import ConnectionState
from adbwire.wire.recording import ORIGIN_REAL, RecordingTransport
from adbwire.wire.timeouts import Deadline, Timeouts
from adbwire.wire.transport import Transport
from adbwire.wire.usb.discovery import list_usb_devices
from adbwire.wire.usb.hotplug import UsbMonitor
from adbwire.wire.usb.library import load_libusb, shared_context
from adbwire.wire.usb.selection import choose_device, open_transport

TRANSFER_BYTES = 256 * 1024 - 5
"""With shell v2's 5-byte header, one WRTE of exactly 256 KiB: a multiple of every bulk
wMaxPacketSize, so it must be followed by a zero-length packet."""
SCRATCH_FILE = "/data/local/tmp/adbwire-usb-check.bin"


class Report:
    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.failures = 0

    def line(self, step: str, text: str) -> None:
        print(f"{step:<10} {text}", file=self.out, flush=True)

    def fail(self, step: str, error: BaseException) -> None:
        self.failures += 1
        self.line(step, f"FAIL {type(error).__name__}: {error}")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m adbwire.wire.usb.check", description="Check adbwire on a USB phone."
    )
    parser.add_argument("-s", "--serial", help="USB serial or usb:PORT-PATH (default: the only)")
    parser.add_argument("--record", type=Path, metavar="FILE", help="save the session here")
    parser.add_argument("--note", default="", help="phone, Android version, cable/port, OS")
    parser.add_argument(
        "--unplug-test", action="store_true", help="finally, ask you to unplug the phone"
    )
    parser.add_argument("--auth-timeout", type=float, default=60.0, metavar="SECONDS")
    parser.add_argument(
        "--size",
        type=int,
        default=TRANSFER_BYTES,
        metavar="BYTES",
        help="bytes for the transfer test (default: one 256 KiB packet; larger for speed)",
    )
    parser.add_argument("--debug", action="store_true", help="log every USB step to stderr")
    return parser


def _transfers(report: Report, client: AdbClient, size: int) -> None:
    """Random bytes to a file on the phone (the stdin of `cat`), then back again; both
    must be identical."""
    blob = os.urandom(size)
    digest = hashlib.sha256(blob).hexdigest()
    started = time.monotonic()
    stored = client.shell(f"cat > {SCRATCH_FILE}", stdin=blob)
    seconds = max(time.monotonic() - started, 1e-6)
    if stored.exit_code != 0:
        raise DeviceCommandError(f"cannot write {SCRATCH_FILE}: {stored.stderr!r}")
    report.line("upload", f"OK {len(blob)} bytes, {len(blob) / seconds / 1e6:.1f} MB/s")
    started = time.monotonic()
    back = client.exec_out(f"cat {SCRATCH_FILE}")
    seconds = max(time.monotonic() - started, 1e-6)
    same = hashlib.sha256(back).hexdigest() == digest
    verdict = "OK" if same else f"FAIL got {len(back)} bytes, not the same"
    report.line("download", f"{verdict} {len(back)} bytes, {len(back) / seconds / 1e6:.1f} MB/s")
    report.failures += 0 if same else 1
    client.exec_out(f"rm -f {SCRATCH_FILE}")


def _unplug_test(report: Report, client: AdbClient, name: str) -> None:
    """Unplug while a stream is open (it must fail at once), then plug back in (the
    monitor must notice)."""
    stream = client.open_stream("shell:sleep 120")
    with UsbMonitor() as monitor:
        report.line("unplug", f"unplug the phone now (waiting up to 60 s; monitor: {monitor.mode})")
        try:
            stream.read(None, Deadline(60, "waiting for the unplug"))
        except DisconnectedError as exc:
            report.line("unplug", f"OK the open stream failed: {exc}")
        else:
            raise DisconnectedError("the stream ended without an error")
        monitor.wait_for(lambda devices: not any(d.matches(name) for d in devices), 10)
        report.line("unplug", "OK the device is no longer listed")
        report.line("replug", "plug the phone back in (waiting up to 60 s)")
        monitor.wait_for(lambda devices: any(d.matches(name) for d in devices), 60)
        report.line("replug", "OK found again without restarting")


def run_check(args: argparse.Namespace, out: TextIO) -> int:
    report = Report(out)
    info = load_libusb()
    report.line("libusb", f"OK {info.version} from {info.source} ({info.path})")
    devices = list_usb_devices(include_without_adb=True)
    hotplug = bool(shared_context().hasCapability(usb1.CAP_HAS_HOTPLUG))
    report.line("bus", f"OK {len(devices)} Android device(s); hot-plug callbacks: {hotplug}")
    for device in devices:
        report.line("device", f"{device.name} {device.usb_path} {device.usb_id} {device.state}")
    candidate = choose_device(args.serial, usb_devices=devices)
    timeouts = Timeouts(connect=10.0, auth=args.auth_timeout, operation=60.0)
    transport: Transport = open_transport(candidate, timeouts=timeouts)
    if args.record:
        note = args.note or "real-device USB check"
        transport = RecordingTransport(
            transport, args.record, origin=ORIGIN_REAL, note=note, redact_serial=True
        )

    def on_state(state: ConnectionState) -> None:
        if state is ConnectionState.UNAUTHORIZED:
            report.line("auth", "accept 'Allow USB debugging?' on the phone")

    with AdbClient.connect(transport, load_keys(), timeouts=timeouts, on_state=on_state) as client:
        connection = client.connection
        report.line(
            "connect",
            f"OK {client.banner.model} ({client.banner.product}); version "
            f"{connection.version:#x}, max payload {connection.max_payload}",
        )
        report.line("features", ",".join(sorted(connection.features)))
        release = client.exec_out("getprop ro.build.version.release").decode().strip()
        report.line("exec", f"OK Android {release}")
        try:
            _transfers(report, client, args.size)
        except AdbwireError as exc:
            report.fail("transfers", exc)
        if args.unplug_test:
            try:
                _unplug_test(report, client, candidate.serial)
            except AdbwireError as exc:
                report.fail("unplug", exc)
    if args.record:
        report.line("recorded", f"{args.record} (serial redacted): attach it to your report")
    report.line("result", "OK" if not report.failures else f"{report.failures} step(s) failed")
    return 0 if not report.failures else 1


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.debug:
        logging.basicConfig(level=logging.DEBUG, format="%(asctime)s %(name)s %(message)s")
    stream = out or sys.stdout
    try:
        return run_check(args, stream)
    except AdbwireError as exc:
        print(f"FAIL       {type(exc).__name__}: {exc}", file=stream)
        return 1


if __name__ == "__main__":
    sys.exit(main())
