"""Quoting is checked against a real POSIX shell: whatever the string, it comes back as one
argument, and nothing in it runs."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from adbwire.errors import UsageError
from adbwire.wire.shell_quote import join, quote

NASTY = [
    "plain",
    "",
    "two words",
    "; reboot",
    "$(touch /tmp/adbwire-pwned)",
    "`touch /tmp/adbwire-pwned`",
    "it's",
    "\"double\" and 'single'",
    "line\nbreak",
    "back\\slash",
    "$HOME",
    "*",
    "a|b&&c||d>e<f",
    "-n",
    "ünïcödé ✓",
    "%s%%",
]

SH = shutil.which("sh")


@pytest.mark.skipif(SH is None, reason="no POSIX sh on this machine")
@pytest.mark.parametrize("argument", NASTY)
def test_a_posix_shell_reads_back_exactly_the_argument(argument: str) -> None:
    assert SH is not None
    script = "printf '%s\\0' " + quote(argument)
    output = subprocess.run([SH, "-c", script], capture_output=True, check=True).stdout
    assert output == argument.encode() + b"\0"


@pytest.mark.skipif(SH is None, reason="no POSIX sh on this machine")
def test_join_keeps_each_argument_separate() -> None:
    assert SH is not None
    script = "printf '%s\\0' " + join(NASTY[:8])
    output = subprocess.run([SH, "-c", script], capture_output=True, check=True).stdout
    assert output.split(b"\0")[:-1] == [a.encode() for a in NASTY[:8]]


def test_safe_words_are_left_readable() -> None:
    assert quote("com.example.app/.Main") == "com.example.app/.Main"
    assert join(["pm", "path", "com.x"]) == "pm path com.x"


def test_nul_is_refused() -> None:
    with pytest.raises(UsageError, match="NUL"):
        quote("a\0b")
