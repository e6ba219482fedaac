"""Cold start (issue #20), each against its baseline on the same machine, runs interleaved:

- CLI: the whole `adbwire -s SERIAL shell true` (and `adbwire --version`) against a bare
  `python3 -S -c pass`;
- MCP: spawn → first `tools/list` answer of `adbwire serve --no-usb` against the smallest
  stdio server on the same SDK (benchmarks/minimal_mcp_server.py).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.children import REPO_ROOT

WAIT = 120.0
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


def _timed_run(argv: list[str], environment: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=environment, capture_output=True, timeout=WAIT, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-300:]!r}")
    return elapsed


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


def _first_tools_list(argv: list[str], environment: dict[str, str]) -> float:
    return first_tools_list(argv, environment)[0]


def _summary(samples: dict[str, list[float]]) -> dict[str, Any]:
    return {
        name: {"runs_s": values, "median_s": statistics.median(values)}
        for name, values in samples.items()
    }


def run(scratch: Path, private_key: Path, serial: str, runs: int) -> dict[str, Any]:
    environment = _environment(scratch, private_key)
    adbwire = _adbwire()
    bare = [sys.executable, "-S", "-c", "pass"]
    cli: dict[str, list[float]] = {"python3 -S -c pass": [], "--version": [], "shell true": []}
    mcp: dict[str, list[float]] = {"minimal server": [], "adbwire serve --no-usb": []}
    minimal = [sys.executable, str(REPO_ROOT / "benchmarks" / "minimal_mcp_server.py")]
    serve = [*adbwire, "serve", "--no-usb", "--no-audit"]
    for _ in range(runs):
        cli["python3 -S -c pass"].append(_timed_run(bare, environment))
        cli["--version"].append(_timed_run([*adbwire, "--version"], environment))
        shell = [*adbwire, "-s", serial, "shell", "true"]
        cli["shell true"].append(_timed_run(shell, environment))
        mcp["minimal server"].append(_first_tools_list(minimal, environment))
        mcp["adbwire serve --no-usb"].append(_first_tools_list(serve, environment))
    result: dict[str, Any] = {"runs": runs, "cli": _summary(cli), "mcp": _summary(mcp)}
    base = result["cli"]["python3 -S -c pass"]["median_s"]
    result["cli_ratio"] = {
        name: result["cli"][name]["median_s"] / base for name in ("--version", "shell true")
    }
    result["mcp_ratio"] = (
        result["mcp"]["adbwire serve --no-usb"]["median_s"]
        / result["mcp"]["minimal server"]["median_s"]
    )
    return result
