"""A page of text has a size bound as well as an item count (issue #18's review): a page
of read_logcat's lines now travels only as text, and a device's lines can be long."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from adbwire.device import logs as log_ops
from adbwire.device.parsers import LogEntry
from adbwire.mcp.results.paging import Pager
from adbwire.mcp.tools import logs
from adbwire.mcp.tools.logs import ReadLogcatArgs
from tests.mcp.harness import make_app


def test_pages_end_at_the_character_budget_and_cover_everything_in_order() -> None:
    pager = Pager()
    items = [f"{n:04d}" + "x" * 996 for n in range(300)]  # 1,000 characters each
    page = pager.paginate("t", items, 200, newest_first=True, max_chars=50_000)
    assert len(page.items) == 49 and page.items == items[-49:]  # 49 x 1,001 <= 50,000
    assert page.remaining == 300 - 49
    seen = [page.items]
    while page.next_cursor:
        page = pager.next_page("t", page.next_cursor)
        seen.insert(0, page.items)
    assert [item for chunk in seen for item in chunk] == items
    assert all(sum(len(i) + 1 for i in chunk) <= 50_000 for chunk in seen)


def test_an_item_larger_than_the_budget_is_a_page_of_its_own() -> None:
    page = Pager().paginate("t", ["a" * 10, "b", "c"], 5, max_chars=4)
    assert page.items == ["a" * 10] and page.remaining == 2
    assert Pager().paginate("t", [], 5, max_chars=4).items == []
    small = Pager().paginate("t", ["a", "b"], 5, max_chars=100)
    assert (small.items, small.next_cursor) == (["a", "b"], None)


async def test_a_read_logcat_page_of_long_lines_stays_within_its_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    entries = [
        LogEntry("05-02 10:00:00.000", 42, 42, "I", "Big", f"{n} " + "m" * 4000, "main")
        for n in range(2000)
    ]

    def found(client: Any, query: Any) -> log_ops.LogResult:
        return log_ops.LogResult(entries, ())

    async def run(function: Any, *arguments: Any) -> Any:
        return function(*arguments)

    monkeypatch.setattr(log_ops, "read_logcat", found)
    call = SimpleNamespace(app=make_app(), client=None, serial=None, run=run)
    output = await logs.read_logcat.handler(call, ReadLogcatArgs(max_lines=2000))  # type: ignore[arg-type]
    assert output.text is not None
    assert len(output.text) <= logs.MAX_PAGE_CHARS
    lines = output.text.split("\n")
    assert output.data.count == len(lines) < 2000  # type: ignore[attr-defined]
    assert output.data.remaining == 2000 - len(lines)  # type: ignore[attr-defined]
    assert lines[-1].startswith("05-02 10:00:00.000 42 I Big: 1999 ")  # the newest first
