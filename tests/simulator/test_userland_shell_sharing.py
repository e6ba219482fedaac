"""What each new shell session shares with the others to stay cheap (issue #20's echo cost):
parsed command lines, the exported environment's attributes and the default limits are
built once, and a session that changes them changes only its own; `echo`, `true` and
`false` run inside the shell, as mksh's built-ins, with no process of their own."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from adbwire.shell_syntax.parser import parse_lines
from adbwire.testing.userland import BufferIO, Userland
from adbwire.testing.userland.process import BrokenPipe
from adbwire.testing.userland.proctable import ProcessTable
from adbwire.testing.userland.shell import source
from tests.simulator.userland_harness import make_userland, run

_unique = itertools.count()


@pytest.fixture
def userland(tmp_path: Path) -> Userland:
    return make_userland(tmp_path)


def _counting_parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = parse_lines

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(source, "parse_lines", counted)
    return calls


def test_a_command_line_is_parsed_once_for_every_new_session(
    userland: Userland, monkeypatch: pytest.MonkeyPatch
) -> None:
    parses = _counting_parses(monkeypatch)
    line = f"echo cached-{next(_unique)}"
    for _ in range(3):  # one session per stream, as adbd's shell service runs them
        assert run(userland, line).out == line[5:] + "\n"
    assert len(parses) == 1


def test_lines_parsed_with_other_aliases_are_not_those_of_mksh_s_own(
    userland: Userland,
) -> None:
    word = f"say{next(_unique)}"
    defined = run(userland, f"alias {word}=echo; eval '{word} hi'")
    assert (defined.out, defined.status) == ("hi\n", 0)
    plain = run(userland, f"eval '{word} hi'")  # the same text, mksh's own aliases only
    assert (plain.out, plain.status) == ("", 127)
    assert plain.err == f"/system/bin/sh: {word}: inaccessible or not found\n"
    again = run(userland, f"alias {word}=echo; eval '{word} hi'")
    assert (again.out, again.status) == ("hi\n", 0)


def test_a_session_that_unexports_a_name_leaves_the_next_session_s_alone(
    userland: Userland,
) -> None:
    changed = run(userland, "typeset +x PATH; export; typeset -r HOME; readonly")
    assert "PATH\n" not in changed.out
    assert changed.out.endswith("HOME\n")
    fresh = run(userland, "export; readonly; typeset -p HOME")
    assert "PATH\n" in fresh.out
    assert fresh.out.endswith("TMPDIR\nUSER\ntypeset -x HOME=/\n")


def test_ulimit_changes_only_its_own_shell(userland: Userland) -> None:
    changed = run(userland, "(ulimit -n 100; ulimit -n); ulimit -n; ulimit -n 200; ulimit -n")
    assert changed.out == "100\n32768\n200\n"
    assert run(userland, "ulimit -n; ulimit -Hn").out == "32768\n32768\n"


def test_echo_true_and_false_run_in_the_shell_as_mksh_builtins(
    userland: Userland, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawned: list[str] = []
    real = ProcessTable.spawn

    def counted(self: ProcessTable, argv: list[str], **kwargs: Any) -> Any:
        spawned.append(argv[0])
        return real(self, argv, **kwargs)

    monkeypatch.setattr(ProcessTable, "spawn", counted)
    script = (
        "echo -n a; echo -e 'b\\tc'; echo 'd\\ce'; true; echo $?; false; echo $?\n"
        "builtin echo f; command echo g; /system/bin/echo h; /system/bin/true; echo $?"
    )
    result = run(userland, script)
    assert (result.out, result.err, result.status) == ("ab\tc\nd0\n1\nf\ng\nh\n0\n", "", 0)
    assert spawned == ["/system/bin/sh", "/system/bin/echo", "/system/bin/true"]


class _ReaderGone(BufferIO):
    """Standard output is a pipe whose reader already left."""

    def write_stdout(self, data: bytes) -> None:
        raise BrokenPipe("the reading end of the pipe is closed")


def test_echo_into_a_pipe_nobody_reads_has_sigpipe_s_status(userland: Userland) -> None:
    io = _ReaderGone()
    assert userland.run("echo a; echo $? >&2; true; echo $? >&2", io) == 0
    assert bytes(io.stderr) == b"141\n0\n"
