"""protocol_fixtures/mcp/: every MCP tool's device traffic, replayed through `adbwire serve
--replay` (an in-memory MCP session), gives the tool results that were recorded; and every
registered tool has such a fixture."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import anyio
import pytest

from adbwire.errors import ReplayMismatchError
from adbwire.mcp.registry import all_specs
from adbwire.mcp.server.client_session import ToolStep, run_steps, serve_session
from adbwire.wire.recording import load_fixture
from adbwire.wire.recording.calls import from_json_bytes

LIBRARY = Path(__file__).resolve().parents[2] / "protocol_fixtures" / "mcp"
SIDECARS = sorted(LIBRARY.glob("*.calls.json"))
PLAN: dict[str, dict[str, Any]] = json.loads((LIBRARY / "plan.json").read_text())["families"]
WAIT = 60.0
REMAKE = "run `python scripts/make_fixtures.py mcp-{}`"


def load(path: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(path.read_text())
    return found


def free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port: int = probe.getsockname()[1]
        return port


async def replay(
    recorded: dict[str, Any], root: Path, steps: list[ToolStep] | None = None
) -> list[dict[str, Any]]:
    """The sidecar's calls (or `steps`) made on a strict replay of its fixture."""
    for name, content in recorded["local_files"].items():
        (root / name).write_bytes(from_json_bytes(content))
    with anyio.fail_after(WAIT):
        async with serve_session(
            replay=LIBRARY / recorded["fixture"],
            profile="full",
            allow_destructive=True,
            local_root=root if recorded["local_files"] else None,
            mode=recorded["mode"],
        ) as session:
            listed = await session.call_tool("list_devices", {})
            assert listed.structured_content is not None
            values = {
                "serial": listed.structured_content["devices"][0]["serial"],
                "local_root": str(root),
                "free_port": free_port(),
            }
            bindings = {name: values[name] for name in recorded["bindings"]}
            if steps is None:
                steps = [ToolStep.from_json(call) for call in recorded["calls"]]
            return await run_steps(session, steps, bindings)


def test_the_library_has_a_fixture_per_family() -> None:
    assert {path.name.removesuffix(".calls.json") for path in SIDECARS} == set(PLAN)
    for sidecar in SIDECARS:
        recorded = load(sidecar)
        header = load_fixture(LIBRARY / recorded["fixture"]).header
        assert header.origin == "simulated device"
        assert sidecar.name in header.note  # where it came from, and where its results are


@pytest.mark.filterwarnings("error::adbwire.wire.recording.FixtureWarning")
@pytest.mark.parametrize("sidecar", SIDECARS, ids=lambda p: p.name.removesuffix(".calls.json"))
async def test_each_fixture_replays_to_the_recorded_results(sidecar: Path, tmp_path: Path) -> None:
    recorded = load(sidecar)
    replayed = await replay(recorded, tmp_path)
    assert len(replayed) == len(recorded["calls"])
    for expected, actual in zip(recorded["calls"], replayed, strict=True):
        assert actual == expected, f"{sidecar.name}: {expected['tool']} replays differently"


def test_every_registered_tool_has_a_fixture() -> None:
    registered = {spec.name for spec in all_specs()}
    covered = {call["tool"] for sidecar in SIDECARS for call in load(sidecar)["calls"]}
    missing = sorted(registered - covered)
    assert not missing, (
        f"no MCP fixture calls {missing}: add a step to protocol_fixtures/mcp/plan.json, then "
        + REMAKE.format("FAMILY")
    )
    assert covered <= registered, f"fixtures call unknown tools: {sorted(covered - registered)}"


@pytest.mark.parametrize("family", sorted(PLAN))
def test_each_fixture_was_made_from_the_current_plan(family: str) -> None:
    planned = [ToolStep.from_json(step).as_json() for step in PLAN[family]["steps"]]
    recorded = load(LIBRARY / f"{family}.calls.json")
    made = [ToolStep.from_json(call).as_json() for call in recorded["calls"]]
    assert made == planned, f"plan.json changed since {family}.jsonl was made: " + REMAKE.format(
        family
    )


async def test_a_changed_call_fails_with_the_replay_message(tmp_path: Path) -> None:
    recorded = load(LIBRARY / "properties.calls.json")
    steps = [ToolStep("get_property", {"name": "ro.product.brand"})]
    (outcome,) = await replay(recorded, tmp_path, steps)
    assert outcome["is_error"]
    error = outcome["result"]["error"]
    assert (error["code"], error["retryable"]) == ("protocol_error", False)
    assert "the client opened 'shell,v2,raw:getprop ro.product.brand'" in error["message"]
    assert "properties.jsonl:" in error["message"]  # the fixture line


async def test_a_session_that_stops_early_fails_at_its_end(tmp_path: Path) -> None:
    recorded = load(LIBRARY / "properties.calls.json")
    first = ToolStep.from_json(recorded["calls"][0])
    with pytest.raises(ReplayMismatchError, match="did not use all of the recording"):
        await replay(recorded, tmp_path, [first])


def test_the_library_stays_small() -> None:
    total = sum(path.stat().st_size for path in LIBRARY.parent.rglob("*") if path.is_file())
    assert total < 2 * 1024 * 1024, f"protocol_fixtures/ is {total} bytes"
