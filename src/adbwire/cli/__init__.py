"""The `adbwire` command line: `main.py` parses and dispatches; one module per command.

Ctrl-C while the command line is still starting (importing its modules takes a moment)
exits 130 quietly, like Ctrl-C later on: a KeyboardInterrupt raised inside an import would
print a traceback. `main()` puts Python's usual handler back once it can catch it.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType


def _interrupted_while_starting(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(130)


if threading.current_thread() is threading.main_thread() and (
    signal.getsignal(signal.SIGINT) is signal.default_int_handler
):
    signal.signal(signal.SIGINT, _interrupted_while_starting)
