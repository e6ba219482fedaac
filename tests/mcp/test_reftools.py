"""list_processes, network_info, activity_stack, current_fragments and run_instrumentation
through a real MCP client against the simulated device; the heavy-job lock."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from adbwire.device.heavy_jobs import heavy_job
from adbwire.mcp.safety.policy import Policy
from adbwire.mcp.tools import activity as activity_tools
from adbwire.mcp.tools import instrumentation as instrumentation_tools
from adbwire.mcp.tools import processes as processes_tools
from adbwire.testing.userland.android.apk import build_apk
from tests.mcp.harness import (
    WAIT,
    connected,
    data_of,
    error_of,
    make_app,
    payload_of,
    rows_of,
    simulated,
)

NOTES = "com.example.notes"


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ADBWIRE_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "state"


async def test_processes_network_stack_and_fragments() -> None:
    with simulated() as (device,):
        app = make_app([device])
        async with connected(app) as client:
            await client.call_tool("launch_app", {"package": NOTES})
            mine = rows_of(await client.call_tool("list_processes", {"package": NOTES}))
            assert [p["name"] for p in mine] == [NOTES] and mine[0]["user"] == "u0_a190"
            listed = await client.call_tool("list_processes", {})
            everything = data_of(listed)
            assert everything["remaining"] == 0 and everything["count"] == len(rows_of(listed)) > 5

            net = data_of(await client.call_tool("network_info", {}))
            assert (net["wifi_enabled"], net["ssid"], net["transport"]) == (
                True, "AndroidWifi", "WIFI",
            )  # fmt: skip
            assert (net["validated"], net["captive_portal"], net["interface"]) == (
                True, False, "wlan0",
            )  # fmt: skip
            assert net["addresses"]["wlan0"] == ["10.0.2.16/24"]

            stack = data_of(await client.call_tool("activity_stack", {}))
            assert stack["resumed"] == f"{NOTES}/.NotesListActivity"
            assert stack["tasks"][0]["activities"][0] == {
                "activity": f"{NOTES}/.NotesListActivity",
                "state": "RESUMED",
            }
            assert stack["tasks"][0]["type"] == "standard"

            fragments = data_of(await client.call_tool("current_fragments", {"package": NOTES}))
            assert fragments["available"] is True
            assert [(f["name"], f["depth"]) for f in fragments["fragments"]] == [
                ("NavHostFragment", 0),
                ("NotesListFragment", 1),
            ]
            await client.call_tool("open_deep_link", {"uri": "notes://vault"})
            compose = await client.call_tool("current_fragments", {"package": NOTES})
            assert data_of(compose)["available"] is False
            assert "Compose-only" in compose.content[0].text  # type: ignore[union-attr]
            gone = error_of(await client.call_tool("current_fragments", {"package": "com.nope"}))
            assert gone["code"] == "not_found"
        app.close()


async def test_the_tools_are_in_the_full_profile_only() -> None:
    with simulated() as (device,):
        app = make_app([device], policy=Policy(profile="standard"))
        async with connected(app) as client:
            names = {t.name for t in (await client.list_tools()).tools}
        app.close()
    assert not names & {"list_processes", "network_info", "run_instrumentation"}


async def test_an_instrumented_run_reports_failures_traces_and_the_crash(tmp_path: Path) -> None:
    with simulated() as (device,):
        app = make_app([device], policy=Policy(profile="full", local_root=tmp_path))
        seen: list[tuple[float, float | None, str | None]] = []

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append((progress, total, message))

        async with connected(app) as client:
            result = await client.call_tool(
                "run_instrumentation",
                {"test_package": "com.example.notes.test"},
                progress_callback=progress,
            )
            run = data_of(result)
            assert (run["success"], run["passed"], run["failed"], run["errored"]) == (
                False, 2, 1, 1,
            )  # fmt: skip
            assert run["skipped"] == 1
            failed, crashed = run["failures"]
            assert failed["test"] == "com.example.notes.NoteEditorTest#savesTheTitle"
            assert failed["message"] == "java.lang.AssertionError: expected:<Groceries> but was:<>"
            traces = payload_of(result)  # once, after the JSON line
            assert traces[0] == "[1] com.example.notes.NoteEditorTest#savesTheTitle"
            assert any("NoteEditorTest.kt:42" in line for line in traces[1:])
            headers = [line for line in traces if not line.startswith("  ")]
            assert failed["trace_lines"] == len(traces) - len(headers)  # the crash has none
            assert headers == [traces[0]] and crashed["trace_lines"] == 0
            assert (crashed["outcome"], crashed["message"]) == ("crashed", "Process crashed.")
            assert any("ended abnormally" in p for p in run["problems"])
            log = tmp_path / run["log"]
            assert run["log"].startswith("instrumentation/com.example.notes.test-")
            assert b"INSTRUMENTATION_CODE: 0" in log.read_bytes()
            messages = [m for _, _, m in seen]
            assert "running com.example.notes.NotesListTest#opensTheList" in messages
            assert "com.example.notes.NoteEditorTest#savesTheTitle: failed" in messages
            assert seen[-1][1] == 6.0  # numtests

            ok = data_of(
                await client.call_tool(
                    "run_instrumentation",
                    {
                        "test_package": "com.example.notes.test",
                        "tests": ["com.example.notes.NotesListTest"],
                        "log": "runs/list.log",
                    },
                )
            )
            assert (ok["success"], ok["passed"], ok["failures"], ok["log"]) == (
                True, 2, [], "runs/list.log",
            )  # fmt: skip
            again = error_of(
                await client.call_tool(
                    "run_instrumentation",
                    {"test_package": "com.example.notes.test", "log": "runs/list.log"},
                )
            )
            assert again["code"] == "already_exists"
            missing = error_of(
                await client.call_tool("run_instrumentation", {"test_package": "com.nope.test"})
            )
            assert missing["code"] == "not_found"
            bad = error_of(
                await client.call_tool(
                    "run_instrumentation",
                    {"test_package": "com.example.notes.test", "tests": ["x; reboot"]},
                )
            )
            assert bad["code"] == "invalid_arguments"
        app.close()


async def test_cancelling_a_run_stops_it_on_the_device(tmp_path: Path) -> None:
    with simulated() as (device,):
        app = make_app([device], policy=Policy(profile="full", local_root=tmp_path))
        started = anyio.Event()

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            if message and message.startswith("running"):
                started.set()

        async with connected(app) as client:
            async with anyio.create_task_group() as group:
                group.start_soon(
                    lambda: client.call_tool(
                        "run_instrumentation",
                        {"test_package": "com.example.notes.soak"},
                        progress_callback=progress,
                    )
                )
                with anyio.fail_after(WAIT):
                    await started.wait()
                pid = rows_of(await client.call_tool("list_processes", {"package": NOTES}))
                assert pid, "the tests run in the app's process"
                group.cancel_scope.cancel()
            with anyio.fail_after(WAIT):
                while True:  # the server stops the app once it sees the cancellation
                    left = rows_of(await client.call_tool("list_processes", {"package": NOTES}))
                    if not left:
                        break
                    await anyio.sleep(0.05)
            # the lock went with the call: a new run may start at once
            ok = data_of(
                await client.call_tool(
                    "run_instrumentation",
                    {
                        "test_package": "com.example.notes.test",
                        "tests": ["com.example.notes.NotesListTest"],
                    },
                )
            )
            assert ok["success"]
        app.close()
    assert list((tmp_path / "instrumentation").glob("*.incomplete.log"))


async def test_a_heavy_job_in_progress_refuses_installs_and_runs(tmp_path: Path) -> None:
    (tmp_path / "app.apk").write_bytes(build_apk("com.example.other", version_code=3))
    with simulated() as (device,):
        app = make_app([device], policy=Policy(profile="full", local_root=tmp_path))
        async with connected(app) as client:
            with heavy_job(device.serial, "run_instrumentation com.example.notes.soak") as holder:
                for name, arguments in (
                    ("install_apk", {"apk": "app.apk"}),
                    ("run_instrumentation", {"test_package": "com.example.notes.test"}),
                ):
                    # Refused, never waiting for the holder (held here to the end); the
                    # bound is WAIT, as a first call also loads its tool family.
                    with anyio.fail_after(WAIT):
                        error = error_of(await client.call_tool(name, arguments))
                    assert (error["code"], error["retryable"], error["next_action"]) == (
                        "device_busy", True, "retry",
                    )  # fmt: skip
                    assert error["details"]["holder"]["since"] == holder.since
                    assert "run_instrumentation com.example.notes.soak" in error["message"]
            installed = data_of(await client.call_tool("install_apk", {"apk": "app.apk"}))
            assert installed["package"] == "com.example.other"
        app.close()


async def test_what_the_caps_leave_out_is_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(activity_tools, "MAX_TASKS", 1)
    monkeypatch.setattr(activity_tools, "MAX_ACTIVITIES", 1)
    monkeypatch.setattr(instrumentation_tools, "MAX_FAILURES", 1)
    with simulated() as (device,):
        app = make_app([device], policy=Policy(profile="full", local_root=tmp_path))
        async with connected(app) as client:
            await client.call_tool("launch_app", {"package": NOTES})
            await client.call_tool("open_deep_link", {"uri": "notes://settings"})
            stack = data_of(await client.call_tool("activity_stack", {}))
            assert len(stack["tasks"]) == 1 and len(stack["tasks"][0]["activities"]) == 1
            assert stack["omitted"] == 2  # the list activity below settings, the home task
            run = data_of(
                await client.call_tool(
                    "run_instrumentation", {"test_package": "com.example.notes.test"}
                )
            )
            assert (len(run["failures"]), run["omitted_failures"]) == (1, 1)
        app.close()


async def test_the_process_list_pages_with_a_cursor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(processes_tools, "PAGE_SIZE", 5)
    with simulated() as (device,):
        app = make_app([device])
        async with connected(app) as client:
            listed = await client.call_tool("list_processes", {})
            first = data_of(listed)
            pids = [p["pid"] for p in rows_of(listed)]
            cursor, left = first["next_cursor"], first["remaining"]
            assert len(pids) == 5 and cursor and left > 0
            while cursor:
                read = await client.call_tool("list_processes", {"cursor": cursor})
                page = data_of(read)
                pids += [p["pid"] for p in rows_of(read)]
                cursor = page.get("next_cursor")
            assert len(pids) == 5 + left and len(set(pids)) == len(pids)
            assert pids == sorted(pids)  # ps order, nothing lost between pages
        app.close()
