"""Review of the published catalogue (a667497, issue #20): tools/list comes from
catalogue.json and a tool's family is imported at its first call. These check what the
start-up change must not lose: the file ships in the wheel, the policy decides as it did on
the specs, a stale entry is refused rather than served, a family that fails to import is a
clear error (and is tried again), and concurrent first calls import a family once."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from adbwire.mcp import catalogue
from adbwire.mcp import tools as tools_package
from adbwire.mcp.catalogue import StaleCatalogueError, ToolEntry, published
from adbwire.mcp.registry import ToolSpec, all_specs
from adbwire.mcp.safety.policy import PROFILES, Policy, Risk
from adbwire.mcp.server.server import build_server, decide
from tests.mcp.harness import WAIT, data_of, error_of, make_app, run_script

REPO = Path(__file__).resolve().parents[2]
_HATCH_BUILD = re.compile(r"^\[tool\.hatch\.build\.?([^\]]*)\]\n(.*?)(?=^\[|\Z)", re.M | re.S)
_NARROWING = re.compile(r"^\s*(?:exclude|only-include|only-packages)\s*=", re.M)


def _git(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *arguments], cwd=REPO, capture_output=True, text=True, timeout=30, check=False
    )


def test_the_catalogue_is_a_tracked_file_of_the_wheels_package() -> None:
    # hatchling ships the files of `packages` that git does not ignore; the server reads
    # the catalogue beside catalogue.py, so an installed server without it cannot start.
    relative = catalogue.DEFAULT_PATH.relative_to(REPO).as_posix()
    assert catalogue.DEFAULT_PATH.is_file()
    if _git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout")
    assert _git("ls-files", "--error-unmatch", relative).returncode == 0, "not committed"
    assert _git("check-ignore", "-q", relative).returncode == 1, "git-ignored: not shipped"
    # the hatch build sections, read as text (Python 3.10 has no TOML parser)
    text = (REPO / "pyproject.toml").read_text()
    sections = dict(_HATCH_BUILD.findall(text))
    assert 'packages = ["src/adbwire"]' in sections["targets.wheel"]
    assert not any(_NARROWING.search(body) for body in sections.values()), sections


def test_every_entry_agrees_with_its_spec_on_what_the_policy_and_clients_see() -> None:
    specs = {spec.name: spec for spec in all_specs()}
    entries = published()
    assert [entry.name for entry in entries] == list(specs)
    for entry in entries:
        spec = specs[entry.name]
        seen = (entry.risk, entry.full_only, entry.needs_device, entry.idempotent)
        assert seen == (spec.risk, spec.full_only, spec.needs_device, spec.idempotent), entry.name
        assert entry.annotations == spec.annotations, entry.name
        assert entry.module == spec.family or spec in tools_package.family_tools(entry.module)


@pytest.mark.parametrize("profile", list(PROFILES))
@pytest.mark.parametrize(
    ("allow", "deny"),
    [((), ()), (("run_shell", "reboot"), ()), ((), ("read_logcat", "tap"))],
)
def test_the_policy_decides_the_same_on_the_catalogue_as_on_the_specs(
    profile: str, allow: tuple[str, ...], deny: tuple[str, ...]
) -> None:
    policy = Policy(profile=profile, allow_tools=frozenset(allow), deny_tools=frozenset(deny))
    from_specs = decide(policy, [ToolEntry.of(s, s.family) for s in all_specs()])
    from_file = decide(policy, published())
    assert [e.name for e in from_file[0]] == [e.name for e in from_specs[0]]
    assert from_file[1] == from_specs[1]


def _entry(name: str) -> ToolEntry:
    (entry,) = [entry for entry in published() if entry.name == name]
    return entry


def _stale_schema() -> dict[str, Any]:
    schema = dict(_entry("get_property").input_schema)
    return {**schema, "properties": {**schema["properties"], "surplus": {"type": "string"}}}


@pytest.mark.parametrize(
    "change",
    [
        {"risk": Risk.ACTION},
        {"full_only": True},
        {"idempotent": False},
        {"needs_device": False},
        {"input_schema": "stale"},
    ],
)
def test_a_stale_entry_is_refused_not_served(change: dict[str, Any]) -> None:
    if change.get("input_schema") == "stale":
        change = {"input_schema": _stale_schema()}
    entry = dataclasses.replace(_entry("get_property"), **change)
    with pytest.raises(StaleCatalogueError):
        entry.load_spec()


async def test_a_family_that_fails_to_import_is_tried_again_at_the_next_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = tools_package.family_tools
    attempts: list[str] = []

    def flaky(module: str) -> list[ToolSpec]:
        attempts.append(module)
        if len(attempts) == 1:
            raise ImportError("libfoo.so: cannot open shared object file")
        return real(module)

    monkeypatch.setattr(tools_package, "family_tools", flaky)
    with anyio.fail_after(WAIT):  # an error, not a hang
        async with Client(build_server(make_app())) as client:
            first = await client.call_tool("list_devices", {})
            second = await client.call_tool("list_devices", {})
    error = error_of(first)
    assert error["code"] == "internal_error" and "list_devices" in error["message"]
    assert "libfoo" not in error["message"]
    assert "devices" in data_of(second)  # not remembered as broken
    assert attempts == ["devices", "devices"]


HANDOFF = 10.0
"""Seconds for a hand-off between the event loop and a worker thread: milliseconds when
they run side by side, far longer on a loaded machine; an import on the loop never ends
its wait (the loop cannot run the task that would set the event)."""


async def test_a_family_loading_does_not_hold_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A family takes 80-180 ms to import (the runtime 80 ms more): while it loads, the
    # server's other sessions and calls should go on. Deterministic: the import waits until
    # a task on the event loop has run after the import began.
    real = tools_package.family_tools
    began, loop_ran = threading.Event(), threading.Event()

    def slow(module: str) -> list[ToolSpec]:
        began.set()
        if not loop_ran.wait(HANDOFF):
            raise TimeoutError("the event loop stood still while the family loaded")
        return real(module)

    async def meanwhile() -> None:
        await anyio.to_thread.run_sync(began.wait, HANDOFF)
        loop_ran.set()

    monkeypatch.setattr(tools_package, "family_tools", slow)
    with anyio.fail_after(WAIT):
        async with Client(build_server(make_app())) as client, anyio.create_task_group() as group:
            group.start_soon(meanwhile)
            result = await client.call_tool("clear_logcat", {})
    assert error_of(result)["code"] == "no_device"  # loaded, then found no device


CONCURRENT_FIRST_CALLS = """
import importlib.abc, sys
import anyio
from mcp import Client
from adbwire.mcp.server.server import build_server
from tests.mcp.harness import make_app

FAMILY = "adbwire.mcp.tools.logs"
imports = []

class Count(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == FAMILY:
            imports.append(name)
        return None

sys.meta_path.insert(0, Count())

async def main():
    async with Client(build_server(make_app())) as client:
        assert FAMILY not in sys.modules, "imported before its first call"
        results = []
        async def call(tool):
            results.append(await client.call_tool(tool, {}))
        async with anyio.create_task_group() as group:
            for _ in range(6):
                group.start_soon(call, "read_logcat")
                group.start_soon(call, "clear_logcat")
    codes = {r.structured_content["error"]["code"] for r in results}
    print(len(imports), len(results), sorted(codes))

anyio.run(main)
"""


def test_concurrent_first_calls_of_a_family_import_it_once() -> None:
    # every call ran past the import to the device check (no device: not a load failure)
    assert run_script(CONCURRENT_FIRST_CALLS).split() == ["1", "12", "['no_device']"]
