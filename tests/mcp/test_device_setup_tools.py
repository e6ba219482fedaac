"""#19's tools through a real in-memory MCP session against the simulated device: gestures,
settings restored when the session ends (and kept on request), screen recording, and the
notifications; the catalogue keeps them out of the default profile."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from adbwire.device.settings import appearance
from adbwire.mcp.safety.policy import Policy
from adbwire.mcp.server.app import App
from adbwire.mcp.server.server import build_server
from adbwire.testing import DeviceFiles, DeviceOptions, running_device
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from tests.device.ui_sim import SpyUserland
from tests.mcp.harness import WAIT, data_of, error_of, make_app, rows_of

FONT_SCALE = {"setting": "font_scale", "value": "1.3"}
NEW_TOOLS = {"gesture", "set_device_setting", "screen_recording", "list_notifications",
             "open_notifications"}  # fmt: skip


@dataclass
class Session:
    client: Client
    userland: SpyUserland

    async def call(
        self, name: str, arguments: dict[str, Any] | None = None
    ) -> types.CallToolResult:
        with anyio.fail_after(WAIT):
            return await self.client.call_tool(name, arguments or {})

    async def ok(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        return data_of(await self.call(name, arguments))

    def settings(self, namespace: str) -> dict[str, str]:
        with self.userland.state.lock:
            return dict(self.userland.state.settings[namespace])


@dataclass
class Server:
    app: App
    userland: SpyUserland

    @contextlib.asynccontextmanager
    async def session(self, screen: str | None = None) -> AsyncIterator[Session]:
        with anyio.fail_after(WAIT):
            async with Client(build_server(self.app), mode="legacy") as client:
                if screen is not None:
                    with self.userland.state.lock:
                        self.userland.state.nav.show(screen)
                yield Session(client, self.userland)


@contextlib.contextmanager
def server(policy: Policy | None = None, phone_sdk: str | None = None) -> Any:
    """A server with the simulated emulator, or a phone of API ``phone_sdk``."""
    made: list[SpyUserland] = []

    def factory(files: DeviceFiles) -> SpyUserland:
        made.append(SpyUserland(files))
        if phone_sdk is not None:
            made[0].state.properties.update(
                {"ro.build.version.sdk": phone_sdk, "ro.kernel.qemu": "0", "ro.boot.qemu": "0"}
            )
        return made[0]

    with running_device(DeviceOptions(auth_required=False), factory) as device:
        app = make_app([device], policy=policy or Policy(profile="full"))
        try:
            yield Server(app, made[0])
        finally:
            app.close()


async def wait_until(check: Any) -> None:
    """Session teardown runs the restore in a worker: wait for it (bounded)."""
    with anyio.fail_after(WAIT):
        while not check():  # noqa: ASYNC110 - device state, changed in a worker thread
            await anyio.sleep(0.02)


async def test_settings_are_restored_when_the_session_ends() -> None:
    with server() as srv:
        before_system = None
        async with srv.session("notes_list") as s:
            before_system = s.settings("system")
            turned = await s.ok(
                "set_device_setting", {"setting": "orientation", "value": "landscape"}
            )
            assert turned["before"] == "portrait" and turned["after"] == "landscape"
            assert turned["restore"] == "at session end"
            assert (await s.ok("device_info"))["orientation"] == "landscape"
            assert (await s.ok("screen_state"))["orientation"] == "landscape"
            await s.ok("set_device_setting", {"setting": "font_scale", "value": "1.3"})
            await s.ok("set_device_setting", {"setting": "dark_mode", "value": "yes"})
            wifi = await s.ok(
                "set_device_setting", {"setting": "wifi", "value": "off", "keep": True}
            )
            assert wifi["restore"] == "kept"
            locale = {"setting": "app_locale", "value": "fr-FR", "package": "com.example.notes"}
            assert (await s.ok("set_device_setting", locale))["after"] == "fr-FR"
            await s.ok("ui_tree", {"disable_animations": True})
            assert s.settings("global")["window_animation_scale"] == "0"
        state = srv.userland.state
        await wait_until(lambda: state.settings["system"].get("font_scale") == "1.0")
        assert srv.userland.state.settings["system"] == {**before_system}
        assert state.settings["secure"].get("ui_night_mode", "1") == "1"
        assert state.app_locales == {}
        assert state.settings["global"]["window_animation_scale"] == "1.0"
        assert state.settings["global"]["wifi_on"] == "0"  # kept, as asked


async def test_two_sessions_do_not_restore_each_others_values() -> None:
    with server() as srv:
        async with srv.session() as first:
            await first.ok("set_device_setting", {"setting": "font_scale", "value": "1.3"})
            async with srv.session() as second:
                await second.ok("set_device_setting", {"setting": "font_scale", "value": "1.5"})
            # the in-process session's teardown (and any restore) is over when it returns
            assert first.settings("system")["font_scale"] == "1.5"
        await wait_until(lambda: srv.userland.state.settings["system"]["font_scale"] == "1.0")


async def test_bad_values_and_old_releases() -> None:
    with server(phone_sdk="28") as srv:
        async with srv.session() as s:
            bad = error_of(
                await s.call("set_device_setting", {"setting": "orientation", "value": "up"})
            )
            assert bad["code"] == "invalid_arguments" and "landscape" in bad["message"]
            old = {"setting": "app_locale", "value": "de", "package": "com.example.notes"}
            assert error_of(await s.call("set_device_setting", old))["code"] == "unsupported"
            phone = {"setting": "location", "value": "48.85,2.29"}
            assert error_of(await s.call("set_device_setting", phone))["code"] == "unsupported"
            assert srv.userland.commands_named("cmd") == []


async def test_a_setting_written_but_not_confirmed_is_still_restored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(appearance, "VERIFY_SECONDS", 0.5)

    with server() as srv:
        state = srv.userland.state

        def rounding(inv: Invocation, command: CommandFn) -> int:
            # A device that keeps 1.25 when told 1.3: the write lands, the read-back differs.
            status = command(inv)
            if inv.args == ["put", "system", "font_scale", "1.3"]:
                with state.lock:
                    state.settings["system"]["font_scale"] = "1.25"
            return status

        srv.userland.hooks["settings"] = rounding
        async with srv.session() as s:
            original = s.settings("system").get("font_scale")
            failed = error_of(await s.call("set_device_setting", {"setting": "font_scale",
                                                                  "value": "1.3"}))  # fmt: skip
            assert "still reports '1.25'" in failed["message"]
            assert s.settings("system")["font_scale"] == "1.25"
        await wait_until(lambda: state.settings["system"].get("font_scale") == original)


async def test_gesture_reports_its_method_and_outcome() -> None:
    with server() as srv:
        async with srv.session("launcher") as s:
            done = await s.ok("gesture", {"kind": "double_tap", "x": 150, "y": 1636})
            assert done["method"] == "parallel_taps" and done["screen_changed"] is True
            assert srv.userland.screen() == "notes_list"
            drag = {"kind": "drag", "x": 540, "y": 1800, "to": [540, 600], "hold_ms": 100}
            dragged = await s.ok("gesture", drag)
            assert dragged["method"] == "motionevent" and dragged["points"] == [540, 1800, 540, 600]
            missing = error_of(await s.call("gesture", {"kind": "drag", "x": 1, "y": 1}))
            assert missing["code"] == "invalid_arguments"
            press = {"kind": "long_press", "x": 100, "y": 200, "space": "screenshot"}
            no_shot = error_of(await s.call("gesture", press))
            assert no_shot["code"] == "invalid_arguments" and "screenshot" in no_shot["message"]
            shot = await s.ok("screenshot", {"max_edge": 540})
            pressed = await s.ok("gesture", {**press, "duration_ms": 100})
            assert pressed["points"] == [round(100 / shot["scale"]), round(200 / shot["scale"])]
            for bad in ({"kind": "swipe"}, {"duration_ms": -1}, {"to": [1, 2, 3]}, {"x": -5}):
                refused = error_of(await s.call("gesture", {**press, "space": None, **bad}))
                assert refused["code"] == "invalid_arguments", bad


async def test_recording_lands_under_the_local_root(tmp_path: Path) -> None:
    with server(Policy(profile="full", local_root=tmp_path)) as srv:
        files = srv.userland.device.files
        async with srv.session() as s:
            started = await s.ok("screen_recording", {"action": "start", "max_seconds": 30})
            assert started["state"] == "recording"
            again = error_of(await s.call("screen_recording", {"action": "start"}))
            assert again["code"] == "already_exists"
            stopped = await s.ok("screen_recording", {"action": "stop", "to": "clips/a.mp4"})
            assert stopped["path"] == "clips/a.mp4" and stopped["ended_by"] == "stop"
            assert (tmp_path / "clips" / "a.mp4").stat().st_size == stopped["bytes"] > 0
            misplaced = {"action": "start", "to": "clips/b.mp4"}
            assert error_of(await s.call("screen_recording", misplaced))["code"] == (
                "invalid_arguments"
            )
            for expected in ("adbwire-recording-1.mp4", "adbwire-recording-1-2.mp4"):
                await s.ok("screen_recording", {"action": "start"})
                taken = {"action": "stop", "to": "clips/a.mp4"}
                refused = error_of(await s.call("screen_recording", taken))
                assert refused["code"] == "already_exists" and "still running" in refused["message"]
                default = await s.ok("screen_recording", {"action": "stop"})  # the same one
                assert default["path"] == expected and default["bytes"] > 0
            await s.ok("screen_recording", {"action": "start"})  # left running
        await wait_until(lambda: not [n for n, _ in files.listdir("/data/local/tmp")
                                      if n.endswith(".mp4")])  # fmt: skip
        procs = srv.userland.state.processes.values()
        assert not [p for p in procs if p.name == "screenrecord"]


async def test_notifications_and_the_shade() -> None:
    with server() as srv:
        async with srv.session("launcher") as s:
            result = await s.call("list_notifications", {"package": "com.example.notes"})
            listed = rows_of(result)  # once, after the JSON line
            assert [n["title"] for n in listed] == ["Shopping list", "Notes synced"]
            assert listed[0]["channel"] == "reminders" and data_of(result)["count"] == 2
            shade = await s.ok("open_notifications")
            assert shade["shade_focused"] is True and shade["window"] == "NotificationShade"
            tapped = await s.ok("tap_element", {"query": "Shopping list"})
            assert tapped["screen_changed"] is True
            assert srv.userland.screen() == "notes_list"


async def test_the_default_profile_leaves_them_out() -> None:
    with server(Policy(profile="standard")) as srv:
        async with srv.session() as s:
            names = {tool.name for tool in (await s.client.list_tools()).tools}
    assert names & NEW_TOOLS == {"gesture"}
    assert "list_notifications" in srv.app.disabled
    allowed = Policy(profile="standard", allow_tools=frozenset({"list_notifications"}))
    with server(allowed) as srv:
        async with srv.session() as s:
            names = {tool.name for tool in (await s.client.list_tools()).tools}
    assert "list_notifications" in names


async def test_an_emulator_without_a_console_says_where_it_looked() -> None:
    with server() as srv:
        async with srv.session() as s:
            fix = {"setting": "location", "value": "48.85,2.29"}
            error = error_of(await s.call("set_device_setting", fix))
    assert error["code"] == "device_unreachable" and "emulator console" in error["message"]


async def test_requests_without_a_session_are_undone_when_the_server_stops() -> None:
    with server() as srv:
        with anyio.fail_after(WAIT):
            async with Client(build_server(srv.app)) as client:  # 2026-07-28: no session
                font = data_of(await client.call_tool("set_device_setting", FONT_SCALE))
        assert font["restore"] == "when the server stops"
        assert srv.userland.state.settings["system"]["font_scale"] == "1.3"
    assert srv.userland.state.settings["system"]["font_scale"] == "1.0"  # app.close restored
