"""The trace writer on its own: a private directory, call order, the size budget."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from PIL import Image

from adbwire.errors import UsageError
from adbwire.mcp.trace.format import TRACE_FILE, read_trace
from adbwire.mcp.trace.viewer import page_data
from adbwire.mcp.trace.writer import MIN_BUDGET_BYTES, Shot, TraceWriter


def noise(seed: int) -> Image.Image:
    """A screen that does not compress: each one costs its full size in the budget."""
    generator = random.Random(seed)
    return Image.frombytes("RGB", (216, 480), generator.randbytes(216 * 480 * 3))


def step(writer: TraceWriter, index: int | None = None, **fields: object) -> dict[str, object]:
    record: dict[str, object] = {
        "kind": "step",
        "index": writer.next_index() if index is None else index,
        "tool": "tap",
        "outcome": "ok",
        **fields,
    }
    return record


def test_directory_and_files_are_private_and_a_used_directory_is_refused(tmp_path: Path) -> None:
    os.umask(0o022)
    target = tmp_path / "trace"
    writer = TraceWriter(target)
    writer.submit(step(writer), {"before": Shot(noise(1), 1080, 2400)})
    writer.close()
    assert target.stat().st_mode & 0o777 == 0o700
    assert (target / "shots").stat().st_mode & 0o777 == 0o700
    files = [target / TRACE_FILE, *(target / "shots").iterdir()]
    assert len(files) == 2 and all(f.stat().st_mode & 0o777 == 0o600 for f in files)
    with pytest.raises(UsageError, match="not an empty directory"):
        TraceWriter(target)
    with pytest.raises(UsageError, match="at least"):
        TraceWriter(tmp_path / "small", budget_bytes=MIN_BUDGET_BYTES - 1)


def test_steps_are_read_back_in_the_order_the_calls_arrived(tmp_path: Path) -> None:
    writer = TraceWriter(tmp_path / "t")
    first, second, third = (writer.next_index() for _ in range(3))
    for index in (third, first, second):  # finished out of order (concurrent calls)
        writer.submit(step(writer, index, tool=f"call{index}"), {})
    writer.close()
    written = [json.loads(line) for line in (tmp_path / "t" / TRACE_FILE).read_text().splitlines()]
    assert [r.get("index") for r in written[1:4]] == [3, 1, 2]
    trace = read_trace(tmp_path / "t")
    assert [s["tool"] for s in trace.steps] == ["call1", "call2", "call3"]
    assert written[-1] == {"kind": "end", "steps": 3, "dropped_steps": 0}


def test_the_budget_drops_the_oldest_screenshots_first(tmp_path: Path) -> None:
    budget = 400_000
    writer = TraceWriter(tmp_path / "t", budget_bytes=budget)
    for n in range(12):
        writer.submit(
            step(writer),
            {"before": Shot(noise(2 * n), 1080, 2400), "after": Shot(noise(2 * n + 1), 1080, 2400)},
        )
        writer.flush()
        assert writer.used_bytes <= budget
    writer.close()
    directory = tmp_path / "t"
    on_disk = sum(f.stat().st_size for f in directory.rglob("*") if f.is_file())
    assert on_disk <= budget
    kept = sorted(p.name for p in (directory / "shots").iterdir())
    assert 2 <= len(kept) < 24
    # What is kept is the newest: every shot from the last kept one's step on is there.
    numbers = [int(name[:6]) for name in kept]
    assert max(numbers) == 12 and min(numbers) > 1
    trace = read_trace(directory)
    assert len(trace.steps) == 12 and trace.dropped_steps == 0  # steps stay, screens go
    shown = page_data(trace)["steps"]
    assert shown[0]["screens"]["before"] == {
        "missing": "dropped to keep the trace within its size budget"
    }
    assert shown[-1]["screens"]["after"]["src"].startswith("data:image/")


def test_calls_past_the_budget_are_counted_not_written(tmp_path: Path) -> None:
    writer = TraceWriter(tmp_path / "t", budget_bytes=MIN_BUDGET_BYTES)
    for _ in range(100):
        writer.submit(step(writer, result={"text": "x" * 2000}), {})
    writer.close()
    assert (tmp_path / "t" / TRACE_FILE).stat().st_size <= MIN_BUDGET_BYTES
    trace = read_trace(tmp_path / "t")
    assert 0 < len(trace.steps) < 100
    assert trace.dropped_steps == 100 - len(trace.steps)


def test_a_screen_larger_than_the_whole_budget_is_left_out_with_the_reason(
    tmp_path: Path,
) -> None:
    writer = TraceWriter(tmp_path / "t", budget_bytes=MIN_BUDGET_BYTES)
    big = Image.frombytes("RGB", (480, 480), random.Random(7).randbytes(480 * 480 * 3))
    writer.submit(step(writer), {"after": Shot(big, 480, 480)})
    writer.close()
    (only,) = read_trace(tmp_path / "t").steps
    assert only["screens"]["after"] == {"missing": "larger than what is left of the trace budget"}
    assert not list((tmp_path / "t" / "shots").iterdir())
