"""One process table for every session: ps, pidof, kill, $$, traps, SIGHUP and /proc."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from adbwire.testing.userland import BufferIO, Userland
from tests.simulator.userland_harness import make_userland, run

TMP = "/data/local/tmp"
WAIT = 10.0


@pytest.fixture
def userland(tmp_path: Path) -> Userland:
    return make_userland(tmp_path / "device")


class Session:
    """A command line running in its own thread, as a second `adb shell` would."""

    def __init__(self, userland: Userland, command: str) -> None:
        self.io = BufferIO()
        self.status: int | None = None
        self._thread = threading.Thread(target=self._run, args=(userland, command), daemon=True)
        self._thread.start()

    def _run(self, userland: Userland, command: str) -> None:
        self.status = userland.run(command, self.io)

    def join(self) -> int | None:
        self._thread.join(WAIT)
        assert not self._thread.is_alive(), "session did not end"
        return self.status


@pytest.fixture
def sessions() -> Iterator[list[Session]]:
    started: list[Session] = []
    yield started
    for session in started:
        session.io.cancel()
        session.join()


def wait_for_pid(userland: Userland, name: str) -> int:
    """Poll the table (the userland has no event for "a command started"), bounded."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        found = run(userland, f"pidof {name}").out.split()
        if found:
            return int(found[0])
        time.sleep(0.01)
    raise AssertionError(f"{name} never appeared")


def test_dollar_dollar_is_the_shell_in_ps(userland: Userland) -> None:
    result = run(userland, "echo $$; ps $$; ps -p $$ -o PID,PPID,NAME")
    pid, header, row, small_header, small_row = result.out.splitlines()
    assert header.split() == ["USER", "PID", "PPID", "VSZ", "RSS", "WCHAN", "ADDR", "S", "NAME"]
    assert row.split()[:2] == ["shell", pid] and row.endswith(" sh")
    adbd = run(userland, "pidof adbd").out.strip()
    assert small_header.split() == ["PID", "PPID", "NAME"]
    assert small_row.split() == [pid, adbd, "sh"]


def test_plain_ps_shows_the_session_with_itself_running(userland: Userland) -> None:
    lines = run(userland, "ps").out.splitlines()[1:]
    names = [(line.split()[-1], line.split()[-2]) for line in lines]
    assert names == [("sh", "S"), ("ps", "R")]


def test_ps_of_a_missing_pid_prints_the_header_and_fails(userland: Userland) -> None:
    result = run(userland, "ps -p 99999")
    assert result.status == 1
    assert result.out.startswith("USER") and len(result.out.splitlines()) == 1


def test_a_command_of_another_session_is_in_ps_A_and_pidof(
    userland: Userland, sessions: list[Session]
) -> None:
    sessions.append(Session(userland, "sleep 30"))
    pid = wait_for_pid(userland, "sleep")
    listing = run(userland, "ps -A").out
    row = next(line for line in listing.splitlines() if line.endswith(" sleep"))
    user, pid_text, ppid = row.split()[:3]
    assert (user, int(pid_text)) == ("shell", pid)
    assert int(ppid) in [int(p) for p in run(userland, "pidof sh").out.split()]
    assert run(userland, f"cat /proc/{pid}/cmdline").raw == b"sleep\x0030\x00"


def test_kill_from_another_session_ends_the_command_with_143(
    userland: Userland, sessions: list[Session]
) -> None:
    session = Session(userland, "sleep 30; echo status=$?")
    sessions.append(session)
    pid = wait_for_pid(userland, "sleep")
    assert run(userland, f"kill {pid}").status == 0
    assert session.join() == 0
    assert bytes(session.io.stdout) == b"status=143\n"
    assert run(userland, "pidof sleep").status == 1
    assert run(userland, f"[ -d /proc/{pid} ] || echo gone").out == "gone\n"


def test_kill_9_by_the_builtin_and_by_toybox(userland: Userland, sessions: list[Session]) -> None:
    first = Session(userland, "sleep 30")
    sessions.append(first)
    pid = wait_for_pid(userland, "sleep")
    assert run(userland, f"toybox kill -9 {pid}").status == 0
    assert first.join() == 137


def test_kill_errors_read_as_mksh(userland: Userland) -> None:
    missing = run(userland, "kill 99999")
    assert (missing.status, missing.err) == (1, "/system/bin/sh: kill: 99999: No such process\n")
    init = run(userland, "kill 1")
    assert (init.status, init.err) == (1, "/system/bin/sh: kill: 1: Operation not permitted\n")
    bad = run(userland, "kill -FOO 1")
    assert (bad.status, bad.err) == (1, "/system/bin/sh: kill: FOO: unknown signal\n")
    assert run(userland, "kill -l 9; kill -l KILL").out == "KILL\n9\n"
    assert run(userland, "kill -0 $$ && echo alive").out == "alive\n"


