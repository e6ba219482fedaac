"""Frame buffers are reused (a fresh 10 MB mapping costs ~13 ms of page faults), but never
while something still maps them, and the pool stays small."""

from __future__ import annotations

import hashlib
import platform

import pytest

from adbwire.device.screen import Budget, capture, frame_pool, screenshot, take_screenshot
from adbwire.device.screen.frame_pool import KEEP, POOL, SIZE_CLASS, FramePool, Lease
from tests.device.ui_sim import simulated


def test_a_mapping_nothing_refers_to_is_reused() -> None:
    pool = FramePool()
    lease = Lease(pool)
    first = lease.take(100)
    first[:5] = b"hello"
    address = id(first)
    del first
    lease.give_back()
    assert pool.idle == 1
    again = Lease(pool).take(SIZE_CLASS)  # the same size class
    assert id(again) == address and again[:5] == b"hello"


def test_a_mapping_still_viewed_is_left_alone() -> None:
    pool = FramePool()
    lease = Lease(pool)
    mapping = lease.take(100)
    view = memoryview(mapping)[:10]
    del mapping
    lease.give_back()
    assert pool.idle == 0
    view.release()


def test_sizes_round_up_and_a_small_mapping_is_not_handed_out_for_a_large_frame() -> None:
    pool = FramePool(keep=2)
    lease = Lease(pool)
    assert len(lease.take(1)) == SIZE_CLASS
    assert len(lease.take(SIZE_CLASS + 1)) == 2 * SIZE_CLASS
    lease.give_back()
    assert pool.idle == 2
    large = Lease(pool).take(3 * SIZE_CLASS)
    assert len(large) == 3 * SIZE_CLASS and pool.idle == 2


def test_the_pool_keeps_only_a_few() -> None:
    pool = FramePool()
    lease = Lease(pool)
    for _ in range(KEEP + 3):
        lease.take(100)
    lease.give_back()
    assert pool.idle == KEEP


def test_screenshots_read_into_the_pool_and_a_kept_frame_is_never_written_over() -> None:
    with simulated("notes_list") as sim:
        take_screenshot(sim.client)
        assert POOL.idle >= 1  # the frame's buffer came back
        lease = Lease()
        kept = capture(sim.client, lease=lease)
        before = hashlib.sha256(kept.image.tobytes()).digest()
        lease.give_back()  # too early: the caller still holds the frame
        sim.show("settings")
        other = capture(sim.client, lease=Lease())  # must not read into the kept buffer
        assert other.fingerprint != kept.fingerprint
        assert hashlib.sha256(kept.image.tobytes()).digest() == before


def test_each_screenshot_gives_the_heaps_free_pages_back(monkeypatch: pytest.MonkeyPatch) -> None:
    trims: list[bool] = []

    def trim() -> bool:
        trims.append(True)
        return True

    monkeypatch.setattr(screenshot, "trim_heaps", trim)
    with simulated("notes_list") as sim:
        take_screenshot(sim.client)
        take_screenshot(sim.client, budget=Budget(format="jpeg"))
    assert len(trims) == 2
    assert frame_pool.trim_heaps() is (platform.libc_ver()[0] == "glibc")
