"""Pipelines in the simulated shell: stages run at once joined by bounded pipes, a writer
whose reader is gone ends (SIGPIPE's 141), and the last stage runs in the shell itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from adbwire.testing.userland import Userland
from adbwire.testing.userland.process import BrokenPipe, Pipe
from tests.simulator.userland_harness import make_userland, run


@pytest.fixture
def userland(tmp_path: Path) -> Userland:
    return make_userland(tmp_path)


@pytest.mark.parametrize(
    ("command", "out", "status"),
    [
        ("yes | head -1", "y\n", 0),
        ("yes | head -c 3", "y\ny", 0),
        ("yes abc | head -n 2 | tr a-z A-Z", "ABC\nABC\n", 0),
        ("seq 1 5 | tail -2", "4\n5\n", 0),
        ("printf 'b\\na\\n' | sort | head -1", "a\n", 0),
        ("echo hi | read v; echo got $v", "got hi\n", 0),
        ("true | false", "", 1),
        ("false | true", "", 0),
        ("! true | false", "", 0),
    ],
)
def test_pipelines(userland: Userland, command: str, out: str, status: int) -> None:
    result = run(userland, command)
    assert (result.out, result.status) == (out, status)


def test_the_first_stage_of_an_endless_pipeline_is_stopped_by_sigpipe(userland: Userland) -> None:
    """`yes` would write its megabyte cap; once `head` ended it stops at the first write."""
    result = run(userland, "yes | head -1 > /dev/null; echo after")
    assert (result.out, result.status) == ("after\n", 0)


def test_stages_run_at_once(userland: Userland) -> None:
    """`yes` runs while `head` reads, and gets SIGPIPE (141) when head is done; stages run one
    after another would let yes write its whole output and exit 0."""
    result = run(userland, "{ yes; echo yes: $? >&2; } | head -1")
    assert (result.out, result.err, result.status) == ("y\n", "yes: 141\n", 0)


def test_stdin_reaches_the_first_stage(userland: Userland) -> None:
    result = run(userland, "cat | wc -l", stdin=b"a\nb\nc\n")
    assert result.out.strip() == "3"


def test_a_pipe_is_bounded_and_breaks_once_its_reader_is_gone() -> None:
    pipe = Pipe(lambda: False)
    pipe.write(b"x" * Pipe.CAPACITY)
    assert pipe.read(10) == b"x" * 10
    pipe.close_read()
    with pytest.raises(BrokenPipe):
        pipe.write(b"more")


def test_a_full_pipe_gives_way_when_the_session_ends() -> None:
    ended = [False]
    pipe = Pipe(lambda: ended[0])
    pipe.write(b"x" * Pipe.CAPACITY)
    ended[0] = True
    with pytest.raises(BrokenPipe):
        pipe.write(b"y")


def test_a_closed_writer_is_end_of_file() -> None:
    pipe = Pipe(lambda: False)
    pipe.write(b"last")
    pipe.close_write()
    assert (pipe.read(), pipe.read()) == (b"last", b"")


def test_a_broken_pipe_is_not_caught_by_a_commands_own_error_handling() -> None:
    """Like the signal it stands for, it passes a command's `except Exception` (pm reports
    its own exceptions that way) and ends the command."""
    caught = []
    pipe = Pipe(lambda: False)
    pipe.close_read()
    with pytest.raises(BrokenPipe):
        try:
            pipe.write(b"x")
        except Exception as error:  # what a command's error report would catch
            caught.append(error)
    assert caught == []


def test_a_background_job_whose_builtin_hits_a_broken_pipe_ends_with_141(
    userland: Userland,
) -> None:
    script = "{ { while :; do set -o; done; } & wait $!; echo job $? >&2; } | head -1"
    result = run(userland, script)
    assert (result.out, result.err) == ("errexit         off\n", "job 141\n")
