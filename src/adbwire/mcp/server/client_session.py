"""MCP client sessions against adbwire's own server, in memory: for tests, CI and scripts.

    async with serve_session(simulate=True) as session:
        result = await session.call_tool("list_packages", {"third_party_only": True})

`serve_session` starts what ``adbwire serve`` starts (`launch.running_app`: the policy, the
device registry, the simulated or the replayed device) and connects a real MCP client
(`mcp.Client`) to the server `build_server` makes — in memory: no child process, no stdio. So
a test of an agent flow goes through the same catalogue, policy, confirmation, envelope
and device code as a real agent does.

The pytest plugin (``adbwire.pytest_plugin``) gives this to a user's tests as the
`adbwire_mcp` fixture, a `SessionFactory`; this module holds it because only
``adbwire.mcp`` may import the MCP SDK.

`ToolStep` and `run_steps` run a scripted list of tool calls and return their results in a
form that can be compared across runs (protocol_fixtures/mcp/ and its test use them).
"""

from __future__ import annotations

import contextlib
import json
import os
import warnings
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.session import ElicitationFnT

from adbwire.errors import ReplayMismatchError, UsageError
from adbwire.mcp.server.app import App
from adbwire.mcp.server.launch import ServeOptions, running_app
from adbwire.mcp.server.server import build_server
from adbwire.wire.recording import FixtureWarning

PathLike = str | os.PathLike[str]
SIMULATED = "simulated"
"""`SessionFactory(record=SIMULATED)`: record from the simulated device."""


@contextlib.asynccontextmanager
async def connect_app(
    app: App, *, mode: str = "auto", elicitation: ElicitationFnT | None = None
) -> AsyncIterator[Client]:
    """An MCP client connected in memory to the server built for `app`."""
    async with Client(build_server(app), mode=mode, elicitation_callback=elicitation) as client:
        yield client


@contextlib.asynccontextmanager
async def serve_session(
    *,
    simulate: bool = False,
    replay: PathLike | None = None,
    connect: Sequence[str] = (),
    record: PathLike | None = None,
    note: str = "",
    profile: str | None = None,
    allow_destructive: bool = False,
    local_root: PathLike | None = None,
    policy_file: PathLike | None = None,
    audit_log: PathLike | None = None,
    strict: bool = True,
    mode: str = "auto",
    elicitation: ElicitationFnT | None = None,
    trace: PathLike | None = None,
    trace_budget: int | None = None,
) -> AsyncIterator[Client]:
    """A connected MCP client against ``adbwire serve`` with the same options, in memory.

    - `simulate`: serve a simulated device (default scenario); `replay`: serve the device
      recorded in a fixture; `connect`: TCP devices (``HOST:PORT``). USB is not scanned.
    - `record`: write the session with the one device to this fixture (``--record``),
      with `note` in its header.
    - `profile`, `allow_destructive`, `local_root`, `policy_file`: as ``adbwire serve``.
      Without `allow_destructive`, destructive tools ask through `elicitation`.
    - `strict` (replay): recorded traffic the session never used raises
      `ReplayMismatchError` when the session ends (else a `FixtureWarning`), and a request
      the recording does not have fails the tool call at once and stops the replayed
      connection (``protocol_error``, with the replay's message naming the stream and the
      fixture line). Not strict: such a request fails its stream only, and path resolution
      the recording lacks is answered as a device without it (docs/fixtures.md).
    - `mode`: the MCP client's mode (``auto``: the newest protocol; ``legacy``: a session
      with state, which `select_device` needs).
    - `audit_log`: where the audit lines go (default: none are written).
    - `trace`: record every call into this new directory (``serve --trace``; view it with
      ``adbwire trace show``), within `trace_budget` bytes (docs/trace.md).
    """
    if not (simulate or replay is not None or connect):
        raise UsageError("serve_session needs a device: simulate=True, replay=PATH or connect=")
    options = ServeOptions(
        connect=tuple(connect),
        simulate=simulate,
        replay=_path(replay),
        strict_replay=strict,
        record=_path(record),
        policy_file=_path(policy_file),
        profile=profile,
        allow_destructive=allow_destructive,
        local_root=_path(local_root),
        audit_log=_path(audit_log),
        no_audit=audit_log is None,
        usb=False,
        trace=_path(trace),
        trace_budget=trace_budget,
    )
    stack = contextlib.ExitStack()
    app = stack.enter_context(running_app(options, transport="memory"))
    failed = False
    try:
        async with connect_app(app, mode=mode, elicitation=elicitation) as client:
            yield client
    except BaseException:
        failed = True
        raise
    finally:
        unused = _close_collecting_unused(app, stack)
        if record is not None and note:
            _set_note(Path(record), note)
        if unused and strict and not failed:
            raise ReplayMismatchError("; ".join(unused), fixture=options.replay)
        for message in unused:
            warnings.warn(message, FixtureWarning, stacklevel=2)


def _path(value: PathLike | None) -> Path | None:
    return None if value is None else Path(value)


