"""What a hostile device cannot make a pull do: stay open forever by trickling bytes (the
minimum rate), or walk a tree without end (the entry and depth limits, walked as pulled)."""

from __future__ import annotations

import io
import math
import re
import time
from pathlib import Path

import pytest

from adbwire.errors import AdbTimeoutError, SyncFailError, UsageError
from adbwire.testing import DeviceFiles
from adbwire.testing.fs_types import FileStat, FsError
from adbwire.testing.hostile import HostileFiles
from adbwire.testing.services import sync as sync_service
from adbwire.wire.services import sync
from adbwire.wire.services.sync import SyncSession, WalkLimitError
from adbwire.wire.services.sync.pull_rate import MinRate, Pace
from tests.simulator.hostile_helpers import hostile_device
from tests.wire.sync.conftest import SyncDevice
from tests.wire.sync.test_push_pull import pattern

TRICKLE = 0.005
"""Seconds between the trickling device's bytes: at most 200 bytes/s."""


def test_a_trickling_device_fails_the_pull_at_the_minimum_rate(
    v2_device: SyncDevice, tmp_path: Path
) -> None:
    """Without the rate the idle timeout never trips: 4000 bytes would take 20 s or more."""
    v2_device.files.write_bytes("/sdcard/slow.bin", pattern(4000))
    v2_device.device.faults.trickle("sync:", interval=TRICKLE)
    started = time.monotonic()
    with pytest.raises(AdbTimeoutError) as caught:
        sync.pull(
            v2_device.client.connection,
            "/sdcard/slow.bin",
            str(tmp_path / "slow.bin"),
            min_rate=2000,
            rate_grace=0.5,
        )
    message = str(caught.value)
    assert message.startswith("pull of '/sdcard/slow.bin' (slower than the minimum rate of 2000")
    assert "of 4000 bytes in the" in message and message.endswith("s allowed) timed out")
    assert time.monotonic() - started < 15
    assert list(tmp_path.iterdir()) == []  # neither the file nor its temporary name


def test_pull_stream_keeps_the_minimum_rate_too(v2_device: SyncDevice) -> None:
    v2_device.files.write_bytes("/sdcard/slow.bin", pattern(4000))
    v2_device.device.faults.trickle("sync:", interval=TRICKLE)
    sink = io.BytesIO()
    with pytest.raises(
        AdbTimeoutError, match="slower than the minimum rate of 1500 bytes/s"
    ) as caught:
        sync.pull_stream(
            v2_device.client.connection, "/sdcard/slow.bin", sink, min_rate=1500, rate_grace=0.5
        )
    assert re.search(r": \d+ of 4000 bytes in the", str(caught.value))  # the size was asked
    assert 0 < len(sink.getvalue()) < 4000


def test_a_slow_device_above_the_minimum_rate_finishes(
    v2_device: SyncDevice, tmp_path: Path
) -> None:
    data = pattern(150)
    v2_device.files.write_bytes("/sdcard/steady.bin", data)
    v2_device.device.faults.trickle("sync:", interval=TRICKLE)
    result = sync.pull(
        v2_device.client.connection,
        "/sdcard/steady.bin",
        str(tmp_path / "steady.bin"),
        min_rate=10,
        rate_grace=5,
    )
    assert result.ok, result.failed
    assert (tmp_path / "steady.bin").read_bytes() == data


def test_the_idle_timeout_still_ends_a_silent_device_first(
    v2_device: SyncDevice, tmp_path: Path
) -> None:
    v2_device.files.write_bytes("/sdcard/stuck.bin", pattern(300_000))
    v2_device.device.faults.stall("sync:", after_bytes=100_000)
    try:
        with pytest.raises(AdbTimeoutError, match="sent nothing for a while"):
            sync.pull(
                v2_device.client.connection,
                "/sdcard/stuck.bin",
                str(tmp_path / "stuck.bin"),
                timeout=1.0,
                min_rate=1,
                rate_grace=600,
            )
    finally:
        v2_device.device.faults.release_stalls()
    assert list(tmp_path.iterdir()) == []


def test_a_fast_pull_is_not_slowed_or_failed_by_a_minimum_rate(
    sync_device: SyncDevice, tmp_path: Path
) -> None:
    data = pattern(3 * 1024 * 1024 + 5)
    sync_device.files.write_bytes("/sdcard/big.bin", data)
    connection = sync_device.client.connection
    result = sync.pull(
        connection, "/sdcard/big.bin", str(tmp_path / "big.bin"), min_rate=1024, rate_grace=1
    )
    assert result.ok, result.failed
    assert (tmp_path / "big.bin").read_bytes() == data
    sink = io.BytesIO()
    assert sync.pull_stream(connection, "/sdcard/big.bin", sink, min_rate=1024) == len(data)


