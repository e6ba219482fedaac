"""Reading a trace that may be cut or edited, the page's escaping, and `adbwire trace show`."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from adbwire.errors import UsageError
from adbwire.mcp.trace import format as trace_format
from adbwire.mcp.trace.format import TRACE_FILE, read_trace
from adbwire.mcp.trace.page import SCRIPT, STYLE
from adbwire.mcp.trace.viewer import _hash, page_data, render
from adbwire.mcp.trace.writer import Shot, TraceWriter
from tests.conftest import CliRun


def make_trace(directory: Path, *steps: dict[str, Any], shots: bool = False) -> Path:
    writer = TraceWriter(directory)
    for fields in steps:
        index = writer.next_index()
        record = {"kind": "step", "index": index, "tool": "tap", "outcome": "ok", **fields}
        image = Shot(Image.new("RGB", (54, 120), (200, 30, 30)), 1080, 2400)
        writer.submit(record, {"after": image} if shots else {})
    writer.close()
    return directory


def test_a_cut_or_edited_trace_is_read_as_far_as_it_is_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = make_trace(tmp_path / "t", {"tool": "first"}, {"tool": "second"})
    monkeypatch.setattr(trace_format, "MAX_LINE_BYTES", 1000)
    with (directory / TRACE_FILE).open("ab") as lines:
        lines.write(b'{"kind": "step", "index": 7, "summary": "' + b"x" * 5000 + b'"}\n')
        lines.write(b"not json\n")
        lines.write(b'["a list"]\n')
        lines.write(b'{"kind": "step", "index": true}\n')
        lines.write(b'{"kind": "step", "index": 9, "tool": "cut by a crash"')  # no newline
    trace = read_trace(directory)
    assert [s["tool"] for s in trace.steps] == ["first", "second"]
    assert trace.skipped_lines == 5


def test_what_is_not_a_trace_is_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such trace directory"):
        read_trace(tmp_path / "missing")
    with pytest.raises(UsageError, match="not a trace"):
        read_trace(tmp_path)
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / TRACE_FILE).write_text('{"format": "something else"}\n')
    with pytest.raises(UsageError, match="not an adbwire trace"):
        read_trace(tmp_path / "x")


def test_screens_are_taken_only_from_the_traces_own_files(tmp_path: Path) -> None:
    secret = tmp_path / "secret.png"
    Image.new("RGB", (4, 4)).save(secret)
    directory = make_trace(tmp_path / "t", {}, {}, {}, shots=True)
    (directory / "shots" / "000002-after.webp").unlink()
    os.symlink(secret, directory / "shots" / "000002-after.webp")
    lines = (directory / TRACE_FILE).read_text().splitlines()
    third = json.loads(lines[3])
    third["screens"]["after"]["file"] = "shots/../../secret.png"
    lines[3] = json.dumps(third)
    (directory / TRACE_FILE).write_text("\n".join(lines) + "\n")
    first, second, edited = (
        s["screens"]["after"] for s in page_data(read_trace(directory))["steps"]
    )
    assert first["src"].startswith("data:image/")
    assert second == {"missing": "dropped to keep the trace within its size budget"}
    assert edited == {"missing": "not a screenshot name this trace may use"}


def test_device_text_cannot_end_the_data_block_and_the_policy_allows_only_the_page(
    tmp_path: Path,
) -> None:
    hostile = "</script><script>alert(1)</script><!--"
    page = render(read_trace(make_trace(tmp_path / "t", {"summary": hostile, "tool": hostile})))
    assert page.count("</script>") == 2  # the data block's and the script's own
    assert "<!--" not in page
    block = re.search(r'id="trace-data">(.*?)</script>', page, re.S)
    assert block is not None
    assert json.loads(block.group(1))["steps"][0]["summary"] == hostile
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    assert policy.group(1).startswith("default-src 'none'; img-src data:;")
    assert f"script-src '{_hash(SCRIPT)}'" in policy.group(1)
    assert f"style-src '{_hash(STYLE)}'" in policy.group(1)
    assert f"<script>{SCRIPT}</script>" in page and f"<style>{STYLE}</style>" in page


def test_trace_show_writes_the_page_and_prints_its_path(tmp_path: Path, run_cli: CliRun) -> None:
    make_trace(tmp_path / "runs" / "older", {"tool": "old"})
    os.utime(tmp_path / "runs" / "older" / TRACE_FILE, (1, 1))
    make_trace(tmp_path / "runs" / "newer", {"tool": "new"})
    status, out, _ = run_cli("trace", "show", str(tmp_path / "runs"))
    assert status == 0
    page = Path(out.strip())
    assert page == (tmp_path / "runs" / "newer" / "trace.html").resolve() and page.is_file()
    assert '"tool":"new"' in page.read_text()
    status, out, _ = run_cli(
        "trace", "show", str(tmp_path / "runs" / "older"), "-o", str(tmp_path / "o.html")
    )
    assert status == 0 and Path(out.strip()) == (tmp_path / "o.html").resolve()
    assert '"tool":"old"' in (tmp_path / "o.html").read_text()
    status, out, err = run_cli("trace", "show", str(tmp_path / "nothing"))
    assert status == 2 and out == "" and "no such trace directory" in err
