"""The `adbwire` command line: `main.py` parses and dispatches; one module per command.

Ctrl-C while the command line is still starting (importing its modules takes a moment)
exits 130 quietly, like Ctrl-C later on: a KeyboardInterrupt raised inside an import would
print a traceback. `main()` puts Python's usual handler back once it can catch it.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # no typing, types or threading: `adbwire --version` needs none (#20)
if TYPE_CHECKING:
    from types import FrameType

# The C module under `signal`: the Python one builds its enums (enum, functools, ...),
# which alone cost `adbwire --version` about a third of its time (#20).
_signal = sys.modules.get("signal") or __import__("_signal")


def _interrupted_while_starting(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(130)


if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    try:  # noqa: SIM105 - contextlib would cost more than the handler saves
        _signal.signal(_signal.SIGINT, _interrupted_while_starting)
    except ValueError:  # imported outside the main thread: Python's handler stays
        pass
