"""Crash and ANR extraction from logcat entries.

The real logcat samples hold no crash, which is itself checked; the crash blocks below are
written by hand in the exact shape AndroidRuntime, libc and ActivityManager print.
"""

from __future__ import annotations

from adbwire.device.parsers.crashes import find_anrs, find_crashes, last_crash
from adbwire.device.parsers.logcat import parse_logcat
from tests.device_outputs import device_output

THREADTIME_CRASHES = """\
--------- beginning of main
05-02 14:31:07.100  4321  4321 D AndroidRuntime: Shutting down VM
--------- beginning of crash
05-02 14:31:07.101  4321  4321 E AndroidRuntime: FATAL EXCEPTION: main
05-02 14:31:07.101  4321  4321 E AndroidRuntime: Process: com.example.app, PID: 4321
05-02 14:31:07.101  4321  4321 E AndroidRuntime: java.lang.RuntimeException: Unable to start activity ComponentInfo{com.example.app/com.example.app.MainActivity}: java.lang.IllegalStateException: no token
05-02 14:31:07.101  4321  4321 E AndroidRuntime: \tat android.app.ActivityThread.performLaunchActivity(ActivityThread.java:3645)
--------- beginning of main
05-02 14:31:07.102   980  1002 I ActivityManager: Showing crash dialog for package com.example.app u0
--------- beginning of crash
05-02 14:31:07.103  4321  4321 E AndroidRuntime: \tat android.os.Looper.loop(Looper.java:223)
05-02 14:31:07.103  4321  4321 E AndroidRuntime: Caused by: java.lang.IllegalStateException: no token
05-02 14:31:07.103  4321  4321 E AndroidRuntime: \tat com.example.app.MainActivity.onCreate(MainActivity.kt:42)
05-02 14:31:07.103  4321  4321 E AndroidRuntime: \t... 11 more
05-02 14:31:07.110  4321  4321 I Process: Sending signal. PID: 4321 SIG: 9
05-02 14:32:00.500  5555  5570 E AndroidRuntime: FATAL EXCEPTION: OkHttp Dispatcher
05-02 14:32:00.500  5555  5570 E AndroidRuntime: Process: com.example.app:sync, PID: 5555
05-02 14:32:00.500  5555  5570 E AndroidRuntime: kotlin.UninitializedPropertyAccessException: lateinit property api has not been initialized
05-02 14:32:00.500  5555  5570 E AndroidRuntime: \tat com.example.app.sync.Worker.run(Worker.kt:9)
05-02 14:33:10.000  6000  6000 F libc    : Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid 6000 (org.other.game), pid 6000 (org.other.game)
05-02 14:34:00.000   980  1002 E ActivityManager: ANR in com.example.app (com.example.app/.MainActivity)
05-02 14:34:00.000   980  1002 E ActivityManager: PID: 7001
05-02 14:34:00.000   980  1002 E ActivityManager: Reason: Input dispatching timed out (Waiting to send non-key event)
05-02 14:34:00.000   980  1002 E ActivityManager: Load: 1.5 / 1.2 / 0.9
"""  # noqa: E501 (log lines as devices print them)


def test_java_crash_with_interleaved_lines_and_a_root_cause() -> None:
    entries = parse_logcat(THREADTIME_CRASHES)
    crashes = find_crashes(entries, package="com.example.app")
    assert [c.pid for c in crashes] == [5555, 4321]  # newest first, ":sync" process included
    first = crashes[1]
    assert (first.kind, first.process, first.thread) == ("java", "com.example.app", "main")
    assert first.exception_type == "java.lang.RuntimeException"
    assert first.message.startswith("Unable to start activity ComponentInfo{")
    assert first.root_cause_type == "java.lang.IllegalStateException"
    assert first.root_cause_message == "no token"
    assert first.stack[-1] == "\t... 11 more"
    assert len(first.stack) == 6  # the ActivityManager line in between is not part of it
    assert (first.timestamp, first.buffer) == ("05-02 14:31:07.101", "crash")
    newest = crashes[0]
    assert newest.thread == "OkHttp Dispatcher"
    assert newest.exception_type == "kotlin.UninitializedPropertyAccessException"
    assert newest.root_cause_type == newest.exception_type  # no "Caused by:"


def test_native_crash_and_package_filter() -> None:
    entries = parse_logcat(THREADTIME_CRASHES)
    native = last_crash(entries)
    assert native is not None
    assert (native.kind, native.process, native.pid, native.exception_type) == (
        "native",
        "org.other.game",
        6000,
        "SIGSEGV",
    )
    assert last_crash(entries, package="org.other") is None  # a prefix is not the package
    assert len(find_crashes(entries)) == 3


def test_anr() -> None:
    anrs = find_anrs(parse_logcat(THREADTIME_CRASHES), package="com.example.app")
    assert len(anrs) == 1
    anr = anrs[0]
    assert (anr.process, anr.component, anr.pid) == (
        "com.example.app",
        "com.example.app/.MainActivity",
        7001,
    )
    assert anr.reason == "Input dispatching timed out (Waiting to send non-key event)"
    assert find_anrs(parse_logcat(THREADTIME_CRASHES), package="org.other.game") == []


def test_old_brief_crash_without_process_line_and_crlf() -> None:
    text = (
        "E/AndroidRuntime(  344): FATAL EXCEPTION: main\r\n"
        "E/AndroidRuntime(  344): java.lang.NullPointerException\r\n"
        "E/AndroidRuntime(  344): \tat com.example.Old.onClick(Old.java:7)\r\n"
    )
    crash = last_crash(parse_logcat(text))
    assert crash is not None
    assert (crash.process, crash.pid, crash.exception_type, crash.message) == (
        None,
        344,
        "java.lang.NullPointerException",
        "",
    )
    assert last_crash(parse_logcat(text), package="com.example") is None  # unknown process


def test_truncated_crash_block_without_an_exception_line_is_skipped() -> None:
    text = "05-02 14:31:07.101  1  1 E AndroidRuntime: FATAL EXCEPTION: main\n"
    assert find_crashes(parse_logcat(text)) == []
    assert find_crashes([]) == []


def test_real_samples_hold_no_crash() -> None:
    for name in ("threadtime_microg_device_excerpt.txt", "brief_format_android3.2_tf201_CRLF.txt"):
        entries = parse_logcat(device_output(f"logcat/{name}"))
        assert entries
        assert find_crashes(entries) == []
        assert find_anrs(entries) == []
