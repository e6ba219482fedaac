"""STAT/STA2/LST2 and LIST/LIS2 against the simulated device, v1 and v2."""

from __future__ import annotations

import io
import os

import pytest

from adbwire.errors import SyncFailError
from adbwire.wire.services import sync
from adbwire.wire.services.sync import SyncSession
from tests.wire.sync.conftest import SyncDevice

FIVE_GIB = 5 * 1024**3 + 123


def test_stat_of_a_file_matches_the_device(sync_device: SyncDevice) -> None:
    sync_device.files.write_bytes("/data/local/tmp/a.txt", b"hello", mode=0o100640)
    os.utime(sync_device.files.host_path("/data/local/tmp/a.txt"), (1_500_000_000, 1_600_000_000))
    found = sync.stat(sync_device.client.connection, "/data/local/tmp/a.txt")
    assert found.is_file
    assert (found.size, found.mtime, found.permissions) == (5, 1_600_000_000, 0o640)
    assert (found.atime is not None) == (sync_device.version == "v2")


def test_missing_path_is_a_clear_error_naming_it(sync_device: SyncDevice) -> None:
    with pytest.raises(SyncFailError) as caught:
        sync.stat(sync_device.client.connection, "/data/local/tmp/nope")
    assert caught.value.path == "/data/local/tmp/nope"
    assert caught.value.device_message == "No such file or directory"
    assert str(caught.value) == "/data/local/tmp/nope: No such file or directory"
    assert not sync.exists(sync_device.client.connection, "/data/local/tmp/nope")


def test_stat_follows_links_and_lstat_does_not(sync_device: SyncDevice) -> None:
    connection = sync_device.client.connection
    assert sync.stat(connection, "/sdcard").is_dir
    assert sync.lstat(connection, "/sdcard").is_symlink
    sync_device.files.write_bytes("/data/local/tmp/target", b"x" * 10)
    sync_device.files.symlink("/data/local/tmp/link", "/data/local/tmp/target")
    linked = sync.stat(connection, "/data/local/tmp/link")
    assert linked.is_file and not linked.is_symlink


def test_a_file_over_4_gib_reports_its_true_size_on_v2(v2_device: SyncDevice) -> None:
    v2_device.files.make_sparse("/data/local/tmp/big/huge.img", FIVE_GIB)
    connection = v2_device.client.connection
    assert sync.stat(connection, "/data/local/tmp/big/huge.img").size == FIVE_GIB
    (entry,) = sync.list_dir(connection, "/data/local/tmp/big")
    assert (entry.name, entry.stat.size) == ("huge.img", FIVE_GIB)


def test_v1_sizes_are_32_bit(connect_sync_device: object) -> None:
    device = connect_sync_device("v1")  # type: ignore[operator]
    device.files.make_sparse("/data/local/tmp/huge.img", FIVE_GIB)
    assert sync.stat(device.client.connection, "/data/local/tmp/huge.img").size == FIVE_GIB % 2**32


def test_listing_in_device_order_without_dot_entries(sync_device: SyncDevice) -> None:
    for name in ("b.txt", "a.txt", "sub/c.txt"):
        sync_device.files.write_bytes(f"/data/local/tmp/d/{name}", name.encode())
    connection = sync_device.client.connection
    entries = sync.list_dir(connection, "/data/local/tmp/d")
    assert [entry.name for entry in entries] == ["a.txt", "b.txt", "sub"]
    assert entries[0].stat.size == len("a.txt")
    assert entries[2].stat.is_dir
    with_dots = sync.list_dir(connection, "/data/local/tmp/d", dot_entries=True)
    assert {entry.name for entry in with_dots} >= {".", ".."}


def test_listing_errors_are_not_empty_directories(sync_device: SyncDevice) -> None:
    connection = sync_device.client.connection
    sync_device.files.mkdir("/data/local/tmp/empty")
    assert sync.list_dir(connection, "/data/local/tmp/empty") == []
    with pytest.raises(SyncFailError, match="No such file or directory"):
        sync.list_dir(connection, "/data/local/tmp/missing")
    sync_device.files.write_bytes("/data/local/tmp/file", b"")
    with pytest.raises(SyncFailError, match="Not a directory"):
        sync.list_dir(connection, "/data/local/tmp/file")


def test_one_session_carries_many_requests_on_one_stream(sync_device: SyncDevice) -> None:
    sync_device.files.write_bytes("/data/local/tmp/f", b"abc")
    with SyncSession(sync_device.client.connection) as session:
        sync.stat(session, "/data/local/tmp/f")
        stream = session.stream
        sync.list_dir(session, "/data/local/tmp")
        assert sync.exists(session, "/data/local/tmp/f")
        assert session.stream is stream


def test_a_session_recovers_after_the_device_ends_the_stream(sync_device: SyncDevice) -> None:
    with SyncSession(sync_device.client.connection) as session:
        with pytest.raises(SyncFailError, match="open failed: No such file"):
            sync.pull_stream(session, "/data/local/tmp/absent", io.BytesIO())
        sync_device.files.write_bytes("/data/local/tmp/present", b"ok")
        assert sync.stat(session, "/data/local/tmp/present").size == 2
