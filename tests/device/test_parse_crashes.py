"""Crash and ANR extraction from logcat entries.

The two general logcat samples hold no crash, which is itself checked; two real native
crashes (tests/data/device_outputs/logcat/tombstone_*) are; the Java/ANR blocks below are
written by hand in the exact shape AndroidRuntime, libc and ActivityManager print.
"""

from __future__ import annotations

import time

from adbwire.device.parsers.crash_stack import MAX_FRAMES, MAX_LINE_CHARS, MAX_STACK_LINES
from adbwire.device.parsers.crashes import (
    Crash,
    crash_history,
    find_anrs,
    find_crashes,
    last_crash,
    package_pids,
)
from adbwire.device.parsers.logcat import LogEntry, parse_logcat
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


TILAPIA = "logcat/tombstone_brief_tilapia_android5.1_frida.txt"


def test_real_native_crash_joins_libc_line_and_tombstone() -> None:
    """Android 5.1 (`-v brief`): libc names the crashing thread only; debuggerd's lines
    carry its own pid (119), and an ActivityManager line falls between the frames."""
    entries = parse_logcat(device_output(TILAPIA))
    (crash,) = crash_history(entries)
    assert isinstance(crash, Crash)
    assert (crash.kind, crash.pid, crash.exception_type) == ("native", 5061, "SIGSEGV")
    assert (crash.process, crash.thread) == ("com.XXXXX.xxx", "Thread-329")
    assert crash.root_cause_message == "SEGV_MAPERR, fault addr 0x30"
    assert [frame.split()[0] for frame in crash.stack] == ["#00", "#01", "#02"]
    assert crash.stack[0].endswith("/system/lib/libart.so")  # a frame without a symbol
    assert "artQuickGenericJniTrampoline+34" in crash.stack[1]
    assert last_crash(entries, package="com.XXXXX.xxx") == crash
    assert last_crash(entries, package="Thread-329") is None  # a thread is not a package


def test_real_tombstone_without_a_libc_line() -> None:
    """The same tombstone when the log no longer holds libc's line (a ring buffer, or a
    dump of the crash buffer taken later)."""
    entries = [e for e in parse_logcat(device_output(TILAPIA)) if e.tag != "libc"]
    (crash,) = find_crashes(entries)
    assert (crash.kind, crash.pid, crash.process, crash.thread) == (
        "native",
        5061,
        "com.XXXXX.xxx",
        "Thread-329",
    )
    assert len(crash.stack) == 3
    assert crash_history(entries, package="Thread-329") == []


def test_real_java_crash_on_a_background_thread() -> None:
    """A real threadtime Java crash (Simple Clock, a minified app) with the DropBox line
    that follows it: the process comes from the Process: line, frames stop at the crash."""
    entries = parse_logcat(device_output("logcat/java_crash_threadtime_simple_clock.txt"))
    (crash,) = crash_history(entries)
    assert isinstance(crash, Crash)
    assert (crash.kind, crash.pid, crash.thread) == ("java", 14701, "Thread-2")
    assert crash.process == "com.simplemobiletools.clock"
    assert crash.timestamp == "01-22 08:23:45.054"
    assert crash.root_cause_type == "java.lang.NullPointerException"
    assert crash.root_cause_message.endswith("method c4.l.e, parameter timer")
    frames = [line.strip() for line in crash.stack if line.lstrip().startswith("at ")]
    assert len(frames) == 8 and frames[-1] == "at java.lang.Thread.run(Thread.java:920)"
    assert not any("DropBox" in line for line in crash.stack)
    assert last_crash(entries, package="com.simplemobiletools.clock") == crash


def test_libc_names_the_process_by_its_last_15_characters() -> None:
    """Android 10+ libc lines name the process as the kernel keeps it (15 characters, the
    start cut off); with no tombstone left, the package filter still finds the crash by
    that cut name, and only by a name it could be cut from. Hand-written, in that format."""
    line = (
        "09-29 00:19:42.786 29478 29502 F libc    : Fatal signal 11 (SIGSEGV), code 1 "
        "(SEGV_MAPERR), fault addr 0x0 in tid 29502 (xample.notes.db), pid 29478 "
        "(xample.notes.db)\n"
    )
    entries = parse_logcat(line)
    assert last_crash(entries, package="com.example.notes.db") is not None
    assert last_crash(entries, package="example.notes.db") is not None
    assert last_crash(entries, package="com.example.notes") is None


