"""Large outputs are cut into pages with a cursor, never dropped."""

from __future__ import annotations

import pytest

from adbwire.mcp.results.envelope import ErrorCode, ToolFailure
from adbwire.mcp.results.paging import Pager, split_text


def test_pages_cover_everything_in_order() -> None:
    pager = Pager()
    items = list(range(25))
    page = pager.paginate("t", items, 10)
    seen = list(page.items)
    assert page.remaining == 15
    while page.next_cursor:
        page = pager.next_page("t", page.next_cursor)
        seen += page.items
    assert seen == items


def test_newest_first_gives_full_recent_pages() -> None:
    pager = Pager()
    page = pager.paginate("logs", list(range(25)), 10, newest_first=True)
    assert page.items == list(range(15, 25))
    assert page.next_cursor is not None
    older = pager.next_page("logs", page.next_cursor)
    assert older.items == list(range(5, 15))
    assert older.next_cursor is not None
    oldest = pager.next_page("logs", older.next_cursor)
    assert (oldest.items, oldest.next_cursor, oldest.remaining) == (list(range(5)), None, 0)


def test_small_outputs_have_no_cursor() -> None:
    page = Pager().paginate("t", [1, 2], 10)
    assert (page.items, page.next_cursor, page.remaining) == ([1, 2], None, 0)


@pytest.mark.parametrize("cursor", ["nope.0", "x", "", "abc.zz"])
def test_unknown_cursors_expire(cursor: str) -> None:
    with pytest.raises(ToolFailure) as caught:
        Pager().next_page("t", cursor)
    assert caught.value.code is ErrorCode.CURSOR_EXPIRED


def test_a_cursor_belongs_to_its_tool_and_old_outputs_are_evicted() -> None:
    pager = Pager(max_stored=2)
    first = pager.paginate("a", list(range(4)), 1)
    assert first.next_cursor is not None
    with pytest.raises(ToolFailure):
        pager.next_page("b", first.next_cursor)
    pager.paginate("a", list(range(4)), 1)
    pager.paginate("a", list(range(4)), 1)
    with pytest.raises(ToolFailure):
        pager.next_page("a", first.next_cursor)


def test_split_text_prefers_newlines_and_loses_nothing() -> None:
    text = "".join(f"line {n}\n" for n in range(1000))
    chunks = split_text(text, 100)
    assert "".join(chunks) == text
    assert all(len(c) <= 100 for c in chunks)
    assert all(c.endswith("\n") for c in chunks)
