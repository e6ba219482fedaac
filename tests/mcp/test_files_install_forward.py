"""File, install and forwarding tools through a real client, with their limits."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import anyio.to_thread
import pytest

from adbwire.mcp.safety.policy import Policy
from adbwire.mcp.tools import files as file_tools
from adbwire.testing.userland.android.apk import build_apk
from tests.mcp.harness import WAIT, connected, data_of, error_of, make_app, rows_of, simulated


async def test_host_files_need_a_local_root() -> None:
    with simulated() as (device,):
        app = make_app([device], policy=Policy())
        async with connected(app) as client:
            for name, arguments in [
                ("pull_file", {"path": "/sdcard/Download/groceries.txt"}),
                ("push_file", {"source": "a.txt", "path": "/sdcard/a.txt"}),
                ("install_apk", {"apk": "app.apk"}),
            ]:
                error = error_of(await client.call_tool(name, arguments))
                assert (error["code"], error["next_action"]) == (
                    "host_files_disabled",
                    "ask_operator",
                )
                assert "--local-root" in error["message"]
        app.close()


async def test_pull_push_within_the_limits(tmp_path: Path) -> None:
    (tmp_path / "note.txt").write_text("from the host")
    with simulated() as (device,):
        app = make_app([device], policy=Policy(local_root=tmp_path))
        async with connected(app) as client:
            pulled = data_of(
                await client.call_tool(
                    "pull_file", {"path": "/sdcard/Download/groceries.txt", "to": "in/g.txt"}
                )
            )
            assert pulled["host_path"] == "in/g.txt" and pulled["text"].startswith("milk")
            outside = error_of(
                await client.call_tool("pull_file", {"path": "/data/system/packages.xml"})
            )
            assert outside["code"] == "path_not_allowed"
            escape = error_of(
                await client.call_tool(
                    "pull_file", {"path": "/sdcard/Download/groceries.txt", "to": "../x"}
                )
            )
            assert escape["code"] == "path_not_allowed"
            pushed = data_of(
                await client.call_tool(
                    "push_file", {"source": "note.txt", "path": "/sdcard/Download"}
                )
            )
            assert pushed["path"] == "/sdcard/Download/note.txt"
            again = error_of(
                await client.call_tool(
                    "push_file", {"source": "note.txt", "path": "/sdcard/Download/note.txt"}
                )
            )
            assert again["code"] == "already_exists"
            system = error_of(
                await client.call_tool("push_file", {"source": "note.txt", "path": "/system/x"})
            )
            assert system["code"] == "path_not_allowed"
            listed = await client.call_tool("list_dir", {"path": "/sdcard/Download"})
            entries = rows_of(listed)  # once, after the JSON line
            assert [e["name"] for e in entries] == ["groceries.txt", "note.txt"]
            assert data_of(listed)["count"] == 2 and entries[1]["kind"] == "file"
            info = data_of(
                await client.call_tool("stat_path", {"path": "/sdcard/Download/note.txt"})
            )
            assert (info["kind"], info["size"], info["link"]) == ("file", 13, False)
        assert device.files.host_path("/sdcard/Download/note.txt").read_text() == "from the host"
        app.close()


async def test_install_reports_progress_and_the_verified_version(tmp_path: Path) -> None:
    (tmp_path / "app.apk").write_bytes(
        build_apk("com.example.hello", version_code=7, version_name="0.7")
    )
    with simulated() as (device,):
        app = make_app([device], policy=Policy(local_root=tmp_path))
        seen: list[float] = []

        async def report(progress: float, total: float | None, message: str | None) -> None:
            seen.append(progress)

        async with connected(app) as client:
            installed = data_of(
                await client.call_tool("install_apk", {"apk": "app.apk"}, progress_callback=report)
            )
            launched = data_of(
                await client.call_tool("launch_app", {"package": "com.example.hello"})
            )
        app.close()
    assert (installed["package"], installed["version_code"]) == ("com.example.hello", 7)
    assert seen and seen[-1] == (tmp_path / "app.apk").stat().st_size
    assert launched["package"] == "com.example.hello"


@contextmanager
def echo_server() -> Iterator[int]:
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(WAIT)

    def serve() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            conn.sendall(conn.recv(100).upper())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()
        thread.join(WAIT)


def round_trip(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as conn:
        conn.sendall(b"ping")
        return conn.recv(100)


async def test_forward_relays_a_connection_and_can_be_removed() -> None:
    with simulated() as (device,), echo_server() as device_port:
        app = make_app([device])
        async with connected(app) as client:
            made = data_of(await client.call_tool("forward_port", {"remote": f"tcp:{device_port}"}))
            local = int(made["local"].split(":")[1])
            with anyio.fail_after(WAIT):
                assert await anyio.to_thread.run_sync(round_trip, local) == b"PING"
            listed = data_of(await client.call_tool("list_forwards", {}))
            assert [f["local"] for f in listed["forwards"]] == [made["local"]]
            data_of(await client.call_tool("remove_forward", {"local_port": local}))
            assert data_of(await client.call_tool("list_forwards", {}))["forwards"] == []
            missing = error_of(await client.call_tool("remove_forward", {"local_port": local}))
            assert missing["code"] == "not_found"
            bad = error_of(await client.call_tool("forward_port", {"remote": "udp:53"}))
            assert bad["code"] == "invalid_arguments"
        app.close()


async def test_host_file_refusal_comes_before_any_device_is_touched() -> None:
    app = make_app([], policy=Policy())  # no device at all: the refusal must come first
    async with connected(app) as client:
        error = error_of(await client.call_tool("pull_file", {"path": "/sdcard/x"}))
    assert error["code"] == "host_files_disabled"


async def test_a_trickling_device_cannot_hold_pull_file_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One byte every 5 ms never trips the idle timeout; the minimum rate ends the call."""
    monkeypatch.setattr(file_tools, "PULL_MIN_RATE", 2000)
    monkeypatch.setattr(file_tools, "PULL_RATE_GRACE", 0.5)
    with simulated() as (device,):
        device.files.write_bytes("/sdcard/Download/slow.bin", b"s" * 4000)
        device.faults.trickle("sync:", interval=0.005)
        app = make_app([device], policy=Policy(local_root=tmp_path))
        async with connected(app) as client:
            with anyio.fail_after(WAIT):
                error = error_of(
                    await client.call_tool("pull_file", {"path": "/sdcard/Download/slow.bin"})
                )
        app.close()
    assert (error["code"], error["retryable"]) == ("timeout", True)
    assert "slower than the minimum rate of 2000 bytes/s" in error["message"]
    assert _names(tmp_path) == []  # neither the file nor its staging name