def test_history_orders_java_native_and_anr_newest_first() -> None:
    entries = parse_logcat(THREADTIME_CRASHES)
    kinds = [(event.kind, event.pid) for event in crash_history(entries)]
    assert kinds == [("anr", 7001), ("native", 6000), ("java", 5555), ("java", 4321)]
    assert [e.kind for e in crash_history(entries, "com.example.app")] == ["anr", "java", "java"]


def test_pids_of_a_dead_app_from_the_log() -> None:
    text = (
        "05-02 10:00:00.000   588   610 I ActivityManager: Start proc 4123:com.example.app/u0a190"
        " for next-top-activity {com.example.app/com.example.app.Main}\n"
        "05-02 10:00:01.000   588   610 I ActivityManager: Process com.example.app:sync (pid 4200)"
        " has died: fg  TOP\n"
        "05-02 10:00:02.000   588   610 I ActivityManager: Start proc 4300:com.example.apple/u0a191"
        " for service\n"
    )
    entries = parse_logcat(text + THREADTIME_CRASHES)
    assert package_pids(entries, "com.example.app") == {4123, 4200, 4321, 5555, 7001}


def _entry(pid: int, tag: str, message: str, level: str = "E") -> LogEntry:
    return LogEntry("05-02 14:31:07.101", pid, pid, level, tag, message, "crash")


MEGABYTE = 1 << 20


def test_a_hostile_java_crash_keeps_bounded_lines_and_says_what_it_cut() -> None:
    """Lines of megabytes and a stack of thousands of lines (a log is the device's): each
    line is cut at MAX_LINE_CHARS with a mark counting the rest, the stack at
    MAX_STACK_LINES, and the lines left out are counted."""
    huge_frame = "\tat a.B.c(" + "x" * MEGABYTE + ")"
    frames = [huge_frame] + [f"\tat a.B.m{n}(B.java:{n})" for n in range(2000)]
    entries = [
        _entry(4321, "AndroidRuntime", "FATAL EXCEPTION: main"),
        _entry(4321, "AndroidRuntime", "Process: com.example.app, PID: 4321"),
        _entry(4321, "AndroidRuntime", "java.lang.IllegalStateException: " + "m" * MEGABYTE),
        *(_entry(4321, "AndroidRuntime", frame) for frame in frames),
    ]
    (crash,) = find_crashes(entries)
    assert crash.exception_type == "java.lang.IllegalStateException"
    cut = MEGABYTE - MAX_LINE_CHARS
    assert crash.message == "m" * MAX_LINE_CHARS + f" [... {cut} more chars cut]"
    assert crash.root_cause_message == crash.message
    assert len(crash.stack) == MAX_STACK_LINES
    assert crash.lines_cut == 1 + len(frames) - MAX_STACK_LINES  # the exception line is one
    assert crash.stack[1] == huge_frame[:MAX_LINE_CHARS] + (
        f" [... {len(huge_frame) - MAX_LINE_CHARS} more chars cut]"
    )
    assert crash.stack[2] == "\tat a.B.m0(B.java:0)"  # real lines are kept whole
    assert max(map(len, crash.stack)) < MAX_LINE_CHARS + 40


def test_a_hostile_tombstone_keeps_bounded_frames_and_says_what_it_cut() -> None:
    frames = [f"#{n:02d} pc {n:016x}  /system/lib64/libc.so (f{n}+4)" for n in range(100)]
    frames[1] = "#01 pc 0000000000001000  /data/app/lib" + "y" * MEGABYTE + ".so"
    lines = [
        "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***",
        "pid: 29478, tid: 29502, name: " + "t" * MEGABYTE + "  >>> com.example.notes <<<",
        "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0",
        "Abort message: '" + "a" * MEGABYTE + "'",
        "backtrace:",
        *("      " + frame for frame in frames),
    ]
    (crash,) = find_crashes([_entry(30000, "DEBUG", line, "F") for line in lines])
    assert (crash.kind, crash.pid, crash.process) == ("native", 29478, "com.example.notes")
    assert len(crash.stack) == MAX_FRAMES and crash.lines_cut == len(frames) - MAX_FRAMES
    assert crash.stack[0] == frames[0]
    assert crash.stack[1].endswith(f" [... {len(frames[1]) - MAX_LINE_CHARS} more chars cut]")
    assert crash.thread is not None and crash.thread.endswith(" more chars cut]")
    assert crash.root_cause_message.startswith("SEGV_MAPERR, fault addr 0x0: aaa")
    assert len(crash.root_cause_message) < MAX_LINE_CHARS + 80