def test_killing_an_app_process_as_root_stops_the_app(userland: Userland) -> None:
    userland.on_root_changed(True)
    pid = userland.device.state.system_server_pid
    apps = [p for p in userland.device.state.processes.values() if p.package]
    assert apps, "the default scenario runs at least one app"
    app = apps[0]
    assert run(userland, f"kill -9 {app.pid}").status == 0
    assert run(userland, f"pidof {app.name}").status == 1
    assert run(userland, f"kill -9 {pid} && pidof system_server").out == f"{pid}\n"


def test_trap_runs_on_the_signal_and_the_shell_goes_on(userland: Userland) -> None:
    result = run(userland, "trap 'echo got TERM' TERM; kill $$; echo after")
    assert (result.status, result.out) == (0, "got TERM\nafter\n")


def test_untrapped_signal_ends_the_shell(userland: Userland) -> None:
    result = run(userland, "sh -c 'kill $$; echo not reached'; echo status=$?")
    assert result.out == "status=143\n"


def test_trap_exit_listing_and_reset(userland: Userland) -> None:
    result = run(
        userland, "trap 'echo bye' EXIT; trap 'echo x' HUP; trap; trap - HUP; trap; echo body"
    )
    assert result.out == (
        "trap -- 'echo bye' EXIT\ntrap -- 'echo x' HUP\ntrap -- 'echo bye' EXIT\nbody\nbye\n"
    )
    bad = run(userland, "trap 'x' NOPE")
    assert (bad.status, bad.err) == (1, "/system/bin/sh: trap: bad signal 'NOPE'\n")


def test_closing_the_stream_sends_sighup_to_the_shell(
    userland: Userland, sessions: list[Session]
) -> None:
    command = f"trap 'echo hup > {TMP}/hup' HUP; trap 'echo exit > {TMP}/exit' EXIT; sleep 30"
    session = Session(userland, command)
    sessions.append(session)
    wait_for_pid(userland, "sleep")
    session.io.cancel()
    session.join()
    files = userland.device.files
    assert files.read_bytes(f"{TMP}/hup") == b"hup\n"
    assert files.read_bytes(f"{TMP}/exit") == b"exit\n"
    assert run(userland, "pidof sleep").status == 1


def test_sessions_leave_the_table_when_they_end(userland: Userland) -> None:
    for _ in range(3):
        run(userland, "sleep 0")
    pid, *rest = run(userland, "echo $$; pidof sh; pidof sleep; echo end").out.split()
    assert rest == [pid, "end"]  # only the asking shell; no earlier shell or sleep is left


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("cd", "cd is a shell builtin"),
        ("kill", "kill is a shell builtin"),
        ("trap", "trap is a special shell builtin"),
        ("if", "if is a reserved word"),
        ("ls", "ls is a tracked alias for /system/bin/ls"),
        ("md5sum", "md5sum is a tracked alias for /system/bin/md5sum"),
    ],
)
def test_type(userland: Userland, name: str, expected: str) -> None:
    assert run(userland, f"type {name}").out == expected + "\n"


def test_type_of_an_unknown_name(userland: Userland) -> None:
    result = run(userland, "type nope")
    assert (result.status, result.err) == (1, "nope not found\n")


# -- /proc -------------------------------------------------------------------------------------
def test_proc_uptime_follows_the_clock(userland: Userland) -> None:
    text = run(userland, "cat /proc/uptime").out
    match = re.fullmatch(r"(\d+\.\d\d) (\d+\.\d\d)\n", text)
    assert match is not None, text
    expected = userland.device.state.clock.uptime()
    assert abs(float(match.group(1)) - expected) < 5


def test_proc_meminfo_and_cpuinfo(userland: Userland) -> None:
    assert re.fullmatch(r"MemTotal: +\d+ kB\n", run(userland, "head -1 /proc/meminfo").out)
    assert run(userland, "grep -c ^processor /proc/cpuinfo").out == "4\n"
    assert run(userland, "awk '/MemAvailable/ {print $3}' /proc/meminfo").out == "kB\n"


def test_proc_self_is_the_reading_process(userland: Userland) -> None:
    result = run(userland, "echo $$; cat /proc/self/stat; cat /proc/self/cmdline")
    shell_pid, stat, cmdline = result.out.split("\n", 2)
    fields = stat.split()
    assert fields[1:4] == ["(cat)", "R", shell_pid]
    assert len(fields) == 52
    assert cmdline == "cat\x00/proc/self/cmdline\x00"


def test_proc_pid_status_of_the_shell(userland: Userland) -> None:
    result = run(userland, "grep -E '^(Name|State|Pid|PPid|Uid):' /proc/$$/status; echo $$")
    *lines, pid = result.out.splitlines()
    adbd = run(userland, "pidof adbd").out.strip()
    assert lines == [
        "Name:\tsh",
        "State:\tS (sleeping)",
        f"Pid:\t{pid}",
        f"PPid:\t{adbd}",
        "Uid:\t2000\t2000\t2000\t2000",
    ]


