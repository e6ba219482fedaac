"""Many devices behind one `adbwire serve --http` (issue #23): `--only scale`.

For each N: N simulated devices in farm processes (`adbwire simulate --devices`), one server
connected to all of them, and the Python API's `connect_tcp_many` beside it. Measured:

- the farm's RSS per device, idle and with every device connected and used once;
- the server: time from ready to all N devices online, RSS and threads per device;
- `AdbClient.connect_tcp_many`: time to connect all N from this process;
- calls/s and p50/p99 of `get_property` from SESSIONS concurrent MCP sessions over HTTP,
  each call to a random device, with every device healthy; then with 10 % of the devices
  frozen (SIGSTOP, each with calls waiting on it) and then killed (their process gone).

The frozen and killed tenth live in a farm process of their own; calls go only to the
healthy devices in those phases, so the numbers show what the others suffer.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SESSIONS = 4
FULL_COUNTS = (1, 10, 100, 1000)
QUICK_COUNTS = (1, 10)
FULL_CALLS = 400
QUICK_CALLS = 40
SERVER_READY_TIMEOUT = 120.0
ONLINE_TIMEOUT = 300.0
SIMULATE = (sys.executable, "-m", "adbwire", "simulate", "--accept-any-key", "--port", "0")


def run(counts: tuple[int, ...], calls_per_phase: int) -> dict[str, Any]:
    logging.getLogger("httpx2").setLevel(logging.WARNING)  # a line per request otherwise
    results: dict[str, Any] = {"sessions": SESSIONS, "calls_per_phase": calls_per_phase}
    for count in counts:
        try:
            results[str(count)] = _one_size(count, calls_per_phase)
        except Exception as exc:  # a size that fails (memory, fds) is reported, the rest go on
            results[str(count)] = {"error": f"{type(exc).__name__}: {exc}"}
    return results


# ----------------------------------------------------------------------------- processes


def _rss_mib(pid: int) -> float:
    return _status_field(pid, "VmRSS") / 1024


def _threads(pid: int) -> int:
    return int(_status_field(pid, "Threads"))


def _status_field(pid: int, name: str) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(name + ":"):
                return float(line.split()[1])
    raise RuntimeError(f"no {name} for process {pid}")


@contextlib.contextmanager
def _farm(count: int) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    process = subprocess.Popen(
        [*SIMULATE, "--devices", str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        addresses = [process.stdout.readline().strip() for _ in range(count)]
        if not all(addresses):
            raise RuntimeError(f"the farm of {count} devices did not start")
        yield process, addresses
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGCONT)
            process.kill()
        process.wait(30)


@contextlib.contextmanager
def _server(addresses: list[str], home: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    connects = [part for address in addresses for part in ("--connect", address)]
    env = {**os.environ, "HOME": str(home), "XDG_STATE_HOME": str(home / "state")}
    env["ADBWIRE_MDNS"] = "0"
    argv = [sys.executable, "-m", "adbwire", "serve", "--no-audit", "--no-usb", "--profile"]
    argv += ["full", *connects, "--http", "127.0.0.1:0"]
    # Its log goes to a file: a pipe nobody reads would fill and stall the server.
    log_path = home / "serve.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(argv, env=env, stderr=log, text=True)
    try:
        deadline = time.monotonic() + SERVER_READY_TIMEOUT
        while "client config" not in (text := log_path.read_text()):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start: {text[-2000:]}")
            time.sleep(0.05)  # nothing to wait on but the file growing
        match = re.search(r"MCP over HTTP at (\S+)", text)
        assert match is not None
        yield process, match.group(1)
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(30)


# ----------------------------------------------------------------------------- one size


def _one_size(count: int, calls_per_phase: int) -> dict[str, Any]:
    victims = count // 10
    with contextlib.ExitStack() as stack:
        started = time.perf_counter()
        healthy_farm, healthy = stack.enter_context(_farm(count - victims))
        victim_farm, doomed = stack.enter_context(_farm(victims)) if victims else (None, [])
        farm_start_s = time.perf_counter() - started
        farms = [p for p in (healthy_farm, victim_farm) if p is not None]
        entry: dict[str, Any] = {
            "devices": count,
            "farm_processes": len(farms),
            "farm_start_s": farm_start_s,
            "farm_idle_rss_mib": sum(_rss_mib(p.pid) for p in farms),
        }
        entry["connect_many_s"] = _connect_many(healthy + doomed)
        home = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="adbwire-scale-")))
        server, url = stack.enter_context(_server(healthy + doomed, home))
        token = (home / "state" / "adbwire" / "http-token").read_text().strip()
        sessions = _Sessions(url, token)
        stack.enter_context(sessions)
        entry["online_s"] = sessions.wait_online(count)
        entry["server_rss_mib"] = _rss_mib(server.pid)
        entry["server_threads"] = _threads(server.pid)
        started = time.perf_counter()
        sessions.touch_each(healthy + doomed)  # builds each device's userland, warms caches
        entry["first_call_each_s"] = time.perf_counter() - started
        cpu_before = _cpu_seconds(server.pid)
        entry["healthy"] = sessions.load(healthy + doomed, calls_per_phase)
        entry["healthy"]["server_cpu_ms_per_call"] = (
            (_cpu_seconds(server.pid) - cpu_before) / calls_per_phase * 1000
        )
        entry["farm_used_rss_mib"] = sum(_rss_mib(p.pid) for p in farms)
        if victim_farm is not None:
            victim_farm.send_signal(signal.SIGSTOP)
            with sessions.waiting_on(doomed):
                entry["frozen_10pct"] = sessions.load(healthy, calls_per_phase)
            victim_farm.kill()
            victim_farm.wait(30)
            entry["killed_10pct"] = sessions.load(healthy, calls_per_phase)
        return entry


def _connect_many(addresses: list[str]) -> float:
    from adbwire.wire.client import AdbClient  # noqa: PLC0415
    from adbwire.wire.keys import generate_key  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as keys:
        key = generate_key(Path(keys) / "adbkey", comment="scale@bench")
        started = time.perf_counter()
        results = AdbClient.connect_tcp_many(addresses, [key], parallel=64)
        elapsed = time.perf_counter() - started
    failed = [a for a, r in results.items() if not isinstance(r, AdbClient)]
    for result in results.values():
        if isinstance(result, AdbClient):
            result.close()
    if failed:
        raise RuntimeError(f"connect_tcp_many: {len(failed)} of {len(addresses)} failed")
    return elapsed


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ----------------------------------------------------------------------------- MCP sessions


class _Sessions:
    """SESSIONS MCP clients over HTTP on an event loop in a portal thread."""

    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url, token
        self._stack = contextlib.ExitStack()
        self.clients: list[Any] = []

    def __enter__(self) -> _Sessions:
        from anyio.from_thread import start_blocking_portal  # noqa: PLC0415

        self.portal = self._stack.enter_context(start_blocking_portal())
        for _ in range(SESSIONS):
            self.clients.append(
                self._stack.enter_context(self.portal.wrap_async_context_manager(self._client()))
            )
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stack.close()

    @contextlib.asynccontextmanager
    async def _client(self) -> Any:
        import httpx2  # noqa: PLC0415
        from mcp import Client  # noqa: PLC0415
        from mcp.client.streamable_http import streamable_http_client  # noqa: PLC0415

        headers = {"Authorization": f"Bearer {self.token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=120) as http:
            transport = streamable_http_client(self.url, http_client=http)
            async with Client(transport, read_timeout_seconds=120) as client:
                yield client

    def wait_online(self, count: int) -> float:
        started = time.perf_counter()
        deadline = time.monotonic() + ONLINE_TIMEOUT
        while True:
            arguments = {"discover_seconds": 0}
            result = self.portal.call(self.clients[0].call_tool, "list_devices", arguments)
            devices = (result.structured_content or {}).get("devices", [])
            if sum(d["state"] == "device" for d in devices) == count:
                return time.perf_counter() - started
            if time.monotonic() > deadline:
                raise RuntimeError(f"not all {count} devices online after {ONLINE_TIMEOUT} s")
            time.sleep(0.05)  # the server has no "all online" event to wait for

    def touch_each(self, addresses: list[str]) -> None:
        """One call to every device, spread over the sessions."""

        async def session(client: Any, share: list[str]) -> None:
            for serial in share:
                await client.call_tool("get_property", {"serial": serial, "name": "ro.serialno"})

        async def all_sessions() -> None:
            import anyio  # noqa: PLC0415

            async with anyio.create_task_group() as group:
                for number, client in enumerate(self.clients):
                    group.start_soon(session, client, addresses[number :: len(self.clients)])

        self.portal.call(all_sessions)

    def load(self, addresses: list[str], calls: int) -> dict[str, Any]:
        """`calls` get_property calls spread over the sessions, each to a random device."""
        latencies: list[float] = []
        errors: dict[str, int] = {}

        async def session(client: Any, share: int, seed: int) -> None:
            pick = random.Random(seed)
            for _ in range(share):
                serial = pick.choice(addresses)
                arguments = {"serial": serial, "name": "ro.serialno"}
                started = time.perf_counter()
                result = await client.call_tool("get_property", arguments)
                latencies.append(time.perf_counter() - started)
                if result.is_error:
                    code = (result.structured_content or {}).get("error", {}).get("code", "?")
                    errors[code] = errors.get(code, 0) + 1

        async def all_sessions() -> None:
            import anyio  # noqa: PLC0415

            async with anyio.create_task_group() as group:
                for number, client in enumerate(self.clients):
                    group.start_soon(session, client, calls // len(self.clients), number)

        started = time.perf_counter()
        self.portal.call(all_sessions)
        elapsed = time.perf_counter() - started
        ordered = sorted(latencies)
        return {
            "calls": len(ordered),
            "calls_per_s": len(ordered) / elapsed,
            "p50_ms": statistics.median(ordered) * 1000,
            "p99_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
            "errors": errors,
        }

    @contextlib.contextmanager
    def waiting_on(self, frozen: list[str]) -> Iterator[None]:
        """A call waiting on each frozen device (in the background) while the body runs."""
        import anyio  # noqa: PLC0415

        async def wait_all() -> None:
            async with anyio.create_task_group() as group:
                for index, serial in enumerate(frozen):
                    client = self.clients[index % len(self.clients)]
                    arguments = {"serial": serial, "name": "ro.serialno"}
                    group.start_soon(client.call_tool, "get_property", arguments)

        future = self.portal.start_task_soon(wait_all)
        try:
            yield
        finally:
            future.cancel()


# ----------------------------------------------------------------------------- report


def markdown_lines(scale: dict[str, Any]) -> list[str]:
    """The section of the benchmark report (empty when the section did not run)."""
    if not scale:
        return []
    sizes = [scale[key] for key in scale if key.isdigit()]
    lines = [
        f"### 10. Scale: one `serve --http`, {scale['sessions']} MCP sessions, "
        f"{scale['calls_per_phase']} `get_property` calls per phase to random devices",
        "",
    ]
    header = ["devices", "farm MiB idle → used", "server MiB", "threads", "online s"]
    header += ["connect_tcp_many s", "first call each s", "server CPU ms/call"]
    rows, phases = [], []
    for entry in sizes:
        if "error" in entry:
            rows.append([str(entry.get("devices", "?")), entry["error"], *[""] * 6])
            continue
        n = str(entry["devices"])
        rows.append(
            [
                n,
                f"{entry['farm_idle_rss_mib']:.0f} → {entry['farm_used_rss_mib']:.0f}",
                f"{entry['server_rss_mib']:.0f}",
                str(entry["server_threads"]),
                f"{entry['online_s']:.2f}",
                f"{entry['connect_many_s']:.2f}",
                f"{entry['first_call_each_s']:.1f}",
                f"{entry['healthy']['server_cpu_ms_per_call']:.1f}",
            ]
        )
        for phase in ("healthy", "frozen_10pct", "killed_10pct"):
            if phase in entry:
                p = entry[phase]
                errors = ", ".join(f"{k} {v}" for k, v in p["errors"].items()) or "none"
                phases.append(
                    [
                        n,
                        phase,
                        f"{p['calls_per_s']:.0f}",
                        f"{p['p50_ms']:.0f}",
                        f"{p['p99_ms']:.0f}",
                        errors,
                    ]
                )
    lines += _table(header, rows)
    lines += _table(["devices", "phase", "calls/s", "p50 ms", "p99 ms", "errors"], phases)
    return lines


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return [*lines, *("| " + " | ".join(row) + " |" for row in rows), ""]
