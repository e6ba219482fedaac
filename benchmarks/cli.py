"""`python -m benchmarks [--quick] [--only SECTION] [--no-adb] [--output DIR]`.

Starts the simulated device in its own process, connects the three clients (and an
in-memory MCP session), runs each measurement, checks the issue's targets, prints the
markdown report and writes it with a JSON file under benchmarks/results/. A section that
fails is recorded with its error and the run goes on; the exit status is then 1.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchmarks import (
    cold_start,
    compression,
    head_of_line,
    latency,
    memory,
    scale,
    screen,
    screenshot,
    small_payload,
    startup,
    transfer,
)
from benchmarks.clients import AdbShellClient, AdbwireClient, BenchClient, GoogleAdbClient
from benchmarks.config import FULL, MIB, QUICK, Config
from benchmarks.environment import describe, load_average, one_line
from benchmarks.mcp_session import McpSession, mcp_unavailable_reason
from benchmarks.report import markdown, write
from benchmarks.targets import evaluate
from benchmarks.workspace import Workspace

SECTIONS = (
    "latency",
    "screen",
    "screenshot",
    "transfer",
    "head_of_line",
    "memory",
    "startup",
    "compression",
    "small_payload",
    "cold_start",
    "scale",
)
OPT_IN = ("scale",)
"""Sections only `--only` runs: scale takes minutes and starts its own farms and servers."""
RESULTS_DIR = Path(__file__).resolve().parent / "results"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, few calls (seconds)")
    parser.add_argument("--only", action="append", choices=SECTIONS, help="run only these")
    parser.add_argument("--no-adb", action="store_true", help="leave Google's adb out")
    parser.add_argument("--output", type=Path, default=RESULTS_DIR, help="results directory")
    parser.add_argument(
        "--transfer-mib",
        type=int,
        action="append",
        metavar="N",
        help="bulk transfer sizes in MiB instead of the mode's (issue #20's row: 200)",
    )
    return parser


def _log(message: str) -> None:
    print(f"[benchmarks {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class _Run:
    def __init__(self, workspace: Workspace, config: Config, stack: contextlib.ExitStack) -> None:
        self.workspace = workspace
        self.config = config
        self.ours = AdbwireClient(workspace.serial, workspace.private_key)
        stack.callback(self.ours.close)
        self.clients: list[BenchClient] = [self.ours]
        if workspace.adb is not None:
            self.clients.append(GoogleAdbClient(workspace.adb, workspace.serial))
        adb_shell = AdbShellClient(workspace.serial, workspace.private_key)
        stack.callback(adb_shell.close)
        self.clients.append(adb_shell)
        self.mcp: McpSession | None = None
        self.mcp_pending = mcp_unavailable_reason()
        if self.mcp_pending is None:
            try:
                self.mcp = McpSession(workspace.serial, workspace.private_key)
                stack.callback(self.mcp.close)
            except Exception as exc:  # the MCP layer is being built: report, don't stop
                self.mcp_pending = f"pending: the in-memory MCP session failed ({exc!r})"

    def latency(self) -> dict[str, object]:
        sides: dict[str, Callable[[], None]] = {c.name: c.echo for c in self.clients}
        if self.mcp is not None:
            sides["mcp run_shell"] = self.mcp.echo
        return latency.run(sides, self.config, self.mcp_pending, self.workspace.cpu)

    def screen(self) -> dict[str, object]:
        if self.mcp is None:
            return {"pending": self.mcp_pending or "pending"}
        return screen.run(self.mcp, self.config.screen_calls)

    def screenshot(self) -> dict[str, object]:
        w = self.workspace
        calls = max(2, self.config.screen_calls * 2)
        keys = (w.private_key, w.public_key)
        return screenshot.run(self.ours.client, w.serial, w.adb, self.mcp, keys, calls)

    def transfer(self) -> dict[str, object]:
        return transfer.run(self.clients, self.workspace, self.config)

    def head_of_line(self) -> dict[str, object]:
        size = self.config.hol_size
        remote = f"/data/local/tmp/head-of-line-{size}.bin"
        on_device = self.workspace.device.host_path(remote)
        os.link(self.workspace.source_file(size), on_device)
        second = AdbwireClient(self.workspace.serial, self.workspace.private_key)
        try:
            return head_of_line.run(
                self.ours.client,
                second.client,
                self.ours.echo,
                remote,
                size,
                serial=self.workspace.serial,
                key=self.workspace.private_key,
            )
        finally:
            second.close()
            on_device.unlink(missing_ok=True)

    def memory(self) -> dict[str, object]:
        return memory.run(self.workspace, self.config.memory_sizes)

    def startup(self) -> dict[str, object]:
        return startup.run(self.workspace.scratch, self.config.startup_runs)

    def compression(self) -> dict[str, object]:
        w = self.workspace
        root = w.root / "compression"
        size, rounds = self.config.compression_size, self.config.transfer_rounds
        return compression.run(root, w.private_key, w.public_key, size, rounds)

    def cold_start(self) -> dict[str, object]:
        w = self.workspace
        return cold_start.run(w.scratch, w.private_key, w.serial, self.config.startup_runs)

    def scale(self) -> dict[str, object]:
        counts = scale.QUICK_COUNTS if self.config.quick else scale.FULL_COUNTS
        calls = scale.QUICK_CALLS if self.config.quick else scale.FULL_CALLS
        return scale.run(counts, calls)

    def small_payload(self) -> dict[str, object]:
        w = self.workspace
        size = self.config.small_payload_size
        root = w.root / "small-payload"
        root.mkdir(exist_ok=True)
        rounds = self.config.transfer_rounds
        try:
            return small_payload.run(
                root, w.private_key, w.public_key, w.source_file(size), w.adb, rounds
            )
        finally:
            w.drop_source(size)


def run(config: Config, sections: Sequence[str], *, with_adb: bool) -> dict[str, Any]:
    results: dict[str, Any] = {
        "meta": {"quick": config.quick, "started": datetime.now(timezone.utc).isoformat()},
        "errors": {},
    }
    with contextlib.ExitStack() as stack:
        _log("starting the simulated device, Google's adb server and the clients")
        workspace = stack.enter_context(Workspace(with_adb=with_adb))
        adb_version = workspace.adb.version() if workspace.adb is not None else None
        results["meta"]["machine_details"] = describe(adb_version)
        bench = _Run(workspace, config, stack)
        for section in sections:
            _log(f"{section} ...")
            started = time.perf_counter()
            try:
                results[section] = getattr(bench, section)()
            except Exception as exc:
                results["errors"][section] = "".join(traceback.format_exception(exc))[-4000:]
                _log(f"{section} FAILED: {exc!r}")
            _log(f"{section} took {time.perf_counter() - started:.1f} s")
    details = results["meta"]["machine_details"]
    details["load_average_at_end"] = load_average()
    results["meta"]["machine"] = one_line(details)
    results["meta"]["sizes_mib"] = [size // MIB for size in config.transfer_sizes]
    results["targets"] = evaluate(results)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    config = QUICK if args.quick else FULL
    if args.transfer_mib:
        config = replace(config, transfer_sizes=tuple(size * MIB for size in args.transfer_mib))
    sections = (
        [s for s in SECTIONS if s in args.only]
        if args.only
        else [s for s in SECTIONS if s not in OPT_IN]
    )
    results = run(config, sections, with_adb=not args.no_adb)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    mode = "quick" if config.quick else "full"
    json_path, markdown_path = write(results, args.output, f"{mode}-{stamp}")
    print(markdown(results))
    for section, error in results["errors"].items():
        print(f"\n{section} failed:\n{error}", file=sys.stderr)
    _log(f"wrote {markdown_path} and {json_path}")
    return 1 if results["errors"] else 0
