"""The doorbell that wakes a caller polling a TCP link (wire/doorbell.py)."""

from __future__ import annotations

import gc
import os
import select
import sys
import threading

import pytest

from adbwire.wire.doorbell import Doorbell


def rung(bell: Doorbell, wait_ms: int = 0) -> bool:
    poller = select.poll()
    poller.register(bell.fileno(), select.POLLIN)
    return bool(poller.poll(wait_ms))


@pytest.fixture(params=["eventfd", "socketpair"])
def bell(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Doorbell:
    if request.param == "socketpair":
        monkeypatch.delattr(os, "eventfd", raising=False)
    elif not hasattr(os, "eventfd"):
        pytest.skip("no eventfd on this system")
    made = Doorbell()
    request.addfinalizer(made.close)
    return made


def test_a_ring_stays_until_drained(bell: Doorbell) -> None:
    assert not rung(bell)
    bell.ring()
    bell.ring()
    assert rung(bell)
    bell.drain()
    assert not rung(bell)
    bell.drain()  # nothing pending: no error


def test_a_ring_from_another_thread_wakes_a_poll(bell: Doorbell) -> None:
    ringer = threading.Timer(0.05, bell.ring)
    ringer.start()
    try:
        assert rung(bell, wait_ms=10_000)
    finally:
        ringer.cancel()


def test_after_close_ring_and_drain_touch_no_descriptor(bell: Doorbell) -> None:
    """The freed number may be reused at once (here: a pipe's write end put there)."""
    pipe_read, pipe_write = os.pipe()
    number = bell.fileno()
    bell.close()
    assert bell.fileno() == -1
    os.dup2(pipe_write, number)
    try:
        bell.ring()
        bell.drain()
        os.set_blocking(pipe_read, False)
        with pytest.raises(BlockingIOError):
            os.read(pipe_read, 8)
    finally:
        for fd in {pipe_read, pipe_write, number}:
            os.close(fd)
    bell.close()  # twice is fine


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="eventfd: Linux")
def test_on_linux_a_doorbell_costs_one_descriptor() -> None:
    # A socket an earlier test left to the garbage collector must not close mid-count.
    gc.collect()
    gc.disable()
    try:
        before = len(os.listdir("/proc/self/fd"))
        bell = Doorbell()
        try:
            assert len(os.listdir("/proc/self/fd")) == before + 1
        finally:
            bell.close()
        assert len(os.listdir("/proc/self/fd")) == before
    finally:
        gc.enable()
