"""`adbwire simulate`: run the simulated Android device (a test adbd) in the foreground.

It listens on loopback unless told otherwise (and says loudly when told otherwise). By
default it trusts the user's own adb key, so `adbwire -s ADDRESS shell ...` and Google's
`adb connect ADDRESS` work at once. The address is printed on stdout as the first line, so
scripts can start it with `--port 0` and read where it listens.

With `--wireless` it is a phone with Wireless debugging on: TLS on the main port, no key
trusted until a host pairs (or `--authorized-keys`), and a pairing port whose address is the
second line on stdout (docs/wireless.md). Where multicast works it advertises both by mDNS,
as a phone does (`--no-mdns` turns that off); `--qr-payload` plays a phone that scanned
`adbwire pair --qr`'s QR code: the pairing service takes the QR's name and password.
"""

from __future__ import annotations

import argparse
import contextlib
import secrets
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
    from adbwire.testing import DeviceFiles, DeviceOptions, SimulatedDevice
    from adbwire.testing.pairing_server import PairingServer
    from adbwire.testing.scenario import Scenario
    from adbwire.testing.userland import Userland
    from adbwire.wire.mdns.names import QrPairing

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
    parser.add_argument(
        "--devices",
        type=int,
        default=1,
        metavar="N",
        help="host N devices, each with its own state, on consecutive ports from --port "
        "(free ports with --port 0); the addresses are the first N lines on stdout",
    )
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
    parser.add_argument(
        "--screencap-encode-ms",
        type=float,
        default=0.0,
        metavar="N",
        help="milliseconds `screencap -p` spends encoding its PNG (a phone: a few hundred)",
    )
    parser.add_argument(
        "--link-mbps",
        type=float,
        metavar="N",
        help="limit each direction of the link to N megabits/s (a USB 2 phone: about 40)",
    )
    wireless = parser.add_argument_group("wireless debugging (docs/wireless.md)")
    wireless.add_argument(
        "--wireless",
        action="store_true",
        help="act as a phone with Wireless debugging on: TLS on the main port and a pairing "
        "port; only keys paired (or given with --authorized-keys) are trusted",
    )
    wireless.add_argument(
        "--pair-port",
        type=int,
        default=0,
        metavar="PORT",
        help="port of 'Pair device with pairing code' (default 0: a free one, printed)",
    )
    wireless.add_argument(
        "--pair-code",
        metavar="CODE",
        help="the 6-digit pairing code (default: a random one, printed)",
    )
    wireless.add_argument(
        "--qr-payload",
        metavar="TEXT",
        help="act as if the phone scanned this QR code (WIFI:T:ADB;S:NAME;P:PASSWORD;;): "
        "pair with its password, advertise the pairing port under its name",
    )
    wireless.add_argument(
        "--no-mdns",
        action="store_true",
        help="do not advertise the wireless services by mDNS",
    )
    parser.set_defaults(handler=run)


def build_options(args: argparse.Namespace) -> DeviceOptions:
    from adbwire.testing import DEVICE_FEATURES, DeviceOptions  # noqa: PLC0415 - slow import

    if not 0 <= args.port < 65536:
        raise UsageError("--port must be within 0..65535")
    if not 256 <= args.max_payload <= P.MAX_PAYLOAD:
        raise UsageError(f"--max-payload must be within 256..{P.MAX_PAYLOAD}")
    if args.accept_delay < 0:
        raise UsageError("--accept-delay cannot be negative")
    if not 0 <= args.screencap_encode_ms <= 60_000:
        raise UsageError("--screencap-encode-ms must be within 0..60000")
    if args.link_mbps is not None and not args.link_mbps > 0:
        raise UsageError("--link-mbps must be positive")
    if not args.wireless and (args.pair_code is not None or args.pair_port or args.qr_payload):
        raise UsageError("--pair-port, --pair-code and --qr-payload need --wireless")
    if args.pair_code is not None and args.qr_payload is not None:
        raise UsageError("--pair-code and --qr-payload exclude each other: the QR code has one")
    if not 0 <= args.pair_port < 65536:
        raise UsageError("--pair-port must be within 0..65535")
    features = tuple(f for f in DEVICE_FEATURES if not (args.no_shell_v2 and f == "shell_v2"))
    options = DeviceOptions(
        host=args.host,
        port=args.port,
        protocol_version=VERSIONS[args.protocol_version],
        max_payload=args.max_payload,
        link_mbps=args.link_mbps,
        features=features,
        accept_any_key=args.accept_any_key,
        accept_new_keys=args.accept_new_keys,
        accept_delay=args.accept_delay,
        tls=args.wireless,
    )
    if args.accept_any_key:
        return options
    if args.wireless and args.authorized_keys is None:
        return options  # a phone trusts the hosts paired with it, not ours by default
    return replace(options, authorized_keys=tuple(_trusted_keys(args.authorized_keys)))


