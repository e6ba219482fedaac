"""`adbwire demo`: watch an agent's session with adbwire, with no phone and no adb.

It starts the simulated device in this process, serves it with adbwire's MCP server, and
runs a scripted MCP client session against it: launch the sample app, read the screen as
text, tap a button by its label, type into a field, take a screenshot. Each call and what
came back is printed as a readable transcript.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import anyio

if TYPE_CHECKING:
    from adbwire.mcp.server.demo import StepResult

TREE_LINES = 12


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "demo",
        help="a scripted agent session against the simulated device",
        description="Start the simulated device, serve it over MCP, and run a short scripted "
        "client session (launch, read, tap, type, screenshot), printing the transcript.",
    )
    parser.add_argument(
        "--screenshot", type=Path, metavar="FILE", help="also write the screenshot to FILE"
    )
    parser.add_argument(
        "--trace",
        type=Path,
        metavar="DIR",
        help="record the session's trace into DIR (default: a new directory under the "
        "user's state directory)",
    )
    parser.add_argument("--no-trace", action="store_true", help="record no trace")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # The MCP SDK and the simulator are slow to import: only this command pays for them.
    from adbwire.mcp.server.demo import demo_app, run_session  # noqa: PLC0415
    from adbwire.mcp.trace.viewer import write_html  # noqa: PLC0415
    from adbwire.testing import DeviceOptions, running_device  # noqa: PLC0415

    out = sys.stdout
    out.write(
        "adbwire demo: an MCP client session with the simulated Android device\n"
        "(in this process, over the real ADB wire protocol on loopback; no adb, no phone)\n"
    )
    trace = None if args.no_trace else (args.trace or _default_trace())
    with running_device(DeviceOptions(auth_required=False)) as device:
        out.write(f"simulated device at {device.serial}\n")
        app = demo_app(device.serial, trace)
        try:
            results = anyio.run(functools.partial(run_session, app, on_step=_numbered(out)))
        finally:
            app.close()
    shot = next((r for r in results if r.image is not None), None)
    if args.screenshot is not None and shot is not None and shot.image is not None:
        args.screenshot.write_bytes(shot.image)
        out.write(f"\nscreenshot written to {args.screenshot}\n")
    failed = [r for r in results if not r.ok]
    out.write("\ndone: every step succeeded\n" if not failed else "\nstopped at a failed step\n")
    if trace is not None:
        page = write_html(trace).resolve()
        out.write(f"\ntrace (every step, with the screen before and after): {page}\n")
    return 1 if failed else 0


def _default_trace() -> Path:
    from adbwire.mcp.safety.audit import state_dir  # noqa: PLC0415
    from adbwire.mcp.trace import new_trace_dir  # noqa: PLC0415

    return new_trace_dir(state_dir() / "traces", prefix="demo")


def _numbered(out: TextIO) -> Any:
    count = [0]

    def on_step(result: StepResult) -> None:
        count[0] += 1
        write_step(out, count[0], result)

    return on_step


def write_step(out: TextIO, number: int, result: StepResult) -> None:
    step = result.step
    out.write(f"\n[{number}] {step.why}\n")
    out.write(f"  -> {step.tool} {json.dumps(step.arguments, ensure_ascii=False)}\n")
    mark = "<-" if result.ok else "<- ERROR"
    out.write(f"  {mark} {result.summary}\n")
    data = dict(result.data)
    tree = data.pop("tree", None)
    if isinstance(tree, str):
        lines = tree.splitlines()
        for line in lines[:TREE_LINES]:
            out.write(f"       {line}\n")
        if len(lines) > TREE_LINES:
            out.write(f"       ... {len(lines) - TREE_LINES} more\n")
    for key, value in data.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        out.write("     " + textwrap.shorten(f"{key}: {shown}", 95, placeholder=" ...") + "\n")
    if result.image is not None:
        out.write(f"     (image content: {result.mime_type}, {len(result.image)} bytes)\n")