def _close_collecting_unused(app: App, stack: contextlib.ExitStack) -> list[str]:
    """Close the app; the replay's unused-traffic warnings, collected (others re-emitted).

    The connections are closed before the simulator stops, so that a recording ends with
    the host closing, as with a real device (else its replay would drop the device as soon
    as the last recorded stream is played). Every warning is recorded, none raised: a
    `-W error` must not stop the closing half way."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if app.trace is not None:  # its last screens are taken from the devices
                app.trace.close()
            app.close_services()  # settings a session changed go back while devices are up
            app.devices.close()
        finally:
            stack.close()
    unused: list[str] = []
    for warning in caught:
        if issubclass(warning.category, FixtureWarning):
            unused.append(str(warning.message))
        else:
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    return unused


def _set_note(path: Path, note: str) -> None:
    """Put `note` into a finished recording's header (``adbwire serve --record`` has no note
    option): line 1 is the header object (docs/fixtures.md)."""
    header, newline, rest = path.read_bytes().partition(b"\n")
    fields = json.loads(header)
    fields["note"] = note
    updated = json.dumps(fields, ensure_ascii=False, separators=(", ", ": ")).encode()
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(updated + newline + rest)
    partial.replace(path)


class SessionFactory:
    """What the pytest fixture `adbwire_mcp` gives a test: call it for a session.

    ``factory(path)`` replays the fixture at `path` strictly — or, when the factory was
    made with `record` (pytest ``--adbwire-record=HOST:PORT|simulated``), records it from
    that device. ``factory()`` serves a fresh simulated device. Keyword arguments go to
    `serve_session` (`profile`, `allow_destructive`, `local_root`, `mode`, ...).
    """

    def __init__(
        self,
        *,
        record: str | None = None,
        note: str = "",
        traces: Callable[[], Path] | None = None,
    ) -> None:
        self.record = record
        self.note = note
        self.traces = traces
        """Gives each session a new trace directory (the plugin's ``--adbwire-trace``)."""

    def __call__(
        self, fixture: PathLike | None = None, **options: Any
    ) -> contextlib.AbstractAsyncContextManager[Client]:
        if self.traces is not None and options.get("trace") is None:
            options["trace"] = self.traces()
        if fixture is None:
            return serve_session(simulate=True, **options)
        if self.record is None:
            return serve_session(replay=fixture, **options)
        Path(fixture).parent.mkdir(parents=True, exist_ok=True)
        source: dict[str, Any] = (
            {"simulate": True} if self.record == SIMULATED else {"connect": [self.record]}
        )
        return serve_session(**source, record=fixture, note=self.note, **options)


# ------------------------------------------------------------------ scripted sessions

PLACEHOLDER = "${{{}}}"
MASKED = "<varies>"


@dataclass(frozen=True)
class ToolStep:
    """One call of a scripted session, and what of its result varies between runs."""

    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    volatile: tuple[str, ...] = ()
    """Result keys, at any depth, whose values differ between runs: masked as `MASKED`."""
    keep: Mapping[str, str] = field(default_factory=dict)
    """Binding name -> top-level result key: later arguments use the value as ``${name}``."""

    def as_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"tool": self.tool, "arguments": dict(self.arguments)}
        if self.volatile:
            found["volatile"] = list(self.volatile)
        if self.keep:
            found["keep"] = dict(self.keep)
        return found

    @classmethod
    def from_json(cls, found: Mapping[str, Any]) -> ToolStep:
        return cls(
            found["tool"],
            found.get("arguments", {}),
            tuple(found.get("volatile", ())),
            found.get("keep", {}),
        )


async def run_steps(
    session: Client, steps: Sequence[ToolStep], bindings: dict[str, Any]
) -> list[dict[str, Any]]:
    """Call each step's tool; each outcome as comparable JSON.

    `bindings` are values that differ between runs (the device's serial, a temporary
    directory, a port): ``${name}`` in arguments is replaced by the value, and the value
    in results by ``${name}``. `keep` adds bindings from results (a paging cursor).
    """
    outcomes: list[dict[str, Any]] = []
    for step in steps:
        result = await session.call_tool(step.tool, substitute(dict(step.arguments), bindings))
        structured = dict(result.structured_content or {})
        for name, key in step.keep.items():
            bindings[name] = structured.get(key)
        outcome = step.as_json()
        outcome["is_error"] = bool(result.is_error)
        outcome["content"] = [block.type for block in result.content]
        outcome["result"] = normalise(structured, bindings, step.volatile)
        outcomes.append(outcome)
    return outcomes


def substitute(value: Any, bindings: Mapping[str, Any]) -> Any:
    """`value` with each ``${name}`` replaced by its binding (a whole string: any type)."""
    if isinstance(value, dict):
        return {key: substitute(item, bindings) for key, item in value.items()}
    if isinstance(value, list):
        return [substitute(item, bindings) for item in value]
    if isinstance(value, str):
        for name, bound in bindings.items():
            token = PLACEHOLDER.format(name)
            if value == token:
                return bound
            value = value.replace(token, str(bound))
    return value


def normalise(value: Any, bindings: Mapping[str, Any], volatile: Sequence[str] = ()) -> Any:
    """`value` with bound values written ``${name}`` and `volatile` keys masked."""
    if isinstance(value, dict):
        return {
            key: MASKED if key in volatile else normalise(item, bindings, volatile)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [normalise(item, bindings, volatile) for item in value]
    bound = [(n, v) for n, v in bindings.items() if _bindable(v)]
    if isinstance(value, int) and not isinstance(value, bool):
        return next((PLACEHOLDER.format(n) for n, v in bound if v == value), value)
    if isinstance(value, str):
        for name, found in sorted(bound, key=lambda item: -len(str(item[1]))):
            value = value.replace(str(found), PLACEHOLDER.format(name))
    return value


def _bindable(value: Any) -> bool:
    """Long enough to be replaced wherever it occurs without hitting unrelated text."""
    return isinstance(value, (str, int)) and not isinstance(value, bool) and len(str(value)) >= 4
