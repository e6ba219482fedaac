"""logcat lines in threadtime, time and brief formats, with buffer markers."""

from __future__ import annotations

import pytest

from adbwire.device.parsers.logcat import (
    LogEntry,
    iter_logcat,
    level_at_least,
    parse_logcat,
    parse_logcat_line,
)
from adbwire.errors import UsageError
from tests.device_outputs import device_output


def test_threadtime_microg_excerpt() -> None:
    entries = parse_logcat(device_output("logcat/threadtime_microg_device_excerpt.txt"))
    assert len(entries) == 1284  # 1285 lines, the first is "--------- beginning of main"
    assert entries[0] == LogEntry(
        timestamp="03-13 10:04:17.257",
        pid=1817,
        tid=2528,
        level="D",
        tag="ConnectivityService",
        message="NetReassign [no changes] [c 0] [a 2] [i 1]",
        buffer="main",
    )
    assert sum(e.level == "D" for e in entries) == 1074
    assert sum(e.level == "V" for e in entries) == 210
    assert {e.buffer for e in entries} == {"main"}
    # "VSC     : @ 227.323: [WO] ..." -- padded tag, colons inside the message
    vsc = [e for e in entries if e.tag == "VSC"]
    assert len(vsc) == 3
    assert vsc[0].message == "@ 227.323: [WO] Proposed rotation: 2, flat angle threshold: 65"
    assert (vsc[0].pid, vsc[0].tid) == (1129, 1256)
    assert entries[-1].timestamp == "03-13 10:04:18.255"


def test_brief_format_android_3_2_with_crlf() -> None:
    entries = parse_logcat(device_output("logcat/brief_format_android3.2_tf201_CRLF.txt"))
    assert len(entries) == 1082  # 1084 lines, two of them buffer markers
    first = entries[0]
    assert (first.level, first.tag, first.pid, first.tid) == ("I", "Vold", 103, None)
    assert first.message == "Vold 2.1 (the revenge) firing up"  # no trailing "\r"
    assert first.timestamp is None and first.buffer == "system"  # "/dev/log/system"
    assert sum(e.buffer == "system" for e in entries) == 49
    assert sum(e.buffer == "main" for e in entries) == 1033
    assert sum(e.level == "E" for e in entries) == 69
    assert {"GlsClient-query", "com.evernote.client.SyncService"} <= {e.tag for e in entries}
    assert not any(e.message.endswith("\r") for e in entries)


def test_time_format_and_year_timestamps() -> None:
    entry = parse_logcat_line("03-13 10:04:17.257 W/ActivityManager( 1817): Slow operation")
    assert entry is not None
    assert (entry.timestamp, entry.level, entry.tag, entry.pid) == (
        "03-13 10:04:17.257",
        "W",
        "ActivityManager",
        1817,
    )
    year = parse_logcat_line("2024-03-13 10:04:17.257  1817  2528 I Tag: hi")
    assert year is not None and year.timestamp == "2024-03-13 10:04:17.257"


def test_odd_lines() -> None:
    empty_message = parse_logcat_line("03-13 10:04:17.257  1817  2528 I chatty  :")
    assert empty_message is not None and (empty_message.tag, empty_message.message) == (
        "chatty",
        "",
    )
    tag_with_colon = parse_logcat_line("03-13 10:04:17.257  1  2 D Finsky:bg: [12] loaded")
    assert tag_with_colon is not None
    assert (tag_with_colon.tag, tag_with_colon.message) == ("Finsky:bg", "[12] loaded")
    old_assert = parse_logcat_line("A/libc    (  99): abort")
    assert old_assert is not None and old_assert.level == "F"
    assert parse_logcat_line("") is None
    assert parse_logcat_line("read: unexpected EOF!") is None
    assert parse_logcat_line("03-13 10:04:18.25") is None  # cut off mid-line


def test_markers_switch_buffers_while_streaming() -> None:
    lines = [
        "--------- beginning of main",
        "03-13 10:00:00.000   10   10 I A: one",
        "--------- beginning of crash",
        "03-13 10:00:01.000   20   20 E AndroidRuntime: FATAL EXCEPTION: main",
        "--------- switch to system",
        "03-13 10:00:02.000   30   30 W B: three",
    ]
    assert [(e.tag, e.buffer) for e in iter_logcat(lines)] == [
        ("A", "main"),
        ("AndroidRuntime", "crash"),
        ("B", "system"),
    ]
    assert parse_logcat("") == []


def test_level_filter() -> None:
    entry = parse_logcat_line("03-13 10:00:00.000   10   10 W A: x")
    assert entry is not None
    assert level_at_least(entry, "I") and level_at_least(entry, "w")
    assert not level_at_least(entry, "E")
    with pytest.raises(UsageError):
        level_at_least(entry, "X")
