"""Background jobs: `cmd &` runs in a thread as a subshell process whose pid is `$!`, with
stdin from /dev/null; `wait` waits for them, and the session waits for them before it ends
(as adbd waits for the output pipes a background job still holds). No job control."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from adbwire.shell_syntax.parser import AndOr
from adbwire.testing.userland.process import SIGPIPE_STATUS, BrokenPipe, BytesReader, Streams
from adbwire.testing.userland.shell.builtins import SHELL_PATH, ExitShell

if TYPE_CHECKING:
    from adbwire.testing.userland.android.state import Process
    from adbwire.testing.userland.shell.interp import Shell

__all__ = ["Job", "start_job", "wait_jobs"]

POLL_SECONDS = 0.05


@dataclass
class Job:
    """A background job: its subshell process and, once done, its status."""

    process: Process
    done: threading.Event
    status: int = 0


def start_job(shell: Shell, item: AndOr, streams: Streams) -> None:
    process = shell.host.processes.spawn(
        [SHELL_PATH],
        ppid=shell.pid,
        uid=shell.host.user_id(),
        session=shell.process.session if shell.process else 0,
    )
    runner = shell.subshell()
    runner.process, runner.pid = process, process.pid
    job = Job(process, threading.Event())
    job_streams = Streams(BytesReader(b""), streams.stdout, streams.stderr)

    def run() -> None:
        try:
            job.status = runner.run_and_or(item, job_streams)
        except ExitShell as exc:
            job.status = exc.code
        except BrokenPipe:  # a built-in of the job wrote into a pipe nobody reads
            job.status = SIGPIPE_STATUS
        except Exception:
            job.status = 1
        finally:
            if process.pending_signal:
                job.status = 128 + process.pending_signal
            shell.host.processes.reap(process)
            job.done.set()

    shell.jobs[process.pid] = job
    shell.last_job = str(process.pid)
    threading.Thread(target=run, name=f"device job {process.pid}", daemon=True).start()


def wait_jobs(shell: Shell, pids: list[int] | None = None) -> int:
    """Wait for background jobs (all, or those pids); the status of the last one waited
    for (127 for a pid that is not a job), or 0 for all of them."""
    status = 0
    for pid in list(shell.jobs) if pids is None else pids:
        job = shell.jobs.get(pid)
        if job is None:
            status = 127
            continue
        while not job.done.wait(POLL_SECONDS):
            if shell.outer_cancelled():
                return 128 + 1
        status = job.status if pids is not None else 0
    return status
