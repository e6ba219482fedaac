"""pytest plugin (entry point `pytest11`): devices for your own tests, with no phone in CI.

Fixtures, available once adbwire is installed::

    def test_model(adbwire_session):
        client = adbwire_session("tests/fixtures/model.jsonl")
        assert client.shell("getprop ro.product.model").exit_code == 0

- `adbwire_session(fixture)`: an `AdbClient` on a recorded session. Normally the fixture is
  replayed strictly (no device needed; a client that asks for anything else, or leaves
  recorded traffic unused, fails the test). Run pytest with
  `--adbwire-record=HOST:PORT` once to record the fixtures from a real device instead
  (`--adbwire-record=simulated`: from the simulated device).
- `adbwire_replay(fixture, strict=True)`: always a replay.
- `adbwire_simulator`: a running simulated device (`adbwire.testing.SimulatedDevice`, the
  default scenario, no authentication); `adbwire_simulated_client`: a client on it.
- `adbwire_mcp(fixture=None, **options)`: an MCP client session against ``adbwire serve``
  (in memory, the real server) on a replay of `fixture` — recorded instead with
  `--adbwire-record`, like `adbwire_session` — or, without a fixture, on a fresh simulated
  device. Use it in an async test (pytest-asyncio, or anyio's ``@pytest.mark.anyio``)::

      async def test_notes(adbwire_mcp):
          async with adbwire_mcp("tests/fixtures/notes.jsonl") as session:
              assert not (await session.call_tool("launch_app", {"package": "a.b"})).is_error

  Options are `adbwire.mcp.server.client_session.serve_session`'s (`profile`,
  `allow_destructive`, `local_root`, `mode`, `elicitation`, `strict`, `trace`).

  Each session records a trace (docs/trace.md). When the test fails, its report names the
  trace's HTML page (section "adbwire trace"); traces of tests that pass are deleted.
  `--adbwire-trace=all` keeps every trace, `--adbwire-trace=off` records none, and
  `--adbwire-trace-dir=DIR` says where they go (default: under pytest's temporary directory).

Every client and device is closed when the test ends (an MCP session: when its `async
with` ends).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from adbwire.mcp.server.client_session import SessionFactory as McpSessionFactory
    from adbwire.testing import SimulatedDevice
    from adbwire.wire.client import AdbClient

# pytest loads this plugin in every run where adbwire is installed: imports of adbwire's
# machinery happen inside the fixtures, so a run that uses none of them pays nothing.

RECORD_OPTION = "--adbwire-record"
TRACE_OPTION = "--adbwire-trace"
TRACE_DIR_OPTION = "--adbwire-trace-dir"
SIMULATED = "simulated"
SessionFactory = Callable[..., "AdbClient"]
_TRACES = pytest.StashKey[list[Path]]()
"""The trace directories the test's MCP sessions were given."""
_FAILED = pytest.StashKey[bool]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("adbwire", "adbwire: record and replay Android device sessions")
    group.addoption(
        RECORD_OPTION,
        metavar="HOST:PORT|simulated",
        default=None,
        help="record the fixtures of `adbwire_session` from this device instead of replaying",
    )
    group.addoption(
        TRACE_OPTION,
        choices=("failed", "all", "off"),
        default="failed",
        help="traces of `adbwire_mcp` sessions: kept for failed tests (default), all, or off",
    )
    group.addoption(
        TRACE_DIR_OPTION,
        type=Path,
        metavar="DIR",
        default=None,
        help="where `adbwire_mcp` traces go (default: under pytest's temporary directory)",
    )
    group.addoption(
        "--adbwire-note",
        default="",
        metavar="TEXT",
        help="free text written into the header of each recorded fixture",
    )


@pytest.fixture
def adbwire_simulator() -> Iterator[SimulatedDevice]:
    """A simulated device on a free loopback port (default scenario, no AUTH)."""
    from adbwire.testing import DeviceOptions, running_device  # noqa: PLC0415 - heavy

    with running_device(DeviceOptions(auth_required=False)) as device:
        yield device


@pytest.fixture
def adbwire_simulated_client(adbwire_simulator: SimulatedDevice) -> Iterator[AdbClient]:
    from adbwire.wire.client import AdbClient  # noqa: PLC0415
    from adbwire.wire.recording import ReplayKey  # noqa: PLC0415 - any key: no AUTH here

    with AdbClient.connect_tcp(adbwire_simulator.serial, [ReplayKey()]) as client:
        yield client


