"""`adbwire pair HOST:PORT [CODE]`: pair with a phone for wireless debugging, as `adb pair`.

On the phone: Developer options → Wireless debugging → "Pair device with pairing code" shows
HOST:PORT and a 6-digit code. Without CODE we ask for it, as adb does. On success we print
what adb prints: `Successfully paired to HOST:PORT [guid=adb-...]`. Then connect to the
address on the Wireless debugging screen itself (another port): `adbwire -s HOST:PORT shell`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from adbwire.errors import UsageError
from adbwire.wire.keys import load_key, load_keys
from adbwire.wire.pairing.client import check_pairing_code, pair, parse_pairing_address


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "pair",
        help="pair with a phone for wireless debugging (Android 11+)",
        description="Pair with the address and 6-digit code shown under Wireless debugging "
        "→ 'Pair device with pairing code'. The phone then trusts this computer's adb key. "
        "Bounded by --connect-timeout.",
    )
    parser.add_argument("address", metavar="HOST:PORT", help="the pairing address the phone shows")
    parser.add_argument(
        "code", nargs="?", metavar="CODE", help="the 6-digit code (asked if omitted)"
    )
    parser.add_argument(
        "--key",
        type=Path,
        metavar="FILE",
        help="private key to pair (default: the adb key, usually ~/.android/adbkey)",
    )
    parser.set_defaults(handler=run)


def _ask_code() -> str:
    sys.stdout.write("Enter pairing code: ")
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line.strip():
        raise UsageError("no pairing code provided")
    return line


def run(args: argparse.Namespace) -> int:
    parse_pairing_address(args.address)  # a bad address fails before we ask for the code
    code = check_pairing_code(args.code if args.code is not None else _ask_code())
    key = load_key(args.key) if args.key is not None else load_keys()[0]
    result = pair(args.address, code, key, timeout=args.connect_timeout)
    print(result, flush=True)
    return 0