def test_each_file_gets_grace_plus_its_size_over_the_rate() -> None:
    pace = Pace(MinRate(100, grace=2), "/sdcard/f", size=300)
    assert 1.5 < _seconds(pace, moved=0) <= 2.0
    assert 3.5 < _seconds(pace, moved=200) <= 4.0
    assert 4.5 < _seconds(pace, moved=300) <= 5.0
    # Bytes past the size the device announced earn no more time: a device that keeps
    # sending after it said how much there was cannot stretch the deadline.
    assert 4.5 < _seconds(pace, moved=10_000) <= 5.0
    assert "0 of 300 bytes in the 2.0 s allowed" in str(pace.deadline(0).error())
    unknown = Pace(MinRate(100, grace=0.5), "/sdcard/f", size=None)
    assert 100.0 < _seconds(unknown, moved=10_000) <= 100.5
    assert "10000 bytes in the 100.5 s allowed" in str(unknown.deadline(10_000).error())


def _seconds(pace: Pace, *, moved: int) -> float:
    left = pace.deadline(moved).remaining()
    assert left is not None
    return left


@pytest.mark.parametrize(
    ("rate", "grace"),
    [(0, 1), (-5, 1), (math.nan, 1), (math.inf, 1), (10, 0), (10, math.nan), (10, math.inf)],
)
def test_a_minimum_rate_must_make_sense(
    v2_device: SyncDevice, tmp_path: Path, rate: float, grace: float
) -> None:
    v2_device.files.write_bytes("/sdcard/f", b"x")
    connection = v2_device.client.connection
    with pytest.raises(UsageError, match=r"min_rate|rate_grace"):
        sync.pull(connection, "/sdcard/f", str(tmp_path / "f"), min_rate=rate, rate_grace=grace)
    with pytest.raises(UsageError, match=r"min_rate|rate_grace"):
        sync.pull_stream(connection, "/sdcard/f", io.BytesIO(), min_rate=rate, rate_grace=grace)
    assert list(tmp_path.iterdir()) == []
    assert MinRate(1e-9, 1e-9).grace == 1e-9


# ------------------------------------------------------------------ trees


def test_a_fan_out_tree_stops_at_max_entries_with_a_clear_failure(tmp_path: Path) -> None:
    device_root, out = tmp_path / "device", tmp_path / "out"
    device_root.mkdir()
    out.mkdir()
    files = HostileFiles(device_root, fan_out_at="/sdcard/fanout")
    counts: list[int] = []
    with hostile_device(files=files) as (_device, client):
        result = sync.pull(
            client.connection,
            "/sdcard/fanout",
            str(out),
            max_entries=300,
            on_entries=counts.append,
            timeout=10,
        )
    (failure,) = result.failed
    assert isinstance(failure.error, WalkLimitError)
    assert str(failure.error).startswith("'/sdcard/fanout' has more than 300 entries (max_entries")
    assert failure.source == "/sdcard/fanout"
    assert counts[-1] == 300 and counts == sorted(counts)
    made = [path for path in out.rglob("*") if path.is_dir()]
    assert 0 < len(made) <= 301  # walked while pulled: the directories listed so far exist
    assert not result.ok


def test_a_fan_out_tree_fails_below_max_depth_and_the_walk_goes_on(tmp_path: Path) -> None:
    device_root = tmp_path / "device"
    device_root.mkdir()
    files = HostileFiles(device_root, fan_out_at="/sdcard/fanout")
    with hostile_device(files=files) as (_device, client):
        result = sync.pull(
            client.connection, "/sdcard/fanout", str(tmp_path / "out"), max_depth=3, timeout=10
        )
    # Depth 0..3 are walked (1 + 2 + 4 + 8 directories); the 16 at depth 4 each fail.
    assert len(result.failed) == 16
    assert all(isinstance(f.error, WalkLimitError) for f in result.failed)
    first = result.failed[0]
    assert first.source == "/sdcard/fanout/d0/d0/d0/d0"
    assert str(first.error) == (
        "'/sdcard/fanout/d0/d0/d0/d0' is nested deeper than 3 levels (max_depth; a link loop?)"
    )
    assert (tmp_path / "out" / "d1" / "d1" / "d1").is_dir()
    assert not (tmp_path / "out" / "d1" / "d1" / "d1" / "d1").exists()
    assert result.sources[0].failed == 16


