"""`adbwire simulate`: run the simulated Android device (a test adbd) in the foreground.

It listens on loopback unless told otherwise (and says loudly when told otherwise). By
default it trusts the user's own adb key, so `adbwire -s ADDRESS shell ...` and Google's
`adb connect ADDRESS` work at once. The address is printed on stdout as the first line, so
scripts can start it with `--port 0` and read where it listens.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adbwire.errors import UsageError
from adbwire.wire import packets as P
from adbwire.wire.keys import load_keys

if TYPE_CHECKING:
    from adbwire.testing import DeviceFiles, DeviceOptions
    from adbwire.testing.userland import Userland

VERSIONS = {"0x01000000": P.VERSION_CHECKSUMMED, "0x01000001": P.VERSION_SKIP_CHECKSUM}


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "simulate",
        help="run a simulated Android device (for tests and demos)",
        description="Run the simulated device until interrupted. It speaks the real ADB "
        "protocol, so adbwire and Google's adb can both connect to it.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (loopback)")
    parser.add_argument("--port", type=int, default=5555, help="0 picks a free port")
    parser.add_argument("--scenario", type=Path, help="scenario TOML (default: the sample app)")
    keys = parser.add_mutually_exclusive_group()
    keys.add_argument(
        "--authorized-keys",
        type=Path,
        metavar="FILE",
        help="trusted public keys, one per line (as in adbkey.pub); default: your adb key",
    )
    keys.add_argument(
        "--accept-any-key", action="store_true", help="accept every key (no RSA check)"
    )
    parser.add_argument(
        "--accept-new-keys",
        action="store_true",
        help="act as if the user tapped 'Allow' for every offered key",
    )
    parser.add_argument("--accept-delay", type=float, default=0.0, metavar="SECONDS")
    parser.add_argument("--protocol-version", choices=sorted(VERSIONS), default="0x01000001")
    parser.add_argument("--no-shell-v2", action="store_true", help="behave like Android < 7")
    parser.add_argument("--max-payload", type=int, default=P.MAX_PAYLOAD, metavar="BYTES")
    parser.set_defaults(handler=run)


def build_options(args: argparse.Namespace) -> DeviceOptions:
    from adbwire.testing import DEVICE_FEATURES, DeviceOptions  # noqa: PLC0415 - slow import

    if not 0 <= args.port < 65536:
        raise UsageError("--port must be within 0..65535")
    if not 256 <= args.max_payload <= P.MAX_PAYLOAD:
        raise UsageError(f"--max-payload must be within 256..{P.MAX_PAYLOAD}")
    if args.accept_delay < 0:
        raise UsageError("--accept-delay cannot be negative")
    features = tuple(f for f in DEVICE_FEATURES if not (args.no_shell_v2 and f == "shell_v2"))
    options = DeviceOptions(
        host=args.host,
        port=args.port,
        protocol_version=VERSIONS[args.protocol_version],
        max_payload=args.max_payload,
        features=features,
        accept_any_key=args.accept_any_key,
        accept_new_keys=args.accept_new_keys,
        accept_delay=args.accept_delay,
    )
    if args.accept_any_key:
        return options
    return replace(options, authorized_keys=tuple(_trusted_keys(args.authorized_keys)))


def _trusted_keys(path: Path | None) -> list[str]:
    if path is None:
        return [key.public_key_bytes().rstrip(b"\0").decode() for key in load_keys()]
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read authorized keys ({exc.strerror})") from exc
    keys = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    if not keys:
        raise UsageError(f"{path}: no keys in the file")
    return keys


def run(args: argparse.Namespace) -> int:
    from adbwire.testing import SimulatedDevice  # noqa: PLC0415 - slow import
    from adbwire.testing.scenario import load_scenario  # noqa: PLC0415
    from adbwire.testing.userland import Userland  # noqa: PLC0415

    options = build_options(args)
    scenario = load_scenario(args.scenario)

    def userland(files: DeviceFiles) -> Userland:
        return Userland(scenario, files)

    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    with SimulatedDevice(options, userland_factory=userland) as device:
        host, port = device.address
        address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        print(address, flush=True)
        model = scenario.properties.get("ro.product.model", "device")
        print(
            f"adbwire: simulated {model} listening on {address}; Ctrl-C stops it",
            file=sys.stderr,
            flush=True,
        )
        stop.wait()
    return 0
