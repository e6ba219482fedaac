"""Pipelines: every stage at once, joined by bounded pipes (`process.Pipe`).

Each stage but the last runs in a subshell thread; the last runs in the shell itself, as in
mksh (`echo x | read v` sets v). A stage whose reader is gone ends with SIGPIPE's status,
so `yes | head -1` ends; the pipeline's status is the last stage's, once every stage ended.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from adbwire.shell_syntax.parser import Command
from adbwire.testing.userland.process import SIGPIPE_STATUS, BrokenPipe, Pipe, Streams
from adbwire.testing.userland.shell.builtins import ExitShell

if TYPE_CHECKING:
    from adbwire.testing.userland.shell.interp import Shell

__all__ = ["run_stages"]

log = logging.getLogger("adbwire.testing")


def run_stages(shell: Shell, commands: Sequence[Command], streams: Streams) -> int:
    pipes = [Pipe(shell.outer_cancelled) for _ in commands[1:]]
    statuses = [0] * len(commands)
    threads = []
    for index, command in enumerate(commands[:-1]):
        stage_in = streams.stdin if index == 0 else pipes[index - 1]
        thread = threading.Thread(
            target=_stage,
            args=(shell, command, Streams(stage_in, pipes[index], streams.stderr)),
            kwargs={
                "statuses": statuses,
                "index": index,
                "writing": pipes[index],
                "reading": pipes[index - 1] if index else None,
            },
            name=f"device pipeline stage {index}",
            daemon=True,
        )
        threads.append(thread)
        thread.start()
    try:
        statuses[-1] = shell.run_command(
            commands[-1], Streams(pipes[-1], streams.stdout, streams.stderr)
        )
    finally:
        pipes[-1].close_read()
        for thread in threads:
            while thread.is_alive() and not shell.outer_cancelled():
                thread.join(Pipe.POLL_SECONDS)
    shell.pipe_statuses = list(statuses)
    if "pipefail" in shell.options:
        return next((status for status in reversed(statuses) if status), 0)
    return statuses[-1]


def _stage(
    shell: Shell,
    command: Command,
    streams: Streams,
    *,
    statuses: list[int],
    index: int,
    writing: Pipe,
    reading: Pipe | None,
) -> None:
    try:
        statuses[index] = shell.subshell().run_command(command, streams)
    except BrokenPipe:
        statuses[index] = SIGPIPE_STATUS
    except ExitShell as exc:
        statuses[index] = exc.code
    except Exception:  # a simulator bug must not leave the next stage waiting
        log.exception("simulated pipeline stage failed")
        statuses[index] = 1
    finally:
        writing.close_write()
        if reading is not None:
            reading.close_read()
