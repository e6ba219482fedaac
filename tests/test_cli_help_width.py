"""The command line's parser formats help at the width argparse itself would choose, without
importing shutil (tests/test_cli_startup.py): $COLUMNS, else the terminal, else 80."""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import struct
import termios

import pytest

from adbwire.cli import suggest
from adbwire.cli.suggest import SuggestingParser


def _both(parser_class: type[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = parser_class(prog="adbwire", description="Talk to Android devices. " * 6)
    parser.add_argument("-s", "--serial", metavar="SERIAL", help="device to use " * 8)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds " * 10)
    return parser


@pytest.mark.parametrize("columns", ["50", "123", "0", "-3", "wide", None])
def test_help_is_argparses_own_at_any_columns(
    columns: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    ours = _both(SuggestingParser)
    theirs = _both(argparse.ArgumentParser)
    assert ours._get_formatter()._width == theirs._get_formatter()._width
    assert ours.format_help() == theirs.format_help()


def test_a_terminals_width_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    leader, follower = pty.openpty()
    try:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 97, 0, 0))
        with open(follower, "w", closefd=False) as terminal:
            monkeypatch.setattr("sys.__stdout__", terminal)
            assert suggest.terminal_columns() == 97
            assert _both(SuggestingParser)._get_formatter()._width == 95
    finally:
        os.close(leader)
        os.close(follower)


def test_a_formatter_class_of_its_own_is_left_to_argparse() -> None:
    def narrow(prog: str) -> argparse.HelpFormatter:
        return argparse.RawTextHelpFormatter(prog, width=33)

    parser = SuggestingParser(prog="x", formatter_class=narrow)
    assert parser._get_formatter()._width == 33
