"""`adbwire keygen [PATH]`: create an adb key pair (PATH and PATH.pub), as `adb keygen` does."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from adbwire.wire.keys import default_key_path, generate_key


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "keygen",
        help="create an adb RSA key pair",
        description="Write a 2048-bit RSA key in the formats Google's adb uses "
        "(PEM private key, mode 0600; Android public key in PATH.pub).",
    )
    parser.add_argument(
        "path",
        nargs="?",
        type=Path,
        help="private key file (default: the adb key location, usually ~/.android/adbkey)",
    )
    parser.add_argument("--force", action="store_true", help="replace an existing key")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    path: Path = args.path or default_key_path()
    key = generate_key(path, force=args.force)
    print(f"wrote {key.path} and {key.path}.pub")
    return 0
