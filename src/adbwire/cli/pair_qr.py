"""`adbwire pair --qr`: pairing by QR code, as Android Studio does it (docs/dev/adb_wifi.md).

We print a QR code holding `WIFI:T:ADB;S:studio-XXXXXXXXXX;P:PASSWORD;;` (a fresh random name
and password each time). The phone (Wireless debugging → "Pair device with QR code") reads
it, opens its pairing port and advertises it by mDNS as `_adb-tls-pairing._tcp` under that
name. We browse until that instance appears (bounded by --qr-wait; Ctrl-C stops), then pair
with the password in place of the 6-digit code.
"""

from __future__ import annotations

import sys
from typing import TextIO

import segno

from adbwire.errors import AdbTimeoutError
from adbwire.wire.keys import AdbKey
from adbwire.wire.mdns.browser import find_instance
from adbwire.wire.mdns.names import PAIRING_SERVICE, QrPairing, random_qr_pairing
from adbwire.wire.pairing.client import PairingResult, pair_with_password

DEFAULT_QR_WAIT = 180.0


def show_qr(qr: QrPairing, out: TextIO) -> None:
    """The QR code in half-block characters (two modules per line), then its text."""
    segno.make(qr.payload, error="m").terminal(out=out, compact=True)
    out.flush()


def pair_by_qr(
    key: AdbKey,
    *,
    wait: float,
    timeout: float,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> PairingResult:
    out = out or sys.stdout
    err = err or sys.stderr
    qr = random_qr_pairing()
    show_qr(qr, out)
    # The text is what the code on screen shows anyone who sees it; tests read it from here.
    print(f"QR code: {qr.payload}", file=err)
    print(
        "On the phone: Wireless debugging → Pair device with QR code, and scan it. "
        f"Waiting up to {wait:g} s for {qr.name} (Ctrl-C stops)...",
        file=err,
        flush=True,
    )
    try:
        service = find_instance(qr.name, [PAIRING_SERVICE], timeout=wait)
    except AdbTimeoutError:
        raise AdbTimeoutError(
            f"no phone advertised the pairing service {qr.name} within {wait:g} s (was the QR "
            "code scanned under Wireless debugging → Pair device with QR code, on the same "
            "network?)"
        ) from None
    print(f"Found {qr.name} at {service.address}; pairing...", file=err, flush=True)
    return pair_with_password(service.address, qr.password.encode(), key, timeout=timeout)
