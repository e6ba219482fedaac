"""Signals sent to a shell and its traps: a trapped signal runs its action after the
current command, an ignored one ('') does nothing, any other ends the shell with 128+N;
the EXIT trap and SIGHUP's run as the session ends."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from adbwire.testing.userland.process import Streams
from adbwire.testing.userland.shell.builtins import ExitShell

if TYPE_CHECKING:
    from adbwire.testing.userland.shell.interp import Shell

__all__ = ["handle_signals", "run_trap"]


def run_trap(shell: Shell, signal: int, streams: Streams) -> None:
    """Run the trap set for `signal` (0: EXIT) even though the session is ending."""
    action = shell.traps.pop(signal, "")
    if not action:
        return
    runner = shell.subshell()
    runner.outer_cancelled = lambda: False
    runner.process = None
    runner.traps = {}
    with contextlib.suppress(ExitShell):
        runner.run_source(action, streams)


def handle_signals(shell: Shell, streams: Streams) -> None:
    """Act on a signal sent to this shell: run its trap, ignore it, or exit 128+N."""
    process = shell.process
    if process is None or not process.pending_signal:
        return
    signal, process.pending_signal = process.pending_signal, 0
    action = shell.traps.get(signal)
    if action is None:
        raise ExitShell(128 + signal)
    if action:
        saved = shell.last_status
        shell.run_source(action, streams)
        shell.last_status = saved
