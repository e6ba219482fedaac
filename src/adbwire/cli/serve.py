"""`adbwire serve`: the MCP server (stdio by default, Streamable HTTP with --http).

Stdout carries MCP protocol messages only; everything else goes to stderr.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adbwire.cli.timeout_options import timeouts_from
from adbwire.errors import UsageError
from adbwire.mcp.safety.policy import PROFILES
from adbwire.mcp.trace import new_trace_dir
from adbwire.wire.timeouts import Timeouts

if TYPE_CHECKING:
    from adbwire.mcp.server.launch import ServeOptions


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "serve",
        help="run the MCP server for AI agents",
        description=(
            "Serve Android devices to an MCP client (stdio, or Streamable HTTP with --http). "
            "Try it with no device: adbwire serve --simulate"
        ),
    )
    devices = parser.add_argument_group("devices")
    devices.add_argument(
        "--device",
        action="append",
        default=[],
        metavar="SERIAL",
        help="a device to serve (HOST:PORT for TCP); repeatable",
    )
    devices.add_argument(
        "--connect",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help="connect a TCP device at start; repeatable",
    )
    devices.add_argument(
        "--simulate", action="store_true", help="start the built-in simulated device and serve it"
    )
    # Own dests: the global --record/--replay (before the command) must not be overwritten.
    devices.add_argument(
        "--replay",
        type=Path,
        metavar="FILE",
        dest="serve_replay",
        help="serve a recorded session instead of a live device",
    )
    devices.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        dest="serve_record",
        help="record every device packet to FILE",
    )
    devices.add_argument("--no-usb", action="store_true", help="do not look for USB devices")
    devices.add_argument(
        "--device-calls",
        type=int,
        default=8,
        metavar="N",
        help="calls to one device that may run at once (default 8; docs/farms.md)",
    )
    devices.add_argument(
        "--device-queue",
        type=int,
        default=64,
        metavar="N",
        help="more calls to one device that may wait; past them: device_busy (default 64)",
    )
    safety = parser.add_argument_group("safety")
    safety.add_argument(
        "--policy",
        type=Path,
        metavar="FILE",
        dest="policy_file",
        help="TOML policy file (see docs/security.md)",
    )
    safety.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        help="which tools exist: read-only, standard (default) or full",
    )
    safety.add_argument(
        "--allow-destructive",
        action="store_true",
        help="run destructive tools without asking (implies --profile full)",
    )
    safety.add_argument(
        "--allow-device",
        action="append",
        default=[],
        metavar="SERIAL",
        help="only these devices may be used; repeatable",
    )
    safety.add_argument(
        "--emulators-only", action="store_true", help="refuse devices that are not emulators"
    )
    safety.add_argument(
        "--local-root",
        type=Path,
        metavar="DIR",
        help="the only host directory file tools may read and write",
    )
    safety.add_argument(
        "--audit-log",
        type=Path,
        metavar="FILE",
        help="audit log file (default: under the user's state directory)",
    )
    safety.add_argument("--no-audit", action="store_true", help="do not write an audit log")
    tracing = parser.add_argument_group("tracing (docs/trace.md)")
    tracing.add_argument(
        "--trace",
        type=Path,
        metavar="DIR",
        help="record every call, with the screen before and after actions, into a new "
        "directory under DIR; view it with: adbwire trace show DIR",
    )
    tracing.add_argument(
        "--trace-max-mb",
        type=float,
        default=100.0,
        metavar="MB",
        help="size budget of the trace; the oldest screenshots go first (default 100)",
    )
    transport = parser.add_argument_group("transport")
    transport.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve Streamable HTTP (e.g. 127.0.0.1:8765) instead of stdio",
    )
    transport.add_argument(
        "--show-token",
        action="store_true",
        help="print the HTTP bearer token in the client config snippet",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from adbwire.mcp.server.launch import serve  # noqa: PLC0415 - the MCP SDK is slow to import

    return serve(options_from(args))


def options_from(args: argparse.Namespace) -> ServeOptions:
    from adbwire.mcp.server.launch import ServeOptions  # noqa: PLC0415

    base = timeouts_from(args)
    if args.device_calls < 1 or args.device_queue < 0:
        raise UsageError("--device-calls must be at least 1 and --device-queue at least 0")
    return ServeOptions(
        devices=args.device,
        connect=args.connect,
        simulate=args.simulate,
        replay=args.serve_replay or getattr(args, "replay", None),
        strict_replay=getattr(args, "strict_replay", False),
        record=args.serve_record or getattr(args, "record", None),
        policy_file=args.policy_file,
        profile=args.profile,
        allow_destructive=args.allow_destructive,
        allow_devices=args.allow_device,
        emulators_only=args.emulators_only,
        local_root=args.local_root,
        audit_log=args.audit_log,
        no_audit=args.no_audit,
        usb=not args.no_usb,
        device_calls=args.device_calls,
        device_queue=args.device_queue,
        http=args.http,
        show_token=args.show_token,
        timeouts=Timeouts(
            connect=base.connect, auth=max(base.auth, 600.0), operation=base.operation
        ),
        trace=new_trace_dir(args.trace) if args.trace is not None else None,
        trace_budget=round(args.trace_max_mb * 1024 * 1024),
    )
