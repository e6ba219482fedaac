"""An argument parser that answers a mistyped command with "did you mean ...?"."""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from typing import NoReturn

_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)'")


class SuggestingParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        wrong = _INVALID_CHOICE.search(message)
        if wrong is not None:
            close = difflib.get_close_matches(wrong.group(1), self._command_names(), n=1)
            if close:
                self.print_usage(sys.stderr)
                self.exit(
                    2,
                    f"{self.prog}: error: unknown command '{wrong.group(1)}'; "
                    f"did you mean '{close[0]}'?\n",
                )
        super().error(message)

    def _command_names(self) -> list[str]:
        names: list[str] = []
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                names += list(action.choices)
        return names
