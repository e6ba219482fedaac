"""Fuzz the shell parser shared by the simulated device and the run_shell guard with lines
made of shell tokens (here-documents, case, functions, [[ ]], ${…} operators included):
parsing either succeeds or raises ShellSyntaxError, and the guard always gives a verdict.
A random script also runs on the simulated device and ends, whatever it holds."""

from __future__ import annotations

import contextlib
import tempfile
import threading
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from adbwire.mcp.safety.shell_guard import Verdict, assess
from adbwire.shell_syntax import ShellSyntaxError, parse
from tests.fuzz.strategies import FUZZ
from tests.simulator.userland_harness import make_userland, run

PIECES = [
    *"ab $(){}[]'\"`\\;&|<>-=#%:+?/*!\n\t019",
    "<<", "<<-", "<<<", "EOF", "\nEOF\n", "case", "in", "esac", ";;", ";&", "f()",
    "function", "[[", "]]", "${", "$((", "))", "if", "then", "fi", "do", "done", "for",
    "&>", "${x//", "${x:", "${#", "local", "return", "break", "echo", "rm -rf /data",
]  # fmt: skip
LINES = st.lists(st.sampled_from(PIECES), min_size=1, max_size=30).map("".join)
SCRIPT_SECONDS = 10.0


@FUZZ
@given(LINES)
def test_a_line_parses_or_is_a_syntax_error_and_always_gets_a_verdict(line: str) -> None:
    with contextlib.suppress(ShellSyntaxError):
        parse(line)
    assert assess(line).verdict in Verdict


@FUZZ
@given(LINES)
def test_a_random_script_ends_on_the_simulated_device(line: str) -> None:
    # no loops (a random `while :` would rightly never end), nothing deleted
    script = line.replace("while", "").replace("until", "").replace("for", "")
    script = script.replace("rm -rf", "echo")
    ended = threading.Event()

    def go() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            run(make_userland(Path(tmp)), script)
        ended.set()

    worker = threading.Thread(target=go, daemon=True)
    worker.start()
    assert ended.wait(SCRIPT_SECONDS), f"the script did not end: {script!r}"
