"""An argument parser that answers a mistyped command or choice with "did you mean ...?"."""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import NoReturn

_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")
_QUOTED = re.compile(r"'([^']*)'")


class SuggestingParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        wrong = _INVALID_CHOICE.search(message)
        if wrong is not None:
            typed, choices = wrong.group(1), _QUOTED.findall(wrong.group(2))
            import difflib  # noqa: PLC0415 - only for a mistake

            close = difflib.get_close_matches(typed, choices, n=1)
            if close:
                what = "command" if self._has_commands() else "choice"
                self.print_usage(sys.stderr)
                self.exit(
                    2,
                    f"{self.prog}: error: unknown {what} '{typed}'; did you mean '{close[0]}'?\n",
                )
        super().error(message)

    def _get_formatter(self) -> argparse.HelpFormatter:
        """argparse's, with the width it would compute: argparse asks shutil, whose import
        (zlib, bz2, lzma, fnmatch) every command paid, since each add_argument makes a
        formatter to check its metavar (#20)."""
        kind = self.formatter_class
        if isinstance(kind, type) and issubclass(kind, argparse.HelpFormatter):
            return kind(prog=self.prog, width=terminal_columns() - 2)
        return super()._get_formatter()

    def _has_commands(self) -> bool:
        return any(isinstance(action, argparse._SubParsersAction) for action in self._actions)


def terminal_columns() -> int:
    """`shutil.get_terminal_size().columns`: $COLUMNS when positive, else the terminal's
    width, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    stdout = sys.__stdout__
    if stdout is None:
        return 80
    try:
        return os.get_terminal_size(stdout.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80
