"""The UI and screen tools through a real in-memory MCP client session, against a simulated
device whose userland records every command (so "nothing was tapped" can be proven)."""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import io
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from PIL import Image

from adbwire.cli import demo as demo_cli
from adbwire.mcp.safety.policy import Policy, Risk
from adbwire.mcp.server.app import App
from adbwire.mcp.server.demo import STEPS, catalogue, demo_app, run_session
from adbwire.mcp.server.server import build_server
from adbwire.testing import DeviceFiles, DeviceOptions, SimulatedDevice, running_device
from tests.device.ui_sim import SpyUserland
from tests.mcp.harness import WAIT, data_of, error_of, make_app, rows_of

MARKER = "/data/local/tmp/pwned"
UI_RISKS = {
    "ui_tree": Risk.READ,
    "find_elements": Risk.READ,
    "tap_element": Risk.ACTION,
    "long_press_element": Risk.ACTION,
    "type_text": Risk.ACTION,
    "scroll_to_element": Risk.ACTION,
    "wait_for_element": Risk.READ,
    "assert_element": Risk.READ,
    "accessibility_audit": Risk.READ,
    "screenshot": Risk.READ,
    "tap": Risk.ACTION,
    "swipe": Risk.ACTION,
    "press_key": Risk.ACTION,
    "debug_context": Risk.READ,
}


