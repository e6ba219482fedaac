"""Starting the server for `adbwire serve`: policy, devices, simulator, audit, transport."""

from __future__ import annotations

import contextlib
import logging
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from adbwire.errors import UsageError
from adbwire.mcp.devices import DeviceRegistry, TransportWrapper
from adbwire.mcp.safety.audit import AuditLog, state_dir
from adbwire.mcp.safety.policy import Policy, load_policy_file, with_flags
from adbwire.mcp.server.app import App
from adbwire.mcp.server.server import build_server
from adbwire.mcp.server.stdio import run_stdio
from adbwire.mcp.trace import start_trace
from adbwire.wire.aio import DEVICE_CONCURRENCY, DEVICE_QUEUE
from adbwire.wire.connection import Signer
from adbwire.wire.keys import load_keys
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.transport import Transport

log = logging.getLogger(__name__)


@dataclass
class ServeOptions:
    devices: Sequence[str] = ()
    connect: Sequence[str] = ()
    simulate: bool = False
    replay: Path | None = None
    strict_replay: bool = False
    """A request the fixture lacks stops the replayed connection (else it fails alone)."""
    record: Path | None = None
    policy_file: Path | None = None
    profile: str | None = None
    allow_destructive: bool = False
    allow_devices: Sequence[str] = ()
    emulators_only: bool = False
    local_root: Path | None = None
    audit_log: Path | None = None
    no_audit: bool = False
    usb: bool = True
    """Scan USB (off with --no-usb; --simulate and --replay serve only their device)."""
    device_calls: int = DEVICE_CONCURRENCY
    device_queue: int = DEVICE_QUEUE
    """Each device's lane: calls at once, calls waiting (then device_busy; docs/farms.md)."""
    http: str | None = None
    show_token: bool = False
    timeouts: Timeouts = field(default_factory=lambda: Timeouts(connect=10.0, auth=600.0))
    trace: Path | None = None
    """Record every call into this (new) trace directory (docs/trace.md)."""
    trace_budget: int | None = None
    """Bytes the trace may hold (default `writer.DEFAULT_BUDGET_BYTES`)."""


def build_policy(options: ServeOptions) -> Policy:
    policy = load_policy_file(options.policy_file) if options.policy_file else Policy()
    return with_flags(
        policy,
        profile=options.profile,
        allow_destructive=options.allow_destructive,
        allow_devices=options.allow_devices,
        emulators_only=options.emulators_only,
        local_root=options.local_root,
    )


def _recording(options: ServeOptions) -> TransportWrapper | None:
    if options.record is None:
        return None
    if options.replay is None and len([*options.connect, *options.devices]) + options.simulate != 1:
        raise UsageError("--record needs exactly one device (--simulate, --connect or --device)")
    # Recording, replay and USB load only when asked for: stdio start-up (issue #20).
    from adbwire.wire.recording import ORIGIN_SIMULATED, wrap_transport  # noqa: PLC0415

    path, origin = options.record, ORIGIN_SIMULATED if options.simulate else None
    recorded: list[bool] = []

    def wrap(transport: Transport) -> Transport:
        if recorded:  # a reconnection is not recorded over the first session
            return transport
        recorded.append(True)
        return wrap_transport(transport, record=path, origin=origin)

    return wrap


@contextlib.contextmanager
def running_app(options: ServeOptions, transport: str) -> Iterator[App]:
    """The App with its devices registered (and the simulator running); closed on exit."""
    policy = build_policy(options)
    wrap = _recording(options)

    def keys() -> Sequence[Signer]:
        return load_keys()

    registry = DeviceRegistry(
        keys,
        timeouts=options.timeouts,
        lane_concurrency=options.device_calls,
        lane_queue=options.device_queue,
    )
    audit_path = None if options.no_audit else (options.audit_log or state_dir() / "audit.jsonl")
    app = App(policy=policy, devices=registry, audit=AuditLog(audit_path), transport=transport)
    # The app (its device connections, recordings) closes before the simulated device
    # stops, so a recording ends with the host closing, as a real session does.
    with contextlib.ExitStack() as simulator, contextlib.closing(app):
        if options.simulate:
            address = simulator.enter_context(_simulated_device())
            registry.add_tcp(address, kind="simulated", keys=list, wrap=wrap)
            print(f"adbwire: simulated device at {address}", file=sys.stderr)
        if options.replay is not None:
            _add_replay(registry, options.replay, options.record, options.strict_replay)
        usb_serials = [s for s in options.devices if ":" not in s]
        for address in [*options.connect, *(s for s in options.devices if ":" in s)]:
            registry.add_tcp(address, wrap=wrap)
        if options.usb and not (options.simulate or options.replay):
            from adbwire.mcp.server.usb_source import UsbSource  # noqa: PLC0415 - libusb

            registry.add_source(UsbSource(only=usb_serials))
            registry.refresh()  # devices plugged in now; later ones appear on each refresh
        if audit_path is not None:
            print(f"adbwire: audit log {audit_path}", file=sys.stderr)
        if options.trace is not None:
            app.trace = start_trace(options.trace, options.trace_budget, source=transport)
            shown = f"adbwire trace show {options.trace}"
            print(f"adbwire: trace {options.trace} (to view it: {shown})", file=sys.stderr)
        yield app


def _add_replay(
    registry: DeviceRegistry, fixture: Path, record: Path | None, strict: bool = False
) -> None:
    if not fixture.is_file():
        raise UsageError(f"--replay {fixture}: no such fixture file")
    from adbwire.wire.recording import ReplayKey, wrap_transport  # noqa: PLC0415

    serial = "replay-" + re.sub(r"[^A-Za-z0-9._-]", "_", fixture.stem)

    def transport() -> Transport:
        return wrap_transport(None, replay=fixture, record=record, strict=strict)

    registry.add_transport(serial, "replay", transport, [ReplayKey()])
    print(f"adbwire: replaying {fixture} as {serial}", file=sys.stderr)


@contextlib.contextmanager
def _simulated_device() -> Iterator[str]:
    try:
        from adbwire.testing import DeviceOptions, SimulatedDevice  # noqa: PLC0415
    except ImportError as exc:  # pragma: no cover - the simulator ships with adbwire
        raise UsageError(f"--simulate needs adbwire.testing: {exc}") from exc
    device = SimulatedDevice(DeviceOptions(auth_required=False))
    device.start()
    try:
        yield device.serial
    finally:
        device.stop()


def serve(options: ServeOptions) -> int:
    """Run until the client goes away or the process is interrupted; 128 + the signal
    number when a signal ended the session (stdio or HTTP)."""
    transport = "http" if options.http else "stdio"
    with running_app(options, transport) as app:
        server = build_server(app)
        if options.http:
            from adbwire.mcp.server.http import serve_http  # noqa: PLC0415 - pulls in uvicorn

            stopped_by = anyio.run(serve_http, server, options.http, options.show_token)
        else:
            stopped_by = anyio.run(run_stdio, server)
    if stopped_by is not None:
        return 128 + stopped_by  # the shell's convention: 130 for Ctrl-C, 143 for SIGTERM
    return 0
