"""`adbwire pair HOST:PORT [CODE]`: pair with a phone for wireless debugging, as `adb pair`.

On the phone: Developer options → Wireless debugging → "Pair device with pairing code" shows
HOST:PORT and a 6-digit code. Without CODE we ask for it, as adb does. On success we print
what adb prints: `Successfully paired to HOST:PORT [guid=adb-...]`. Then connect to the
address on the Wireless debugging screen itself (another port): `adbwire -s HOST:PORT shell`.

NAME instead of HOST:PORT is the phone's `_adb-tls-pairing._tcp` mDNS instance (as
`adbwire mdns services` lists it), resolved within --connect-timeout. `--qr` pairs by QR code
instead (cli/pair_qr.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from adbwire.cli.mdns import browse_seconds
from adbwire.cli.pair_qr import DEFAULT_QR_WAIT, pair_by_qr
from adbwire.cli.terminal_text import visible
from adbwire.errors import UsageError
from adbwire.wire.keys import AdbKey, load_key, load_keys
from adbwire.wire.mdns.browser import resolve_instance
from adbwire.wire.mdns.names import PAIRING_SERVICE, split_service_suffix
from adbwire.wire.pairing.client import check_pairing_code, pair, parse_pairing_address


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "pair",
        help="pair with a phone for wireless debugging (Android 11+)",
        description="Pair with the address and 6-digit code shown under Wireless debugging "
        "→ 'Pair device with pairing code'. The phone then trusts this computer's adb key. "
        "Bounded by --connect-timeout.",
    )
    parser.add_argument(
        "address",
        nargs="?",
        metavar="HOST:PORT|NAME",
        help="the pairing address the phone shows, or its _adb-tls-pairing mDNS name",
    )
    parser.add_argument(
        "code", nargs="?", metavar="CODE", help="the 6-digit code (asked if omitted)"
    )
    parser.add_argument(
        "--key",
        type=Path,
        metavar="FILE",
        help="private key to pair (default: the adb key, usually ~/.android/adbkey)",
    )
    parser.add_argument(
        "--qr",
        action="store_true",
        help="show a QR code to scan under 'Pair device with QR code' (no address or code)",
    )
    parser.add_argument(
        "--qr-wait",
        type=float,
        default=DEFAULT_QR_WAIT,
        metavar="SECONDS",
        help=f"how long to wait for the phone to scan it (default: {DEFAULT_QR_WAIT:g})",
    )
    parser.set_defaults(handler=run)


def _ask_code() -> str:
    sys.stdout.write("Enter pairing code: ")
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line.strip():
        raise UsageError("no pairing code provided")
    return line


def _is_mdns_name(address: str) -> bool:
    """An instance name (`adb-XYZ-abc`, `studio-abc`, or with `._adb-tls-pairing._tcp`) rather
    than an address missing its port (`192.168.1.5`, `phone.lan`: refused, as before)."""
    if address.startswith("[") or ":" in address:
        return False
    instance, service_type = split_service_suffix(address)
    return service_type is not None or "." not in instance


def _key(args: argparse.Namespace) -> AdbKey:
    return load_key(args.key) if args.key is not None else load_keys()[0]


def run(args: argparse.Namespace) -> int:
    if args.qr:
        if args.address is not None or args.code is not None:
            raise UsageError("--qr takes no address or code: the QR code carries them")
        wait = browse_seconds(args.qr_wait, "--qr-wait")
        paired = pair_by_qr(_key(args), wait=wait, timeout=args.connect_timeout)
        print(visible(str(paired)), flush=True)  # the guid is the device's text
        return 0
    if args.address is None:
        raise UsageError("give the pairing address (HOST:PORT or mDNS name), or use --qr")
    address = args.address
    if _is_mdns_name(address):
        code = check_pairing_code(args.code if args.code is not None else _ask_code())
        instance, _ = split_service_suffix(address)
        service = resolve_instance(instance, [PAIRING_SERVICE], timeout=args.connect_timeout)
        address = service.address
    else:
        parse_pairing_address(address)  # a bad address fails before we ask for the code
        code = check_pairing_code(args.code if args.code is not None else _ask_code())
    result = pair(address, code, _key(args), timeout=args.connect_timeout)
    print(visible(str(result)), flush=True)  # the guid is the device's text
    return 0
