"""One element model across find_elements, tap_element, assert_element and
wait_for_element, through a real MCP client against the simulated device."""

from __future__ import annotations

from tests.mcp.harness import error_of
from tests.mcp.test_ui_tools import session


async def test_a_label_is_checked_through_its_row_as_it_is_tapped() -> None:
    async with session("settings") as s:
        checked = await s.ok("assert_element", {"query": "Sync notes", "expect": "checked"})
        assert checked["passed"] is True and checked["actual"] == "true"
        found = await s.ok("find_elements", {"query": "Sync notes"})
        (element,) = found["elements"]
        assert element["tap"] == "e14"  # the row tap_element touches...
        assert checked["evidence"].startswith("e14 ")  # ...is the one whose state is read
        unchecked = await s.ok("assert_element", {"query": "Sync notes", "expect": "unchecked"})
        assert unchecked["passed"] is False


async def test_nothing_found_names_the_closest_labels() -> None:
    async with session("settings") as s:
        found = await s.ok("find_elements", {"query": "Statistic"})
        assert found["count"] == 0 and found["suggestions"] == ["Statistics"]
        error = error_of(await s.call("tap_element", {"query": "Setings"}))
        assert error["code"] == "not_found"
        assert error["details"]["suggestions"] == ["Settings"]
        assert "closest labels: 'Settings'" in error["message"]
        assert s.userland.commands_named("input") == []  # nothing was touched
        waited = await s.ok("wait_for_element", {"query": "About us", "timeout_s": 0})
        assert waited["met"] is False and waited["suggestions"] == ["About"]
        exact = await s.ok("find_elements", {"query": "Sort order"})
        assert exact["count"] == 1 and "suggestions" not in exact
