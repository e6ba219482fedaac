"""The catalogue a server publishes without importing its tools (adbwire.mcp.catalogue): it is
what the specs produce, whatever order the families are imported in; a tool's spec is
loaded at its first call and checked against its entry; a call through the published
catalogue answers exactly as one through the specs themselves."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from adbwire.mcp import catalogue, docgen
from adbwire.mcp import tools as tools_package
from adbwire.mcp.catalogue import StaleCatalogueError, ToolEntry, published
from adbwire.mcp.registry import ToolSpec, all_specs
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.server import server as server_module
from adbwire.mcp.server.server import build_server
from adbwire.mcp.tools import FAMILY_MODULES
from tests.mcp.harness import WAIT, error_of, make_app

REPO = Path(__file__).resolve().parents[2]
STALE = "catalogue.json is stale: run python -m adbwire.mcp.docgen"


def test_the_file_is_what_the_specs_publish() -> None:
    assert catalogue.DEFAULT_PATH.read_text(encoding="utf-8") == catalogue.render(), STALE
    assert [entry.name for entry in published()] == [spec.name for spec in all_specs()]


def test_the_families_publish_the_same_in_any_import_order() -> None:
    # typing caches equal Literals (order ignored), so a model's enum order can depend on
    # which family was imported first; a server imports them in the order they are called.
    program = (
        "import importlib, sys\n"
        "from adbwire.mcp import catalogue\n"
        f"for module in reversed({list(FAMILY_MODULES)!r}):\n"
        "    importlib.import_module('adbwire.mcp.tools.' + module)\n"
        "sys.stdout.write(catalogue.render())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        check=True,
    )
    assert done.stdout == catalogue.render()


def _entry(name: str) -> ToolEntry:
    (entry,) = [entry for entry in published() if entry.name == name]
    return entry


def test_a_spec_is_loaded_and_checked_against_its_entry() -> None:
    entry = _entry("get_property")
    assert entry.load_spec() is next(s for s in all_specs() if s.name == "get_property")
    with pytest.raises(StaleCatalogueError, match="entry in risk: run"):
        dataclasses.replace(entry, risk=Risk.ACTION).load_spec()
    with pytest.raises(StaleCatalogueError, match="entry in full_only: run"):
        dataclasses.replace(entry, full_only=True).load_spec()
    with pytest.raises(StaleCatalogueError, match="not in family"):
        dataclasses.replace(entry, module="apps").load_spec()
    with pytest.raises(ValueError, match="no tool family"):
        dataclasses.replace(entry, module="..registry").load_spec()
    with pytest.raises(StaleCatalogueError, match="in description: run"):
        dataclasses.replace(entry, description="old words").load_spec()


async def _call(specs: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    with anyio.fail_after(WAIT):
        async with Client(build_server(make_app(), specs)) as client:
            result = await client.call_tool(name, arguments)
    return error_of(result)


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("get_property", {"name": 5, "surplus": True}),
        ("swipe", {"direction": "sideways"}),
        ("scroll_to_element", {"query": "x", "direction": "in"}),
        ("read_logcat", {"max_lines": 0, "min_level": "loud", "pid": 1.5}),
    ],
)
async def test_bad_arguments_fail_as_through_the_specs(
    name: str, arguments: dict[str, Any]
) -> None:
    lazily = await _call(None, name, arguments)
    assert lazily["code"] == "invalid_arguments"
    assert lazily == await _call(all_specs(), name, arguments)


async def test_a_tool_published_with_another_risk_does_not_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def stale() -> list[ToolEntry]:
        return [
            dataclasses.replace(e, risk=Risk.READ) if e.name == "reboot" else e for e in published()
        ]

    monkeypatch.setattr(server_module, "published", stale)
    error = await _call(None, "reboot", {"serial": "emulator-5554"})
    assert error["code"] == "internal_error"


def test_docgen_writes_and_checks_the_catalogue(tmp_path: Path) -> None:
    docs, table = tmp_path / "tools.md", tmp_path / "catalogue.json"
    table.write_text("{}\n")
    arguments = ["--output", str(docs), "--catalogue", str(table)]
    assert docgen.main(["--check", *arguments]) == 1
    assert docgen.main(arguments) == 0
    assert docgen.main(["--check", *arguments]) == 0
    assert published(table) == published()


async def test_a_family_that_fails_to_import_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(module: str) -> list[ToolSpec]:
        raise ImportError(f"no module named {module}_dependency")

    monkeypatch.setattr(tools_package, "family_tools", broken)
    error = await _call(None, "get_property", {"name": "ro.product.model"})
    assert error["code"] == "internal_error"
    assert "properties_dependency" not in error["message"]  # no internals to the client
    assert "properties_dependency" in caplog.text  # the server log has them