def pairing_code(args: argparse.Namespace) -> str:
    """The code of --pair-code (6 digits), or a random one as a phone shows."""
    from adbwire.wire.pairing.client import check_pairing_code  # noqa: PLC0415

    if args.qr_payload is not None:
        return _qr(args).password
    if args.pair_code is None:
        return f"{secrets.randbelow(1_000_000):06d}"
    return check_pairing_code(args.pair_code)


def _qr(args: argparse.Namespace) -> QrPairing:
    from adbwire.wire.mdns.names import parse_qr_payload  # noqa: PLC0415

    return parse_qr_payload(args.qr_payload)


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
    code = pairing_code(args) if args.wireless else ""
    scenario = load_scenario(args.scenario)
    if args.devices != 1:
        if args.wireless:
            raise UsageError("--devices hosts plain TCP devices: it cannot be used with --wireless")
        return _run_farm(args.devices, options, scenario)

    def userland(files: DeviceFiles) -> Userland:
        return Userland(scenario, files, screencap_encode_ms=args.screencap_encode_ms)

    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    with contextlib.ExitStack() as running:
        device = running.enter_context(SimulatedDevice(options, userland_factory=userland))
        host, port = device.address
        address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        print(address, flush=True)
        model = scenario.properties.get("ro.product.model", "device")
        print(
            f"adbwire: simulated {model} listening on {address}; Ctrl-C stops it",
            file=sys.stderr,
            flush=True,
        )
        if args.wireless:
            pairing = _start_pairing(running, device, code, args.pair_port)
            if not args.no_mdns:
                name = _qr(args).name if args.qr_payload is not None else None
                _advertise(running, device, pairing, name)
        stop.wait()
    return 0


def _advertise(
    running: contextlib.ExitStack,
    device: SimulatedDevice,
    pairing: PairingServer,
    pairing_name: str | None,
) -> None:
    """Advertise by mDNS as a phone does; where multicast does not work, say so and go on."""
    from adbwire.errors import TransportError  # noqa: PLC0415
    from adbwire.testing.mdns_advertiser import advertise_wireless_device  # noqa: PLC0415

    try:
        advertiser = advertise_wireless_device(device, pairing, pairing_name=pairing_name)
    except TransportError as error:
        print(f"adbwire: not advertised by mDNS: {error}", file=sys.stderr, flush=True)
        return
    running.callback(advertiser.close)
    print(
        f"adbwire: advertised by mDNS: {pairing.guid} (_adb-tls-connect._tcp), "
        f"{pairing_name or pairing.guid} (_adb-tls-pairing._tcp)",
        file=sys.stderr,
        flush=True,
    )


def _start_pairing(
    running: contextlib.ExitStack, device: SimulatedDevice, code: str, port: int
) -> PairingServer:
    """Open the pairing port; its address is the second line on stdout."""
    from adbwire.testing.pairing_server import PairingServer  # noqa: PLC0415

    server = running.enter_context(PairingServer(device, code, port=port))
    print(server.address, flush=True)
    print(
        f"adbwire: pairing port {server.address}, code {code} (closes after one pairing): "
        f"adbwire pair {server.address} {code}",
        file=sys.stderr,
        flush=True,
    )
    return server


def _run_farm(count: int, options: DeviceOptions, scenario: Scenario) -> int:
    """`--devices N`: N devices in this process (testing/farm.py); the addresses are the
    first N lines on stdout, in port order."""
    from adbwire.testing.farm import MAX_FARM_DEVICES, DeviceFarm  # noqa: PLC0415 - slow import

    if not 1 <= count <= MAX_FARM_DEVICES:
        raise UsageError(f"--devices must be within 1..{MAX_FARM_DEVICES}")
    if options.port and options.port + count > 65536:
        raise UsageError(f"--port {options.port} leaves no room for {count} consecutive ports")
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    farm = DeviceFarm(count, options, first_port=options.port, scenario=scenario, freeze_built=True)
    try:
        farm.start()
    except OSError as error:
        raise UsageError(f"cannot listen for {count} devices: {error.strerror}") from error
    try:
        print("\n".join(farm.addresses), flush=True)
        model = scenario.properties.get("ro.product.model", "device")
        print(
            f"adbwire: {count} simulated {model} devices on {farm.addresses[0]} … "
            f"{farm.addresses[-1]}; Ctrl-C stops them",
            file=sys.stderr,
            flush=True,
        )
        stop.wait()
    finally:
        farm.stop()
    return 0