@dataclass
class Session:
    client: Client
    userland: SpyUserland
    device: SimulatedDevice
    app: App

    async def call(
        self, name: str, arguments: dict[str, Any] | None = None
    ) -> types.CallToolResult:
        with anyio.fail_after(WAIT):
            return await self.client.call_tool(name, arguments or {})

    async def ok(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        return data_of(await self.call(name, arguments))

    def show(self, screen_id: str) -> None:
        with self.userland.state.lock:
            self.userland.state.nav.show(screen_id)


@contextlib.asynccontextmanager
async def session(
    screen_id: str | None = None, policy: Policy | None = None
) -> AsyncIterator[Session]:
    made: list[SpyUserland] = []

    def factory(files: DeviceFiles) -> SpyUserland:
        made.append(SpyUserland(files))
        return made[0]

    with running_device(DeviceOptions(auth_required=False), factory) as device:
        app = make_app([device], policy=policy or Policy(profile="full"))
        try:
            server = build_server(app, catalogue())
            with anyio.fail_after(WAIT):
                async with Client(server) as client:
                    found = Session(client, made[0], device, app)
                    if screen_id is not None:
                        found.show(screen_id)
                    yield found
        finally:
            app.close()


def tree_lines(result: types.CallToolResult) -> list[str]:
    """ui_tree's lines: sent once, after the JSON line of the text block, and nowhere else."""
    text = result.content[0].text  # type: ignore[union-attr]
    _summary, structured, tree = text.split("\n", 2)
    lines = tree.splitlines()
    assert "tree" not in (result.structured_content or {}) and lines[0] not in structured
    return lines


def image_of(result: types.CallToolResult) -> tuple[bytes, str]:
    images = [block for block in result.content if isinstance(block, types.ImageContent)]
    assert len(images) == 1
    return base64.b64decode(images[0].data), images[0].mime_type


async def test_tools_are_listed_with_their_risk() -> None:
    async with session() as s:
        listed = {tool.name: tool for tool in (await s.client.list_tools()).tools}
        for name, risk in UI_RISKS.items():
            hints = listed[name].annotations
            assert hints is not None and bool(hints.read_only_hint) is (risk is Risk.READ)
            if risk is Risk.ACTION:
                assert hints.destructive_hint is False
    async with session(policy=Policy(profile="read-only")) as s:
        names = {tool.name for tool in (await s.client.list_tools()).tools}
        assert {n for n, r in UI_RISKS.items() if r is Risk.READ} <= names
        assert not names & {n for n, r in UI_RISKS.items() if r is Risk.ACTION}


async def test_read_the_tree_then_tap_by_label() -> None:
    async with session("launcher") as s:
        read = await s.call("ui_tree")
        tree = data_of(read)
        assert tree["framework"] == "views" and tree["keyboard_shown"] is False
        lines = tree_lines(read)
        assert 'e5 TextView "Notes" [42,1504][258,1768] click long' in lines
        assert tree["window"].endswith("NexusLauncherActivity")
        full = await s.call("ui_tree", {"full": True})
        assert len(tree_lines(full)) == data_of(full)["total"] == 16
        tapped = await s.call("tap_element", {"query": "Notes"})
        data = data_of(tapped)
        assert data["screen_changed"] is True and data["element"] == "e5"
        assert "window com.example.notes/" in tapped.content[0].text  # type: ignore[union-attr]
        assert s.userland.screen() == "notes_list"


async def test_an_ambiguous_tap_lists_candidates_and_taps_nothing() -> None:
    async with session("notes_list") as s:
        error = error_of(await s.call("tap_element", {"query": "id:note_row"}))
        assert error["code"] == "invalid_arguments" and error["next_action"] == "fix_arguments"
        candidates = error["details"]["candidates"]
        assert [line.split()[0] for line in candidates] == ["e10", "e14", "e18"]
        assert all("[0," in line for line in candidates)  # with their bounds
        assert s.userland.commands_named("input") == []
        missing = error_of(await s.call("long_press_element", {"query": "Shopping"}))
        assert missing["code"] == "not_found"
        scoped = await s.ok("tap_element", {"query": "note_title", "within": "e14"})
        assert scoped["target"].startswith("e14 LinearLayout #note_row")


async def test_find_elements_modes() -> None:
    async with session("notes_list") as s:
        found = await s.ok("find_elements", {"query": r"^(Apr|May) \d+$", "match": "regex"})
        assert found["count"] == 3 and found["matched_by"] == "text"
        first = found["elements"][0]
        assert (
            first["id"] == "e12"
            and first["tap"] == "e10"
            and first["bounds"] == [790, 478, 1017, 540]
        )
        by_desc = await s.ok("find_elements", {"query": "desc:new", "match": "contains"})
        assert [e["id"] for e in by_desc["elements"]] == ["e22"]
        bad = error_of(await s.call("find_elements", {"query": "x", "within": "row"}))
        assert bad["code"] == "invalid_arguments"


async def test_type_text_literally_through_the_shell() -> None:
    payload = f'it\'s 100% "$(touch {MARKER})" `id`; %s'
    async with session("note_editor") as s:
        typed = await s.ok("type_text", {"text": payload, "query": "Start typing"})
        assert typed["verified"] is True and typed["typed"] == len(payload)
        assert not s.device.files.host_path(MARKER).exists()
        check = await s.ok(
            "assert_element",
            {"query": "note_body_input", "expect": "text_equals", "value": payload},
        )
        assert check["passed"] is True
        refused = error_of(await s.call("type_text", {"text": "naïve"}))
        assert refused["code"] == "invalid_arguments" and "printable ASCII" in refused["message"]


async def test_screenshot_fits_and_says_what_it_is(tmp_path: Path) -> None:
    async with session("note_editor", Policy(profile="full", local_root=tmp_path)) as s:
        result = await s.call("screenshot", {"max_edge": 800, "max_bytes": 60_000})
        data = data_of(result)
        image, mime = image_of(result)
        assert len(image) <= 60_000 and data["sha256"] == hashlib.sha256(image).hexdigest()
        assert max(data["size"]) <= 800 and data["device_size"] == [1080, 2400]
        assert data["scale"] == pytest.approx(data["size"][0] / 1080, abs=1e-5)
        assert Image.open(io.BytesIO(image)).size == tuple(data["size"])
        assert mime.startswith("image/") and "changed" not in data  # first one: unknown
        assert (tmp_path / data["saved"]).read_bytes() == image
        again = await s.ok("screenshot", {"format": "jpeg"})
        assert again["changed"] is False
        s.show("settings")
        assert (await s.ok("screenshot"))["changed"] is True
        too_small = error_of(await s.call("screenshot", {"max_edge": 10}))
        assert too_small["code"] == "invalid_arguments" and "64..8192" in too_small["message"]


async def test_a_secure_screen_is_reported_without_an_image() -> None:
    async with session("vault") as s:
        result = await s.call("screenshot")
        data = data_of(result)
        assert data["secure"] is True and "FLAG_SECURE" in data["note"]
        assert not [b for b in result.content if isinstance(b, types.ImageContent)]


async def test_coordinates_in_screenshot_space_map_back() -> None:
    async with session("notes_list") as s:
        no_shot = error_of(await s.call("tap", {"x": 10, "y": 10, "space": "screenshot"}))
        assert no_shot["code"] == "invalid_arguments"
        shot = await s.ok("screenshot", {"crop_to": "e22", "max_edge": 100})  # the FAB
        assert shot["size"] == [81, 81] and shot["scale"] == 0.5  # 162 px halved
        tapped = await s.ok("tap", {"x": 40.5, "y": 40.5, "space": "screenshot"})
        assert (tapped["x"], tapped["y"]) == (936, 2171)  # the FAB's centre on the device
        assert s.userland.screen() == "note_editor"


async def test_keys_swipes_and_scrolling() -> None:
    async with session("notes_list") as s:
        swiped = await s.ok("swipe", {"direction": "up"})
        assert swiped["points"] == [540, 1800, 540, 600]
        assert s.userland.screen() == "notes_list_scrolled"
        await s.ok("swipe", {"points": [540, 700, 540, 1800]})
        assert s.userland.screen() == "notes_list"
        found = await s.ok("scroll_to_element", {"query": "Wi-Fi at the cabin"})
        assert found["found"] is True and found["swipes"] == 1
        assert (await s.ok("press_key", {"key": "home"}))["keycode"] == "KEYCODE_HOME"
        assert s.userland.screen() == "launcher"
        unknown = error_of(await s.call("press_key", {"key": "self_destruct"}))
        assert unknown["code"] == "invalid_arguments" and "back" in unknown["message"]


async def test_wait_and_assert_and_audit() -> None:
    async with session("notes_list") as s:
        waited = await s.ok("wait_for_element", {"query": "SAVE", "timeout_s": 0.3})
        assert waited["met"] is False
        await s.ok("tap_element", {"query": "New note"})
        waited = await s.ok("wait_for_element", {"query": "SAVE", "timeout_s": 5})
        assert waited["met"] is True and "#save_button" in waited["element"]
        gone = await s.ok("assert_element", {"query": "Groceries", "expect": "hidden"})
        assert gone["passed"] is True
        audit = await s.ok("accessibility_audit")
        assert audit["framework"] == "views" and audit["density"] == 420
        assert audit["min_target_px"] == 126 and audit["issue_count"] == 0


async def test_stale_element_ids_are_refused() -> None:
    async with session("notes_list") as s:
        await s.ok("ui_tree")
        s.show("settings")
        stale = error_of(await s.call("tap_element", {"query": "e22"}))
        assert stale["code"] == "invalid_arguments" and "read the UI again" in stale["message"]
        assert s.userland.commands_named("input") == []


async def test_debug_context_with_a_screenshot() -> None:
    async with session() as s:
        await s.ok("launch_app", {"package": "com.example.notes"})
        result = await s.call("debug_context", {"screenshot": True, "log_lines": 10})
        data = data_of(result)
        assert data["window"].startswith("com.example.notes/")
        assert any(line.startswith("e22 ") for line in tree_lines(result))
        assert data["errors"] == {} and data["log_note"].startswith("log of com.example.notes")
        assert data["screenshot"]["secure"] is False
        image_of(result)


async def test_debug_context_sends_the_log_once() -> None:
    async with session("launcher") as s:
        error_of(await s.call("open_deep_link", {"uri": "notes://stats"}))  # it crashes
        result = await s.call("debug_context", {"package": "com.example.notes"})
        data = data_of(result)
        (log,) = [b.text for b in result.content[1:] if isinstance(b, types.TextContent)]
        lines = log.splitlines()
        assert lines[0] == "log:" and len(lines) - 1 == data["log_lines"] > 0
        assert any("FATAL EXCEPTION" in line for line in lines)
        assert "log" not in data and lines[-1] not in result.content[0].text  # type: ignore[union-attr]


async def test_audit_issues_travel_once_as_rows() -> None:
    async with session("settings") as s:
        result = await s.call("accessibility_audit")
        audit, issues = data_of(result), rows_of(result)
        assert audit["issue_count"] == len(issues) > 0 and "issues" not in audit
        assert {"kind": "unlabelled_clickable", "elements": ["e13"]}.items() <= issues[0].items()
        assert all(issue["fix"] for issue in issues)


async def test_animations_off_for_the_session_and_restored() -> None:
    names = ("window_animation_scale", "transition_animation_scale", "animator_duration_scale")
    async with session("settings") as s:
        table = s.userland.state.settings["global"]
        table.pop("transition_animation_scale", None)  # one of them never set on this device
        before = {name: table.get(name) for name in names}
        assert before["window_animation_scale"] == "1.0"
        await s.ok("ui_tree", {"disable_animations": True})
        assert all(table.get(name) == "0" for name in names)
        s.app.close()  # the server shutting down restores them
        assert {name: table.get(name) for name in names} == before


async def test_the_demo_session_succeeds_step_by_step() -> None:
    with running_device(DeviceOptions(auth_required=False)) as device:
        app = demo_app(device.serial)
        try:
            results = await run_session(app)
        finally:
            app.close()
    assert [r.step.tool for r in results] == [step.tool for step in STEPS]
    assert all(r.ok for r in results), [r.data for r in results if not r.ok]
    by_tool = {r.step.tool: r for r in results}
    assert by_tool["tap_element"].data["screen_changed"] is True
    assert by_tool["type_text"].data["verified"] is True
    assert by_tool["screenshot"].image is not None


def test_adbwire_demo_prints_a_transcript(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    demo_cli.register(parser.add_subparsers())
    args = parser.parse_args(["demo", "--screenshot", str(tmp_path / "shot.png")])
    assert args.handler(args) == 0
    out = capsys.readouterr().out
    for expected in ("-> launch_app", '-> tap_element {"query": "New note"}', "verified: true"):
        assert expected in out
    assert "every step succeeded" in out
    assert (tmp_path / "shot.png").read_bytes().startswith(b"\x89PNG")
