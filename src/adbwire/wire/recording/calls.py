"""`call` lines: what the caller did in a recorded session and what it got back.

A fixture generator runs each call through `perform`, which returns a JSON result, and
notes it in the recording (`note_call`). A test replays the fixture and runs the same calls
again (`check_calls`): the results must be the same. Bytes in results use the fixture's
byte forms (`{"text": ...}` or `{"b64": ...}`); an error is `{"error": "ClassName"}`.

Register more calls with `@register("name")`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adbwire.errors import AdbwireError, UsageError
from adbwire.wire.client import AdbClient
from adbwire.wire.recording.events import Call
from adbwire.wire.recording.fixture_file import Fixture
from adbwire.wire.recording.payload import decode_payload, encode_payload
from adbwire.wire.recording.recording_transport import RecordingTransport

CallFunction = Callable[[AdbClient, dict[str, Any]], dict[str, Any]]
CALLS: dict[str, CallFunction] = {}


def register(name: str) -> Callable[[CallFunction], CallFunction]:
    def add(function: CallFunction) -> CallFunction:
        CALLS[name] = function
        return function

    return add


def as_json_bytes(data: bytes) -> dict[str, Any]:
    return encode_payload(data) if data else {"text": ""}


def from_json_bytes(value: dict[str, Any]) -> bytes:
    return decode_payload(value)


@register("shell")
def _shell(client: AdbClient, args: dict[str, Any]) -> dict[str, Any]:
    stdin = from_json_bytes(args["stdin"]) if "stdin" in args else None
    result = client.shell(args["command"], stdin=stdin)
    return {
        "stdout": as_json_bytes(result.stdout),
        "stderr": as_json_bytes(result.stderr),
        "exit_code": result.exit_code,
    }


@register("exec_out")
def _exec_out(client: AdbClient, args: dict[str, Any]) -> dict[str, Any]:
    return {"stdout": as_json_bytes(client.exec_out(args["command"]))}


@register("open")
def _open(client: AdbClient, args: dict[str, Any]) -> dict[str, Any]:
    """Open a service, write `input` if given, read until the device closes."""
    with client.open_stream(args["service"]) as stream:
        if "input" in args:
            stream.write(from_json_bytes(args["input"]))
        return {"output": as_json_bytes(stream.read_all())}


def perform(client: AdbClient, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """Run one call; its result (or the class of the error it raised) as JSON."""
    function = CALLS.get(name)
    if function is None:
        raise UsageError(f"unknown call {name!r}; known: {', '.join(sorted(CALLS))}")
    try:
        return function(client, args)
    except AdbwireError as exc:
        return {"error": type(exc).__name__}


def perform_and_note(
    client: AdbClient, transport: RecordingTransport, name: str, args: dict[str, Any]
) -> dict[str, Any]:
    result = perform(client, name, args)
    transport.note_call(name, args, result)
    return result


def recorded_calls(fixture: Fixture) -> list[tuple[int, Call]]:
    return [(item.line, item.event) for item in fixture.events if isinstance(item.event, Call)]


def check_calls(client: AdbClient, fixture: Fixture) -> list[str]:
    """Run the fixture's calls on `client` (a replay of it); each difference, described."""
    problems: list[str] = []
    for line, call in recorded_calls(fixture):
        if call.name == "connect":
            continue  # the connection itself: the driver checks it when connecting
        actual = perform(client, call.name, call.args)
        if actual != call.result:
            problems.append(
                f"{fixture.where(line)}: {call.name}({call.args}) returned {actual}, "
                f"recorded {call.result}"
            )
    return problems


# The sync/install/forward/control calls register themselves; imported last because that
# module uses `register` from this one.
from adbwire.wire.recording import service_calls  # noqa: E402, F401