def test_hostile_signal_lines_keep_every_field_of_the_crash_bounded() -> None:
    """The signal's name, its code and the fault address were kept whole: a tombstone's
    signal line of megabytes made a message of megabytes."""
    huge_name = "SIG" + "X" * MEGABYTE
    tombstone = [
        "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***",
        "pid: 29478, tid: 29502, name: t  >>> com.example.notes <<<",
        f"signal 11 ({huge_name}), code {'c' * MEGABYTE}, fault addr 0x{'f' * MEGABYTE}",
        "backtrace:",
        "      #00 pc 0000000000001000  /system/lib64/libc.so (abort+4)",
    ]
    entries = [
        _entry(6000, "libc", f"Fatal signal 6 ({huge_name}), pid 6000 (com.example.a)", "F"),
        *(_entry(30000, "DEBUG", line, "F") for line in tombstone),
    ]
    crashes = find_crashes(entries)
    assert [crash.pid for crash in crashes] == [29478, 6000]
    for crash in crashes:
        assert crash.exception_type.startswith("SIGXXX")
        assert crash.exception_type.endswith(" more chars cut]")
        assert len(crash.exception_type) < MAX_LINE_CHARS + 40
        for text in (crash.message, crash.root_cause_message):  # code, address, reason
            assert len(text) < 3 * (MAX_LINE_CHARS + 40)


def test_crash_lines_built_to_make_a_parser_backtrack_are_read_in_linear_time() -> None:
    """libc's Fatal signal line and the tombstone's pid line were each read with one regular
    expression of lazy fields: a 60 KB line of repeated ", pid 1 (a" or " >>> a" took 16-20 s
    (quadratic). The bound is loose on purpose: 2 MB lines of each shape."""
    repeats = 300_000
    hostile = [
        _entry(6000, "libc", "Fatal signal 11 (SIGSEGV)" + ", pid 1 (a" * repeats, "F"),
        _entry(6000, "libc", "Fatal signal 11 (SIGSEGV)" + " in tid 1 (a" * repeats, "F"),
        _entry(7000, "DEBUG", "pid: 1, tid: 1, name: " + " >>> a" * repeats, "F"),
        _entry(7000, "DEBUG", "pid: 1, tid: 1, name: " + " " * 6 * repeats + "x", "F"),
    ]
    started = time.monotonic()
    assert find_crashes(hostile) == []
    assert time.monotonic() - started < 10.0


def test_many_libc_lines_and_tombstones_of_other_pids_are_joined_in_linear_time() -> None:
    """Each tombstone looked for its libc line through every crash before it: a log of 15 000
    libc lines and 15 000 tombstones of other pids took minutes (quadratic)."""
    count = 15_000
    libc = "Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), pid 1 (a)"
    entries = [_entry(1, "libc", libc, "F") for _ in range(count)]
    entries += [
        _entry(2 + n, "DEBUG", f"pid: {7 + n}, tid: 7, name: t  >>> p <<<", "F")
        for n in range(count)
    ]
    started = time.monotonic()
    crashes = find_crashes(entries)
    assert time.monotonic() - started < 10.0
    assert len(crashes) == 2 * count
    assert crashes[0].pid == 7 + count - 1 and crashes[-1].pid == 1


def test_libc_and_pid_lines_read_as_before() -> None:
    """The linear readers name what the regular expressions they replace named."""
    native = (
        "Fatal signal 6 (SIGABRT), code -1 (SI_QUEUE) in tid 14567 (RenderThread), "
        "pid 14520 (com.example.app)"
    )
    (crash,) = find_crashes([_entry(14520, "libc", native, "F")])
    assert (crash.pid, crash.process, crash.thread) == (14520, "com.example.app", "RenderThread")
    older = "Fatal signal 11 (SIGSEGV) at 0x00000030 (code=1), thread 5061 (Thread-329)"
    assert find_crashes([_entry(5061, "libc", older, "F")]) == []  # names no pid: no crash
    pid_lines = [
        (
            "pid: 876, tid: 876  >>> /system/bin/mediaserver <<<",
            (876, None, "/system/bin/mediaserver"),
        ),
        (
            "pid: 9, tid: 10, name: Binder:9_2  >>> system_server <<<",
            (9, "Binder:9_2", "system_server"),
        ),
        ("pid: 9, tid: 10, name: a >>>b  >>> c <<<", (9, "a >>>b", "c")),
        ("pid: 9, tid: 10, name: >>> c <<<", None),  # no blank between the name and >>>
        ("pid: 9, tid: 10 >>> c", None),
    ]
    for line, expected in pid_lines:
        found = find_crashes([_entry(1, "DEBUG", line, "F")])
        got = (found[0].pid, found[0].thread, found[0].process) if found else None
        assert got == expected, line