@pytest.fixture
def adbwire_replay() -> Iterator[SessionFactory]:
    """`adbwire_replay(path, strict=True)`: a client on the recorded device of `path`."""
    from adbwire.wire.recording import connect_replay  # noqa: PLC0415

    with contextlib.ExitStack() as stack:

        def replay(path: str | os.PathLike[str], *, strict: bool = True) -> AdbClient:
            return stack.enter_context(connect_replay(path, strict=strict))

        yield replay


def _recording_client(target: str, path: Path, note: str, stack: contextlib.ExitStack) -> AdbClient:
    from adbwire.wire.client import AdbClient  # noqa: PLC0415
    from adbwire.wire.recording import (  # noqa: PLC0415
        ORIGIN_REAL,
        ORIGIN_SIMULATED,
        RecordingTransport,
        ReplayKey,
    )
    from adbwire.wire.transport import TcpTransport, parse_tcp_address  # noqa: PLC0415

    path.parent.mkdir(parents=True, exist_ok=True)
    if target == SIMULATED:
        from adbwire.testing import DeviceOptions, running_device  # noqa: PLC0415

        device = stack.enter_context(running_device(DeviceOptions(auth_required=False)))
        transport = RecordingTransport(
            TcpTransport("127.0.0.1", device.port), path, origin=ORIGIN_SIMULATED, note=note
        )
        return stack.enter_context(AdbClient.connect(transport, [ReplayKey()]))
    host, port = parse_tcp_address(target)
    transport = RecordingTransport(TcpTransport(host, port), path, origin=ORIGIN_REAL, note=note)
    return stack.enter_context(AdbClient.connect(transport))  # the user's ~/.android keys


@pytest.fixture
def adbwire_session(request: pytest.FixtureRequest) -> Iterator[SessionFactory]:
    """`adbwire_session(path)`: a replay of `path`, or (with --adbwire-record) a recording."""
    target: str | None = request.config.getoption(RECORD_OPTION)
    note: str = request.config.getoption("--adbwire-note") or f"recorded by {request.node.nodeid}"
    from adbwire.wire.recording import connect_replay  # noqa: PLC0415

    with contextlib.ExitStack() as stack:

        def session(path: str | os.PathLike[str]) -> AdbClient:
            if target is None:
                return stack.enter_context(connect_replay(path, strict=True))
            return _recording_client(target, Path(path), note, stack)

        yield session


@pytest.fixture
def adbwire_mcp(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[McpSessionFactory]:
    """`adbwire_mcp(path)`: an MCP session on a replay of `path` (or, with --adbwire-record,
    recording it); `adbwire_mcp()`: on a simulated device. Each is an async context manager."""
    # adbwire.mcp owns everything MCP (only it may import the SDK); this only hands it over.
    from adbwire.mcp.server.client_session import SessionFactory  # noqa: PLC0415

    target: str | None = request.config.getoption(RECORD_OPTION)
    note: str = request.config.getoption("--adbwire-note") or f"recorded by {request.node.nodeid}"
    mode: str = request.config.getoption(TRACE_OPTION)
    traces = request.node.stash.setdefault(_TRACES, [])

    def new_trace() -> Path:
        from adbwire.mcp.trace import new_trace_dir  # noqa: PLC0415

        base = request.config.getoption(TRACE_DIR_OPTION) or (
            tmp_path_factory.getbasetemp() / "adbwire-traces"
        )
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid)[-120:]
        # a new directory each time: a --adbwire-trace-dir kept from an earlier run may
        # hold this test's trace already
        trace = new_trace_dir(Path(base), name)
        traces.append(trace)
        return trace

    yield SessionFactory(record=target, note=note, traces=None if mode == "off" else new_trace)
    if mode == "failed" and not request.node.stash.get(_FAILED, False):
        for trace in traces:
            shutil.rmtree(trace, ignore_errors=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    """A failed test's report names the pages of its traces (written now, from disk)."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    traces = item.stash.get(_TRACES, None)
    if report.failed and traces:
        item.stash[_FAILED] = True
        from adbwire.mcp.trace.viewer import write_html  # noqa: PLC0415

        pages = [str(write_html(trace)) for trace in traces if (trace / "trace.jsonl").is_file()]
        if pages:
            report.sections.append(("adbwire trace", "\n".join(pages)))
            report.user_properties.append(("adbwire_trace", pages))
