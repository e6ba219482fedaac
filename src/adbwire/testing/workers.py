"""Reusable threads for the simulated device's services: one job per open stream.

Starting a thread costs more than a whole shell round trip, so each `SimulatedDevice` keeps
a `WorkerPool`. A job goes to an idle worker if there is one; otherwise the pool starts a new
worker at once. There is no cap: a service may block for as long as its stream is open (a
tcp: forward, logcat -f, an interactive shell), so a capped pool could deadlock. A worker
idle for `idle_timeout` seconds exits; `stop()` ends and joins every worker.

A `TaskGroup` tracks the jobs of one connection, so its teardown can wait (bounded) for its
own services without waiting for another connection's.

How an idle worker is never lost: `_idle` counts workers waiting for a job minus jobs queued
for them. `submit` takes one from that count (or starts a worker, which brings its own job)
before queueing; a worker whose wait timed out exits only if the count is positive, that is
if more workers wait than jobs are queued, and otherwise goes back to take the job on its way.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Final

__all__ = ["IDLE_TIMEOUT", "TaskGroup", "WorkerPool"]

log = logging.getLogger("adbwire.testing")

IDLE_TIMEOUT: Final = 10.0
"""Seconds an idle worker waits for a job before it exits."""

Job = Callable[[], None]


class WorkerPool:
    def __init__(
        self, name: str = "adbd-sim worker", *, idle_timeout: float = IDLE_TIMEOUT
    ) -> None:
        self._name = name
        self._idle_timeout = idle_timeout
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._workers: set[threading.Thread] = set()
        self._numbers = itertools.count(1)
        self._stopping = False

    @property
    def worker_count(self) -> int:
        """Workers alive now (busy or idle)."""
        with self._lock:
            return len(self._workers)

    @property
    def idle_count(self) -> int:
        """Workers waiting for a job that no queued job is promised to."""
        with self._lock:
            return self._idle

    def submit(self, job: Job) -> None:
        """Run `job` in a worker thread; RuntimeError once the pool is stopping."""
        with self._lock:
            if self._stopping:
                raise RuntimeError("the worker pool is stopped")
            if self._idle > 0:
                self._idle -= 1
                self._jobs.put(job)
                return
            thread = threading.Thread(
                target=self._work,
                args=(job,),
                name=f"{self._name} {next(self._numbers)}",
                daemon=True,
            )
            self._workers.add(thread)
        thread.start()

    def stop(self, timeout: float) -> list[str]:
        """Let every worker finish its job and exit; names of those still alive after `timeout`."""
        with self._lock:
            self._stopping = True
            workers = list(self._workers)
        for _ in workers:
            self._jobs.put(None)
        deadline = time.monotonic() + timeout
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))
        stuck = [worker.name for worker in workers if worker.is_alive()]
        for name in stuck:
            log.warning("simulated adbd: worker %s did not stop", name)
        return stuck

    def _work(self, first: Job) -> None:
        job: Job | None = first
        try:
            while job is not None:
                _run(job)
                job = None  # let the finished job's stream go while this worker waits
                job = self._next_job()
        finally:
            with self._lock:
                self._workers.discard(threading.current_thread())

    def _next_job(self) -> Job | None:
        with self._lock:
            if self._stopping:
                return None
            self._idle += 1
        while True:
            try:
                return self._jobs.get(timeout=self._idle_timeout)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0:
                        self._idle -= 1
                        return None
                # Every idle worker is promised a job, this one included: take it.


def _run(job: Job) -> None:
    try:
        job()
    except Exception:
        log.exception("simulated adbd: a worker job failed")


class TaskGroup:
    """The jobs one connection submitted, so it can wait for exactly those."""

    def __init__(self, pool: WorkerPool) -> None:
        self._pool = pool
        self._lock = threading.Lock()  # `with self._lock` skips the Condition's Python frame
        self._changed = threading.Condition(self._lock)
        self._running: dict[int, str] = {}
        self._tokens = itertools.count()
        self._waiting = False

    def submit(self, name: str, target: Callable[..., None], *args: object) -> None:
        """Run target(*args) in the pool; `name` identifies it if it outlives `wait`."""
        token = next(self._tokens)
        with self._lock:
            self._running[token] = name

        def job() -> None:
            try:
                target(*args)
            finally:
                self._finished(token)

        try:
            self._pool.submit(job)
        except BaseException:
            self._finished(token)
            raise

    def _finished(self, token: int) -> None:
        with self._lock:
            del self._running[token]
            if self._waiting and not self._running:
                self._changed.notify_all()

    @property
    def running(self) -> list[str]:
        with self._changed:
            return list(self._running.values())

    def wait(self, timeout: float) -> list[str]:
        """Wait until every job has returned; names of those still running after `timeout`."""
        with self._changed:
            self._waiting = True
            self._changed.wait_for(lambda: not self._running, timeout)
            return list(self._running.values())