def test_proc_lists_the_process_table(userland: Userland) -> None:
    names = run(userland, "ls /proc").out.split()
    assert {"1", "uptime", "meminfo", "self"} <= set(names)
    assert run(userland, "ls /proc/1").out.split() == ["cmdline", "comm", "stat", "status"]
    missing = run(userland, "cat /proc/99999/status")
    assert (missing.status, missing.err) == (
        1,
        "cat: /proc/99999/status: No such file or directory\n",
    )


# -- background jobs ---------------------------------------------------------------------------
def test_background_job_pid_is_dollar_bang_and_wait_gives_its_status(userland: Userland) -> None:
    result = run(userland, "echo [$!]; (exit 3) & job=$!; wait $job; echo status=$? job=$job")
    first, second = result.out.splitlines()
    assert first == "[]"
    status, job = second.split()
    assert status == "status=3"
    assert int(job.split("=")[1]) > 0


def test_kill_dollar_bang_ends_the_job(userland: Userland) -> None:
    result = run(userland, "sleep 30 & kill $!; wait $!; echo $?; pidof sleep || echo none")
    assert result.out == "143\nnone\n"


def test_a_running_job_is_in_ps_and_the_session_waits_for_it(userland: Userland) -> None:
    command = (
        "sleep 30 & job=$!; "
        "i=0; while ! pidof sleep >/dev/null && [ $i -lt 100000 ]; do i=$((i+1)); done; "
        "ps -o PID,PPID,NAME | grep sleep | { read pid ppid name; [ $ppid = $job ] && echo ok; }; "
        "kill $job; (sleep 0.1; echo late) & echo early"
    )
    result = run(userland, command)
    assert result.out == "ok\nearly\nlate\n"


def test_a_job_reads_dev_null_not_the_sessions_stdin(userland: Userland) -> None:
    assert run(userland, "cat & wait; cat", stdin=b"for the foreground\n").out == (
        "for the foreground\n"
    )


def test_wait_for_an_unknown_pid_is_127(userland: Userland) -> None:
    assert run(userland, "wait 99999; echo $?").out == "127\n"


# -- ^C on a terminal --------------------------------------------------------------------------
class TerminalIO:
    """A pty stream's ProcessIO whose input arrives when the test sends it."""

    def __init__(self) -> None:
        self.stdout = bytearray()
        self._input: list[bytes] = []
        self._cond = threading.Condition()
        self._closed = threading.Event()

    def send(self, data: bytes) -> None:
        with self._cond:
            self._input.append(data)
            self._cond.notify_all()

    def read_stdin(self, max_bytes: int = 65536) -> bytes:
        with self._cond:
            while not self._input and not self._closed.is_set():
                self._cond.wait(0.05)
            return self._input.pop(0) if self._input else b""

    def write_stdout(self, data: bytes) -> None:
        self.stdout += data

    write_stderr = write_stdout

    @property
    def cancelled(self) -> bool:
        return self._closed.is_set()

    def close(self) -> None:
        self._closed.set()


def _run_on_terminal(
    userland: Userland, command: str
) -> tuple[TerminalIO, threading.Thread, list[int]]:
    io = TerminalIO()
    statuses: list[int] = []
    worker = threading.Thread(
        target=lambda: statuses.append(userland.run(command, io, pty=True)), daemon=True
    )
    worker.start()
    return io, worker, statuses


def test_ctrl_c_on_a_terminal_interrupts_the_command_and_the_shell(userland: Userland) -> None:
    io, worker, statuses = _run_on_terminal(userland, "sleep 30; echo after")
    try:
        wait_for_pid(userland, "sleep")
        io.send(b"\x03")
        worker.join(WAIT)
        assert not worker.is_alive()
        assert statuses == [130]
        assert bytes(io.stdout) == b""
    finally:
        io.close()


def test_ctrl_c_runs_the_int_trap_and_the_script_goes_on(userland: Userland) -> None:
    io, worker, statuses = _run_on_terminal(userland, "trap 'echo int' INT; sleep 30; echo $?")
    try:
        wait_for_pid(userland, "sleep")
        io.send(b"\x03")
        worker.join(WAIT)
        assert statuses == [0]
        assert bytes(io.stdout) == b"int\n130\n"
    finally:
        io.close()


def test_ctrl_c_without_a_terminal_is_just_a_byte(userland: Userland) -> None:
    assert run(userland, "wc -c", stdin=b"a\x03b").out == "3\n"


def test_ctrl_c_reaches_every_stage_of_a_pipeline(userland: Userland) -> None:
    """The foreground is every stage: with INT trapped the shell goes on, and a `sleep` in
    the first stage is interrupted too (not only the last stage's `cat`)."""
    io, worker, statuses = _run_on_terminal(
        userland, "trap 'echo int' INT; sleep 300 | cat; echo $?"
    )
    try:
        wait_for_pid(userland, "sleep")
        wait_for_pid(userland, "cat")
        io.send(b"\x03")
        worker.join(WAIT)
        assert not worker.is_alive(), "the sleep of the first stage kept the pipeline up"
        assert statuses == [0]
        assert bytes(io.stdout) == b"int\n130\n"
    finally:
        io.close()
