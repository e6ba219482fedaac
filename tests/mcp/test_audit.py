"""Every call goes to the audit log: one JSON line with who, what, where, outcome, decision."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from adbwire.mcp.safety.audit import AuditLog, AuditRecord, now_iso, state_dir
from adbwire.mcp.safety.policy import Policy
from tests.mcp.harness import Elicitor, connected, make_app, simulated


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_one_line_per_call_with_outcome_device_and_decision(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    with simulated() as (device,):
        app = make_app([device], audit=log, policy=Policy(profile="full"))
        async with connected(
            app, mode="legacy", elicitor=Elicitor(action="decline", content=None)
        ) as client:
            await client.call_tool("get_property", {"name": "ro.product.model"})
            await client.call_tool("get_property", {"name": "bad name"})
            await client.call_tool("uninstall_package", {"package": "com.example.notes"})
        app.close()
    first, second, third = lines(log)
    assert first["tool"] == "get_property" and first["outcome"] == "ok"
    assert first["device"] == device.serial and first["arguments"] == {"name": "ro.product.model"}
    assert first["confirmation"] == "not_needed" and isinstance(first["duration_ms"], int)
    assert str(first["client"]).startswith("mcp")  # the SDK client's name from initialize
    assert second["outcome"] == "error" and second["error_code"] == "invalid_arguments"
    assert second["device"] is None  # refused before any device was touched
    assert third["confirmation"] == "declined" and third["error_code"] == "confirmation_required"
    assert os.stat(log).st_mode & 0o777 == 0o600


async def test_typed_text_is_not_kept_in_the_audit_log(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    with simulated() as (device,):
        app = make_app([device], audit=log)
        async with connected(app) as client:
            await client.call_tool("type_text", {"text": "hunter2 secret"})
        app.close()
    (line,) = lines(log)
    assert line["tool"] == "type_text"
    assert line["arguments"] == {"text": "<redacted>"}
    assert "hunter2" not in log.read_text()


def record(tool: str = "t") -> AuditRecord:
    return AuditRecord(now_iso(), None, tool, {"x": "y" * 2000}, None, "ok", None, 1, "not_needed")


def test_rotation_by_size_keeps_a_bounded_number_of_files(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    audit = AuditLog(path, max_bytes=2000, backups=2)
    for number in range(10):
        audit.write(record(f"t{number}"))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"]
    assert lines(path)[-1]["tool"] == "t9"
    assert len(lines(path)[-1]["arguments"]["x"]) < 600  # type: ignore[index]


def test_default_location_is_the_users_state_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert state_dir() == tmp_path / "adbwire"
    monkeypatch.delenv("XDG_STATE_HOME")
    assert state_dir() == Path.home() / ".local" / "state" / "adbwire"


def test_a_broken_log_never_fails_the_caller(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    AuditLog(blocker / "audit.jsonl").write(record())  # logs an error once, raises nothing
