"""Wakeup: a set before the wait is not lost, and one set wakes one wait."""

from __future__ import annotations

import threading

from adbwire.wire.wakeup import Wakeup


def test_a_set_before_the_wait_is_kept() -> None:
    wakeup = Wakeup()
    wakeup.set()
    assert wakeup.wait(0)
    assert not wakeup.wait(0), "consumed by the first wait"


def test_setting_twice_wakes_once() -> None:
    wakeup = Wakeup()
    wakeup.set()
    wakeup.set()
    assert wakeup.wait(0)
    assert not wakeup.wait(0.01)


def test_a_wait_times_out_without_a_set() -> None:
    assert not Wakeup().wait(0.01)


def test_a_set_from_another_thread_wakes_a_blocked_wait() -> None:
    wakeup = Wakeup()
    waiting = threading.Event()
    woke: list[bool] = []

    def wait() -> None:
        waiting.set()
        woke.append(wakeup.wait(5))

    thread = threading.Thread(target=wait)
    thread.start()
    assert waiting.wait(5)
    wakeup.set()
    thread.join(5)
    assert woke == [True]
