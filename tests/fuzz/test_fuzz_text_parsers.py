"""Fuzz the parsers of device text output (getprop, dumpsys, pm, logcat, wm) with mutated
real captures: each returns a result no larger than its input, or raises the documented
DeviceCommandError (an error reply); nothing else, and in time linear in the input."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adbwire.device.parsers.activities import parse_activities
from adbwire.device.parsers.battery import parse_battery
from adbwire.device.parsers.component import component_in_activity_record, parse_component
from adbwire.device.parsers.crashes import find_anrs, find_crashes
from adbwire.device.parsers.getprop import parse_getprop, summarize_properties
from adbwire.device.parsers.input_method import parse_keyboard_shown
from adbwire.device.parsers.logcat import LogEntry, parse_logcat
from adbwire.device.parsers.package_info import parse_package_info
from adbwire.device.parsers.packages import (
    parse_package_list,
    parse_pm_path,
    parse_resolve_activity,
)
from adbwire.device.parsers.window import (
    parse_density,
    parse_display_size,
    parse_window_display,
    parse_window_focus,
)
from adbwire.errors import DeviceCommandError
from adbwire.testing.scenario import load_scenario
from adbwire.wire.services.install_result import parse_answer
from tests.device_outputs import DEVICE_OUTPUTS
from tests.fuzz.strategies import FUZZ, mutated_text


def _captures(folder: str) -> list[str]:
    return [
        path.read_bytes().decode("utf-8", "replace")
        for path in sorted((DEVICE_OUTPUTS / folder).iterdir())
    ]


_SCENARIO = load_scenario()
PM_LIST = [
    "package:/data/app/~~ab==/com.example.notes-cd==/base.apk=com.example.notes uid:10190\n"
    "package:com.android.shell versionCode:34 installer=null uid:2000,1000\n"
    "package:com.android.bluetooth uid:1002,3002,3003\n"
    "package:com.evil\x1b[2J  installer=com.android.vending\n",
    "Error: java.lang.SecurityException\n",
    "package:/data/app/x/base.apk\npackage:/data/app/y/split_config.arm64_v8a.apk\n",
    "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n"
    "com.example.notes/.NotesListActivity\n",
]
SEEDS: dict[str, list[str]] = {
    "getprop": _captures("getprop"),
    "battery": _captures("dumpsys_battery"),
    "activities": _captures("dumpsys_activity_activities"),
    "package": _captures("dumpsys_package"),
    "window": _captures("dumpsys_window"),
    "logcat": [*_captures("logcat"), _SCENARIO.logcat.get("crash", ""), "--------- beginning"],
    "pm": PM_LIST,
    "install": [
        "Performing Streamed Install\nSuccess\n",
        "Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code 1]",
        "adb: failed to install: Failure [INSTALL_PARSE_FAILED_NO_CERTIFICATES]\r\n",
    ],
    "wm": [
        "Physical size: 1080x2400\nOverride size: 720x1600\n",
        "Physical density: 420\nOverride density: 560\n",
        "mInputShown=true\nmInteractive=false\n",
    ],
}

Parser = Callable[[str], object]
PARSERS: list[tuple[str, str, Parser]] = [
    ("getprop", "getprop", lambda text: summarize_properties(parse_getprop(text))),
    ("battery", "battery", parse_battery),
    ("activities", "activities", parse_activities),
    ("package", "package", lambda text: parse_package_info(text, "com.example.notes")),
    ("window focus", "window", parse_window_focus),
    ("window display", "window", parse_window_display),
    ("logcat", "logcat", lambda text: (find_crashes(e := parse_logcat(text)), find_anrs(e))),
    ("pm list packages", "pm", parse_package_list),
    ("pm path", "pm", parse_pm_path),
    ("resolve-activity", "pm", parse_resolve_activity),
    ("component", "pm", lambda text: (parse_component(text), component_in_activity_record(text))),
    ("wm size", "wm", parse_display_size),
    ("wm density", "wm", parse_density),
    ("input_method", "wm", parse_keyboard_shown),
    ("pm install answer", "install", parse_answer),
]


def _size(result: object) -> int:
    """How many items a result holds (containers counted recursively, a string as one)."""
    if isinstance(result, dict):
        return len(result) + sum(_size(v) for v in result.values())
    if isinstance(result, list | tuple):
        return len(result) + sum(_size(v) for v in result)
    return 1


@pytest.mark.parametrize(("name", "seeds", "parse"), PARSERS, ids=[p[0] for p in PARSERS])
def test_text_parser_fuzz(name: str, seeds: str, parse: Parser) -> None:
    @FUZZ
    @given(mutated_text(SEEDS[seeds]) | st.text(max_size=2000))
    def check(text: str) -> None:
        try:
            result = parse(text)
        except DeviceCommandError:
            return
        assert _size(result) <= 2 * (text.count("\n") + 2)

    check()


@pytest.mark.parametrize("line", ["package:x uid:,5", "package:x uid:,", "package:x uid:1,"])
def test_a_malformed_uid_field_is_part_of_the_name_not_a_crash(line: str) -> None:
    """Found while writing the fuzzers: "uid:," used to raise ValueError from int("")."""
    (entry,) = parse_package_list(line)
    assert entry.uid is None
    assert entry.name == line.removeprefix("package:")


@pytest.mark.parametrize(
    "line",
    [
        "package:x" + " " * 200_000 + "y",
        "package:x" + " uid:1" * 50_000,
        "05-02 10:15:00.000 1 2 I " + " " * 200_000 + "x",
        "I/" + "(" * 200_000,
        "[a]: [" + "]" * 200_000,
        "\r" * 200_000,
        "  level: x" + " " * 200_000 + "y",
    ],
    ids=[
        "pm spaces",
        "pm fields",
        "logcat spaces",
        "logcat brackets",
        "getprop brackets",
        "carriage returns",
        "battery spaces",
    ],
)
def test_long_hostile_lines_parse_in_linear_time(line: str) -> None:
    """Before the fixes, 16 KB of spaces in a `pm list packages` line took 9 s and 20 KB in
    a `dumpsys battery` value 19 s, 20 KB of "\\r" 3 s to split into lines (quadratic
    backtracking); 200 KB would take minutes to hours. The bound is loose on purpose."""
    started = time.monotonic()
    parse_package_list(line)
    parse_logcat(line)
    parse_getprop(line)
    with contextlib.suppress(DeviceCommandError):
        parse_battery("Current Battery Service state:\n" + line)
    assert time.monotonic() - started < 10.0


def test_crash_search_is_linear_in_the_log() -> None:
    """Each FATAL EXCEPTION used to scan (and copy) the rest of the log: 60 000 lines of
    crash heads from different processes took minutes. The bound is loose on purpose."""
    entries = [
        LogEntry(None, pid, pid, "E", "AndroidRuntime", message, "crash")
        for pid in range(20_000)
        for message in ("FATAL EXCEPTION: main", f"Process: com.x{pid}, PID: {pid}")
    ]
    entries += [LogEntry(None, 1, 1, "E", "AndroidRuntime", "\tat a.B.c(B.java:1)", None)] * 20_000
    started = time.monotonic()
    assert find_crashes(entries) == []  # no exception line: nothing to report
    assert time.monotonic() - started < 10.0
