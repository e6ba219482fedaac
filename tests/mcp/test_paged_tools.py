"""Tools whose output can be large hand it out in pages: nothing is dropped."""

from __future__ import annotations

from adbwire.mcp.safety.policy import Policy
from tests.mcp.harness import (
    connected,
    data_of,
    error_of,
    make_app,
    payload_of,
    payload_text,
    simulated,
)


async def test_shell_output_pages_add_up_to_the_whole_output() -> None:
    content = "".join(f"line {number:06d} of a long file\n" for number in range(4000))
    with simulated() as (device,):
        device.files.write_bytes("/sdcard/Download/big.txt", content.encode())
        app = make_app([device], policy=Policy(profile="full", allow_destructive=True))
        async with connected(app) as client:
            ran = await client.call_tool(
                "run_shell",
                {"command": "cat /sdcard/Download/big.txt", "reason": "read a long file"},
            )
            first = data_of(ran)
            assert (
                first["exit_code"] == 0 and first["next_cursor"] and first["remaining_pages"] >= 3
            )
            text, cursor = payload_text(ran), first["next_cursor"]
            assert first["stdout_chars"] == len(text) and first["stderr_chars"] == 0
            while cursor:
                read = await client.call_tool("read_shell_output", {"cursor": cursor})
                text, cursor = text + payload_text(read), data_of(read).get("next_cursor")
            stale = error_of(await client.call_tool("read_shell_output", {"cursor": "nope.1"}))
        app.close()
    assert text == content
    assert (stale["code"], stale["next_action"]) == ("cursor_expired", "fix_arguments")


async def test_logcat_pages_go_back_in_time_without_gaps() -> None:
    with simulated() as (device,):
        app = make_app([device])
        async with connected(app) as client:
            whole = payload_of(await client.call_tool("read_logcat", {"max_lines": 2000}))
            read = await client.call_tool("read_logcat", {"max_lines": 7})
            page, pages = data_of(read), [payload_of(read)]
            while page.get("next_cursor"):
                read = await client.call_tool("read_logcat", {"cursor": page["next_cursor"]})
                page = data_of(read)
                pages.append(payload_of(read))
        app.close()
    assert len(whole) > 14 and len(pages[0]) == 7
    assert [line for chunk in reversed(pages) for line in chunk] == whole


async def test_package_listing_pages() -> None:
    with simulated() as (device,):
        app = make_app([device])
        async with connected(app) as client:
            result = await client.call_tool("list_packages", {})
            listed, names = data_of(result), payload_of(result)
        app.close()
    assert "com.example.notes" in names and listed["remaining"] == 0
    assert listed["count"] == len(names) and names == sorted(names)
    assert "next_cursor" not in listed
