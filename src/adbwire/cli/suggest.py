"""An argument parser that answers a mistyped command or choice with "did you mean ...?"."""

from __future__ import annotations

import argparse
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

    def _has_commands(self) -> bool:
        return any(isinstance(action, argparse._SubParsersAction) for action in self._actions)
