"""The simulator's worker pool: reuse, growth, no deadlock, idle exit, stop, task groups."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from adbwire.testing.workers import TaskGroup, WorkerPool

TIMEOUT = 10.0


def eventually(condition: Callable[[], bool], timeout: float = TIMEOUT) -> bool:
    """Poll a condition the pool offers no event for (bounded)."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while not condition():
        if time.monotonic() > deadline:
            return False
        pause.wait(0.002)
    return True


@pytest.fixture
def pool() -> Iterator[WorkerPool]:
    workers = WorkerPool("test-pool worker")
    yield workers
    assert workers.stop(TIMEOUT) == []


def run_and_wait(pool: WorkerPool, job: Callable[[], None]) -> None:
    done = threading.Event()

    def wrapped() -> None:
        try:
            job()
        finally:
            done.set()

    pool.submit(wrapped)
    assert done.wait(TIMEOUT)


def test_an_idle_worker_is_reused(pool: WorkerPool) -> None:
    threads: list[threading.Thread] = []
    for _ in range(5):
        run_and_wait(pool, lambda: threads.append(threading.current_thread()))
        assert eventually(lambda: pool.idle_count == 1)
    assert len(set(threads)) == 1
    assert threads[0] is not threading.current_thread()
    assert pool.worker_count == 1


def test_the_pool_grows_while_every_worker_is_busy(pool: WorkerPool) -> None:
    release = threading.Event()
    started = [threading.Event() for _ in range(8)]
    for event in started:

        def job(event: threading.Event = event) -> None:
            event.set()
            assert release.wait(TIMEOUT)

        pool.submit(job)
    assert all(event.wait(TIMEOUT) for event in started), "every job runs at once"
    assert pool.worker_count == 8
    release.set()
    assert eventually(lambda: pool.idle_count == 8)


def test_a_blocked_job_never_holds_up_the_next_one(pool: WorkerPool) -> None:
    # Each job waits for the one submitted after it: any cap on the pool would deadlock.
    count = 20
    ran = [threading.Event() for _ in range(count + 1)]
    ran[count].set()
    finished = threading.Barrier(count + 1, timeout=TIMEOUT)
    for index in range(count):

        def job(index: int = index) -> None:
            ran[index].set()
            assert ran[index + 1].wait(TIMEOUT)
            finished.wait()

        pool.submit(job)
    finished.wait()


def test_a_failing_job_is_logged_and_the_worker_goes_on(
    pool: WorkerPool, caplog: pytest.LogCaptureFixture
) -> None:
    def fail() -> None:
        raise RuntimeError("boom")

    pool.submit(fail)
    assert eventually(lambda: "a worker job failed" in caplog.text)
    assert "boom" in caplog.text
    assert eventually(lambda: pool.idle_count == 1)
    ran = threading.Event()
    run_and_wait(pool, ran.set)
    assert ran.is_set()
    assert pool.worker_count == 1


def test_idle_workers_exit_and_new_ones_start_later() -> None:
    pool = WorkerPool("test-pool idle", idle_timeout=0.05)
    try:
        run_and_wait(pool, lambda: None)
        assert eventually(lambda: pool.worker_count == 0)
        # A worker leaves the pool's count just before its thread ends.
        assert eventually(
            lambda: not [t for t in threading.enumerate() if t.name.startswith("test-pool idle")]
        )
        ran = threading.Event()
        run_and_wait(pool, ran.set)
        assert ran.is_set()
    finally:
        assert pool.stop(TIMEOUT) == []


def test_no_job_is_lost_while_workers_time_out() -> None:
    # The idle worker times out about when the next job comes: a submit that counts on a
    # worker which then exits would leave its job in the queue for good.
    pool = WorkerPool("test-pool race", idle_timeout=0.0002)
    done = threading.Semaphore(0)
    jitter = random.Random(7)
    try:
        for _ in range(3000):
            pool.submit(done.release)
            assert done.acquire(timeout=TIMEOUT), "a submitted job never ran"
            until = time.perf_counter() + jitter.uniform(0, 0.0004)
            while time.perf_counter() < until:
                pass  # a busy wait: a sleep is far too coarse for this race
    finally:
        assert pool.stop(TIMEOUT) == []


def test_stop_joins_every_worker_and_refuses_new_jobs() -> None:
    pool = WorkerPool("test-pool stop")
    release = threading.Event()
    started = threading.Barrier(4, timeout=TIMEOUT)

    def job() -> None:
        started.wait()
        assert release.wait(TIMEOUT)

    for _ in range(3):
        pool.submit(job)
    started.wait()
    release.set()
    assert pool.stop(TIMEOUT) == []
    assert not [t for t in threading.enumerate() if t.name.startswith("test-pool stop")]
    with pytest.raises(RuntimeError):
        pool.submit(lambda: None)


def test_stop_reports_a_worker_that_does_not_finish(caplog: pytest.LogCaptureFixture) -> None:
    pool = WorkerPool("test-pool stuck")
    release = threading.Event()
    started = threading.Event()

    def job() -> None:
        started.set()
        assert release.wait(TIMEOUT)

    pool.submit(job)
    assert started.wait(TIMEOUT)
    try:
        stuck = pool.stop(0.05)
        assert len(stuck) == 1 and stuck[0].startswith("test-pool stuck")
        assert "did not stop" in caplog.text
    finally:
        release.set()
    assert pool.stop(TIMEOUT) == []


def test_a_task_group_waits_for_its_own_jobs_only(pool: WorkerPool) -> None:
    mine, other = TaskGroup(pool), TaskGroup(pool)
    release_mine, release_other = threading.Event(), threading.Event()
    started = threading.Barrier(3, timeout=TIMEOUT)

    def blocked(release: threading.Event) -> None:
        started.wait()
        assert release.wait(TIMEOUT)

    mine.submit("mine", blocked, release_mine)
    other.submit("other", blocked, release_other)
    started.wait()
    assert mine.wait(0.05) == ["mine"], "still running: named"
    release_mine.set()
    assert mine.wait(TIMEOUT) == []
    assert other.running == ["other"]
    release_other.set()
    assert other.wait(TIMEOUT) == []


def test_a_task_group_forgets_a_job_the_pool_refused() -> None:
    pool = WorkerPool("test-pool refused")
    pool.stop(TIMEOUT)
    group = TaskGroup(pool)
    with pytest.raises(RuntimeError):
        group.submit("late", lambda: None)
    assert group.wait(0) == []
