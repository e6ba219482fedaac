"""Cold start (issue #20), each against its baseline on the same machine, runs interleaved:

- CLI: the whole `adbwire -s SERIAL shell true` (and `adbwire --version`) against a bare
  `python3 -S -c pass`, in wall-clock time and in CPU time (user + system of the child,
  steadier than wall-clock on a shared machine); and the floor under `shell true`: the
  interpreter with its site and the standard-library modules that command needs, no adbwire;
- MCP: spawn → first `tools/list` answer of `adbwire serve --no-usb` against the smallest
  stdio server on the same SDK (benchmarks/minimal_mcp_server.py).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.children import REPO_ROOT

WAIT = 120.0
STDLIB_FLOOR = (
    "import argparse, base64, enum, re, select, socket, struct, threading, typing\n"
    "argparse.ArgumentParser(prog='floor').parse_args([])\n"
)
"""What `adbwire -s S shell true` cannot do without (tests/test_cli_startup.py keeps the rest
off its path): TCP, its reader thread, the parser (whose help texts load gettext and locale),
the key's PEM, typing for the transports' runtime-checked protocols."""
INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "adbwire-benchmark", "version": "1"},
}


def _environment(scratch: Path, private_key: Path) -> dict[str, str]:
    home = scratch / "cold-home"
    (home / ".android").mkdir(parents=True, exist_ok=True)
    for suffix in ("", ".pub"):
        target = home / ".android" / f"adbkey{suffix}"
        if not target.exists():
            target.write_bytes(Path(f"{private_key}{suffix}").read_bytes())
    return {
        "HOME": str(home),
        "XDG_STATE_HOME": str(scratch / "cold-state"),
        "PATH": os.environ.get("PATH", ""),
        "ADBWIRE_MDNS": "0",
    }


def _adbwire() -> list[str]:
    script = Path(sys.executable).with_name("adbwire")
    return [str(script)] if script.exists() else [sys.executable, "-m", "adbwire"]


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed_run(argv: list[str], environment: dict[str, str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one run (the CPU of the children waited for meanwhile:
    only this one, the simulated device runs on)."""
    cpu_before = _child_cpu()
    started = time.perf_counter()
    done = subprocess.run(argv, env=environment, capture_output=True, timeout=WAIT, check=False)
    elapsed = time.perf_counter() - started
    cpu = _child_cpu() - cpu_before
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-300:]!r}")
    return elapsed, cpu


def _message(number: int | None, method: str, params: dict[str, Any]) -> bytes:
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if number is not None:
        body["id"] = number
    return json.dumps(body).encode() + b"\n"


def first_tools_list(argv: list[str], environment: dict[str, str]) -> tuple[float, dict[str, Any]]:
    """Spawn an MCP stdio server, send initialize, initialized and tools/list at once (as a
    client would, without waiting) and time until the tools/list reply; returns the seconds
    and the reply. A server that answers nothing within WAIT is killed (readline ends)."""
    messages = (
        _message(1, "initialize", INITIALIZE)
        + _message(None, "notifications/initialized", {})
        + _message(2, "tools/list", {})
    )
    started = time.perf_counter()
    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=environment,
        cwd=REPO_ROOT,
    )
    assert process.stdin is not None and process.stdout is not None
    watchdog = threading.Timer(WAIT, process.kill)
    watchdog.start()
    try:
        process.stdin.write(messages)
        process.stdin.flush()
        while line := process.stdout.readline():
            reply: dict[str, Any] = json.loads(line)
            if reply.get("id") == 2:
                return time.perf_counter() - started, reply
        raise RuntimeError(f"{argv[-3:]} ended (or hung past {WAIT:g} s) before tools/list")
    finally:
        watchdog.cancel()
        process.stdin.close()
        try:
            process.wait(WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(WAIT)
        process.stdout.close()


def _first_tools_list(argv: list[str], environment: dict[str, str]) -> tuple[float, float]:
    """Wall-clock seconds to the tools/list reply and the server's CPU seconds (to its exit
    at the end of input, which first_tools_list waits for)."""
    cpu_before = _child_cpu()
    wall = first_tools_list(argv, environment)[0]
    return wall, _child_cpu() - cpu_before


def _summary(samples: dict[str, list[float]]) -> dict[str, Any]:
    return {
        name: {"runs_s": values, "median_s": statistics.median(values)}
        for name, values in samples.items()
    }


def run(scratch: Path, private_key: Path, serial: str, runs: int) -> dict[str, Any]:
    environment = _environment(scratch, private_key)
    adbwire = _adbwire()
    bare = [sys.executable, "-S", "-c", "pass"]
    cli: dict[str, list[float]] = {
        "python3 -S -c pass": [],
        "--version": [],
        "stdlib floor": [],
        "shell true": [],
    }
    cli_cpu: dict[str, list[float]] = {name: [] for name in cli}
    mcp: dict[str, list[float]] = {"minimal server": [], "adbwire serve --no-usb": []}
    mcp_cpu: dict[str, list[float]] = {name: [] for name in mcp}
    minimal = [sys.executable, str(REPO_ROOT / "benchmarks" / "minimal_mcp_server.py")]
    serve = [*adbwire, "serve", "--no-usb", "--no-audit"]
    shell = [*adbwire, "-s", serial, "shell", "true"]
    commands = {"python3 -S -c pass": bare, "--version": [*adbwire, "--version"]}
    commands["stdlib floor"] = [sys.executable, "-c", STDLIB_FLOOR]
    commands["shell true"] = shell
    for _ in range(runs):
        for name, argv in commands.items():
            wall, cpu = _timed_run(argv, environment)
            cli[name].append(wall)
            cli_cpu[name].append(cpu)
        for name, argv in (("minimal server", minimal), ("adbwire serve --no-usb", serve)):
            wall, cpu = _first_tools_list(argv, environment)
            mcp[name].append(wall)
            mcp_cpu[name].append(cpu)
    result: dict[str, Any] = {"runs": runs, "cli": _summary(cli), "mcp": _summary(mcp)}
    base = result["cli"]["python3 -S -c pass"]["median_s"]
    compared = ("--version", "stdlib floor", "shell true")
    result["cli_ratio"] = {name: result["cli"][name]["median_s"] / base for name in compared}
    result["cli_cpu"] = _summary(cli_cpu)
    base_cpu = result["cli_cpu"]["python3 -S -c pass"]["median_s"]
    result["cli_cpu_ratio"] = {
        name: result["cli_cpu"][name]["median_s"] / base_cpu for name in compared
    }
    result["load_average"] = os.getloadavg()
    result["mcp_ratio"] = (
        result["mcp"]["adbwire serve --no-usb"]["median_s"]
        / result["mcp"]["minimal server"]["median_s"]
    )
    result["mcp_cpu"] = _summary(mcp_cpu)
    result["mcp_cpu_ratio"] = (
        result["mcp_cpu"]["adbwire serve --no-usb"]["median_s"]
        / result["mcp_cpu"]["minimal server"]["median_s"]
    )
    return result