def test_an_endless_listing_stops_at_max_entries(tmp_path: Path) -> None:
    device_root = tmp_path / "device"
    device_root.mkdir()
    files = HostileFiles(device_root, endless_listing_at="/sdcard/endless")
    with hostile_device(files=files) as (_device, client), SyncSession(client.connection) as s:
        result = sync.pull(s, "/sdcard/endless", str(tmp_path / "out"), max_entries=2500)
        (failure,) = result.failed
        assert "more than 2500 entries" in str(failure.error)
        assert "stopped while listing '/sdcard/endless'" in str(failure.error)
        # The rest of the listing was dropped with the stream: the session still works.
        assert sync.stat(s, "/sdcard").is_dir


def test_files_are_pulled_as_their_directory_is_walked(
    sync_device: SyncDevice, tmp_path: Path
) -> None:
    """The walk lists a directory only after the files of the one before are written."""
    for name in ("a/1.txt", "a/b/2.txt", "c/3.txt"):
        sync_device.files.write_bytes(f"/data/local/tmp/t/{name}", name.encode())
    events: list[str] = []
    out = tmp_path / "out"

    def listed(count: int) -> None:
        written = sorted(p.name for p in out.rglob("*.txt")) if out.exists() else []
        events.append(f"{count}:{','.join(written)}")

    result = sync.pull(
        sync_device.client.connection, "/data/local/tmp/t", str(out), on_entries=listed
    )
    assert result.ok, result.failed
    # t lists a, c; a lists 1.txt, b; a/b lists 2.txt; c lists 3.txt.
    assert events == ["2:", "4:", "5:1.txt", "6:1.txt,2.txt"]


def test_the_total_is_known_once_the_last_tree_is_walked(
    sync_device: SyncDevice, tmp_path: Path
) -> None:
    sync_device.files.write_bytes("/sdcard/one.bin", pattern(10))
    sync_device.files.write_bytes("/sdcard/t/a.bin", pattern(20))
    sync_device.files.write_bytes("/sdcard/t/sub/b.bin", pattern(30))
    seen: list[tuple[int, int | None]] = []
    result = sync.pull(
        sync_device.client.connection,
        ["/sdcard/one.bin", "/sdcard/t"],
        str(tmp_path),
        progress=lambda done, total: seen.append((done, total)),
    )
    assert result.ok
    assert seen == [(10, None), (30, None), (30, 60), (60, 60)]
    files_only: list[tuple[int, int | None]] = []
    sync.pull(
        sync_device.client.connection,
        "/sdcard/one.bin",
        str(tmp_path / "again.bin"),
        progress=lambda done, total: files_only.append((done, total)),
    )
    assert files_only == [(0, 10), (10, 10)]


@pytest.mark.parametrize(("entries", "depth"), [(0, 5), (-1, 5), (5, -1)])
def test_walk_limits_must_make_sense(
    v2_device: SyncDevice, tmp_path: Path, entries: int, depth: int
) -> None:
    with pytest.raises(UsageError, match=r"max_entries|max_depth"):
        sync.pull(
            v2_device.client.connection,
            "/sdcard",
            str(tmp_path / "x"),
            max_entries=entries,
            max_depth=depth,
        )


def test_max_depth_zero_pulls_the_top_directory_only(v2_device: SyncDevice, tmp_path: Path) -> None:
    v2_device.files.write_bytes("/sdcard/z/top.txt", b"top")
    v2_device.files.write_bytes("/sdcard/z/deep/d.txt", b"deep")
    result = sync.pull(
        v2_device.client.connection, "/sdcard/z", str(tmp_path / "z"), max_depth=0, max_entries=2
    )
    assert (tmp_path / "z" / "top.txt").read_bytes() == b"top"
    assert [f.source for f in result.failed] == ["/sdcard/z/deep"]


def test_a_file_the_device_will_not_stat_is_not_pulled_under_a_minimum_rate(
    v2_device: SyncDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a size, bytes past it could earn time without end: the stat must answer."""
    v2_device.files.write_bytes("/sdcard/hidden.bin", b"h" * 100)
    real_lookup = sync_service._lookup

    def hiding(files: DeviceFiles, path: str, *, follow: bool) -> FileStat | FsError:
        if path == "/sdcard/hidden.bin":
            return FsError.of("ENOENT", path)
        return real_lookup(files, path, follow=follow)

    monkeypatch.setattr(sync_service, "_lookup", hiding)
    connection = v2_device.client.connection
    with pytest.raises(SyncFailError, match=r"^/sdcard/hidden\.bin: No such file or directory$"):
        sync.pull_stream(connection, "/sdcard/hidden.bin", io.BytesIO(), min_rate=100)
    totals: list[int | None] = []
    sink = io.BytesIO()
    sync.pull_stream(connection, "/sdcard/hidden.bin", sink, progress=lambda d, t: totals.append(t))
    assert (sink.getvalue(), set(totals)) == (b"h" * 100, {None})  # no rate: pulled as before