def test_the_pull_minimum_rate_is_what_security_md_says() -> None:
    assert (file_tools.PULL_MIN_RATE, file_tools.PULL_RATE_GRACE) == (64 * 1024, 30.0)


async def test_host_file_system_errors_are_invalid_arguments(tmp_path: Path) -> None:
    """Not internal_error: a parent that is a file, a name the file system refuses."""
    (tmp_path / "plain").write_text("a file, not a directory")
    with simulated() as (device,):
        app = make_app([device], policy=Policy(local_root=tmp_path))
        async with connected(app) as client:
            under_a_file = error_of(
                await client.call_tool(
                    "pull_file", {"path": "/sdcard/Download/groceries.txt", "to": "plain/g.txt"}
                )
            )
            too_long = error_of(
                await client.call_tool(
                    "pull_file", {"path": "/sdcard/Download/groceries.txt", "to": "n" * 300}
                )
            )
            dir_in_the_way = error_of(
                await client.call_tool(
                    "pull_file",
                    {"path": "/sdcard/Download/groceries.txt", "to": ".", "overwrite": True},
                )
            )
        app.close()
    assert under_a_file["code"] == "invalid_arguments"
    assert under_a_file["message"] == (
        "cannot write the host file 'g.txt': a file is in the way of its directory"
    )
    assert too_long["code"] == "invalid_arguments"
    assert "longer than 255 bytes" in too_long["message"]
    assert dir_in_the_way["code"] == "already_exists"
    assert _names(tmp_path) == ["plain"]


async def test_pull_file_replaces_only_when_asked_and_leaves_no_staging_file(
    tmp_path: Path,
) -> None:
    (tmp_path / "g.txt").write_text("old")
    with simulated() as (device,):
        app = make_app([device], policy=Policy(local_root=tmp_path))
        async with connected(app) as client:
            args = {"path": "/sdcard/Download/groceries.txt", "to": "g.txt"}
            kept = error_of(await client.call_tool("pull_file", args))
            assert (tmp_path / "g.txt").read_text() == "old"
            replaced = data_of(await client.call_tool("pull_file", {**args, "overwrite": True}))
        app.close()
    assert kept["code"] == "already_exists"
    assert replaced["text"].startswith("milk") and replaced["size"] == len(replaced["text"])
    assert _names(tmp_path) == ["g.txt"]


def _names(directory: Path) -> list[str]:
    return sorted(os.listdir(directory))
