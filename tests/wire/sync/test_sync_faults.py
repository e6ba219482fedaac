"""Failures: each gives a specific error naming the path, nothing hangs, no file is left
half-written under its final name, and a failure in a multi-file push hides nothing."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest

from adbwire.errors import AdbTimeoutError, DisconnectedError, SyncFailError, UsageError
from adbwire.wire.services import sync
from tests.wire.services.loopback_servers import wait_until
from tests.wire.sync.conftest import SyncDevice
from tests.wire.sync.test_push_pull import pattern


def test_a_missing_local_file_is_a_usage_error_before_anything_moves(
    sync_device: SyncDevice, tmp_path: Path
) -> None:
    (tmp_path / "real.txt").write_bytes(b"x")
    sources = [str(tmp_path / "real.txt"), str(tmp_path / "ghost.txt")]
    with pytest.raises(UsageError, match=r"cannot stat '.*ghost\.txt': No such file"):
        sync.push(sync_device.client.connection, sources, "/data/local/tmp")
    assert not sync_device.files.exists("/data/local/tmp/real.txt")


def test_a_remote_path_over_1024_bytes_is_refused_before_sending(
    sync_device: SyncDevice, tmp_path: Path
) -> None:
    connection = sync_device.client.connection
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "short").write_bytes(b"ok")
    (tmp_path / "tree" / ("long" * 20)).write_bytes(b"too far")
    base = "/data/local/tmp/" + "/".join(["d" * 190] * 5)  # 970 bytes: fine by itself
    result = sync.push(connection, str(tmp_path / "tree"), base)
    (failure,) = result.failed
    assert isinstance(failure.error, UsageError)
    mode = (tmp_path / "tree" / ("long" * 20)).stat().st_mode
    counted = 1051 + (len(f",{mode}") if sync_device.version == "v1" else 0)  # "path,mode"
    assert f"remote path too long: {counted} bytes" in str(failure.error)
    assert [t.destination for t in result.transferred] == [base + "/short"]
    too_long = base + "/" + "x" * 100
    with pytest.raises(UsageError, match="too long: 1071 bytes"):
        sync.push_stream(connection, io.BytesIO(b"x"), too_long)
    with pytest.raises(UsageError, match="too long"):
        sync.push(connection, str(tmp_path / "tree" / "short"), too_long)
    assert not sync_device.files.exists(too_long)


def test_a_directory_onto_a_remote_file_is_refused(sync_device: SyncDevice, tmp_path: Path) -> None:
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "f").write_bytes(b"1")
    sync_device.files.write_bytes("/data/local/tmp/plain", b"file")
    with pytest.raises(UsageError, match=r"cannot push directory .* not a directory"):
        sync.push(sync_device.client.connection, str(tmp_path / "tree"), "/data/local/tmp/plain")
    assert sync_device.files.read_bytes("/data/local/tmp/plain") == b"file"
    with pytest.raises(UsageError, match="target '/data/local/tmp/plain' is not a directory"):
        sync.push(
            sync_device.client.connection,
            [str(tmp_path / "tree" / "f"), str(tmp_path / "tree" / "f")],
            "/data/local/tmp/plain",
        )


def test_read_only_system_fails_naming_the_path(sync_device: SyncDevice, tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"data")
    result = sync.push(sync_device.client.connection, str(tmp_path / "f"), "/system/f")
    (failure,) = result.failed
    assert isinstance(failure.error, SyncFailError)
    assert failure.error.path == "/system/f"
    assert "Read-only file system" in failure.error.device_message
    with pytest.raises(SyncFailError, match=r"/system/f: .*Read-only file system"):
        result.raise_first()
    with pytest.raises(SyncFailError, match=r"/system/g: .*Read-only file system"):
        sync.push_stream(sync_device.client.connection, io.BytesIO(b"data"), "/system/g")


def test_a_fail_in_the_middle_of_a_push_hides_nothing(
    sync_device: SyncDevice, tmp_path: Path
) -> None:
    """b/file cannot be created (b is a file on the device); the files around it, including
    many small ones that were already in the pipe behind it, all arrive."""
    tree = tmp_path / "t"
    expected = {f"a/{i}.txt": pattern(100 + i, i) for i in range(3)}
    expected |= {f"c/{i:02}.txt": pattern(2000 + i, i) for i in range(40)}
    for name, data in {**expected, "b/file": b"blocked"}.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_bytes(data)
    sync_device.files.write_bytes("/data/local/tmp/t/b", b"in the way")

    result = sync.push(sync_device.client.connection, str(tree), "/data/local/tmp")

    assert [f.destination for f in result.failed] == ["/data/local/tmp/t/b/file"]
    assert isinstance(result.failed[0].error, SyncFailError)
    assert sorted(t.destination for t in result.transferred) == sorted(
        f"/data/local/tmp/t/{name}" for name in expected
    )
    for name, data in expected.items():
        assert sync_device.files.read_bytes(f"/data/local/tmp/t/{name}") == data
    assert result.sources[0].failed == 1 and result.sources[0].files == len(expected)


def test_no_space_left_fails_and_leaves_no_partial_file(
    sync_device: SyncDevice, tmp_path: Path
) -> None:
    sync_device.files.capacity_bytes = sync_device.files.usage_bytes() + 100_000
    (tmp_path / "big").write_bytes(pattern(1_000_000))
    (tmp_path / "small").write_bytes(b"fits")
    result = sync.push(
        sync_device.client.connection,
        [str(tmp_path / "big"), str(tmp_path / "small")],
        "/data/local/tmp",
    )
    (failure,) = result.failed
    assert failure.destination == "/data/local/tmp/big"
    assert "No space left on device" in str(failure.error)
    # The device removes the partial file once it has drained the failed transfer, which
    # may be after the push returned (adbd does the same).
    assert wait_until(lambda: not sync_device.files.exists("/data/local/tmp/big"), 5)
    assert sync_device.files.read_bytes("/data/local/tmp/small") == b"fits"


def test_pulling_a_missing_file_creates_nothing(sync_device: SyncDevice, tmp_path: Path) -> None:
    with pytest.raises(SyncFailError, match="/sdcard/absent: No such file or directory"):
        sync.pull(sync_device.client.connection, "/sdcard/absent", str(tmp_path / "x"))
    assert list(tmp_path.iterdir()) == []


def test_pull_destination_mistakes_are_usage_errors(
    sync_device: SyncDevice, tmp_path: Path
) -> None:
    sync_device.files.write_bytes("/sdcard/d/f", b"1")
    (tmp_path / "file").write_bytes(b"")
    connection = sync_device.client.connection
    with pytest.raises(UsageError, match="cannot pull directory"):
        sync.pull(connection, "/sdcard/d", str(tmp_path / "file"))
    with pytest.raises(UsageError, match="is not a directory"):
        sync.pull(connection, ["/sdcard/d/f", "/sdcard/d/f"], str(tmp_path / "file"))
    with pytest.raises(UsageError, match="cannot create file/directory"):
        sync.pull(connection, "/sdcard/d/f", str(tmp_path / "no" / "such" / "f"))


def test_a_disconnect_mid_pull_leaves_no_file_and_says_how_far_it_got(
    sync_device: SyncDevice, tmp_path: Path
) -> None:
    sync_device.files.write_bytes("/sdcard/big.bin", pattern(4 * 1024 * 1024))
    sync_device.device.faults.drop_after_sent_bytes = 1_500_000
    with pytest.raises(DisconnectedError, match=r"after \d+ of 4194304 bytes") as caught:
        sync.pull(sync_device.client.connection, "/sdcard/big.bin", str(tmp_path / "big.bin"))
    moved = int(str(caught.value).split("after ")[1].split(" ")[0])
    assert 0 < moved < 4 * 1024 * 1024
    assert list(tmp_path.iterdir()) == []


def test_a_disconnect_mid_push_says_how_far_it_got(sync_device: SyncDevice, tmp_path: Path) -> None:
    (tmp_path / "big").write_bytes(os.urandom(4 * 1024 * 1024))  # compression cannot shrink it
    sync_device.device.faults.drop_after_received_bytes = 1_000_000
    with pytest.raises(DisconnectedError, match=r"push stopped after \d+ bytes \(0 files done\)"):
        sync.push(sync_device.client.connection, str(tmp_path / "big"), "/sdcard/big")


def test_a_stalled_pull_times_out_and_cleans_up(sync_device: SyncDevice, tmp_path: Path) -> None:
    sync_device.files.write_bytes("/sdcard/slow.bin", pattern(8 * 1024 * 1024))
    sync_device.device.faults.stall("sync:", after_bytes=2_000_000)
    try:
        with pytest.raises(AdbTimeoutError, match=r"pull of '/sdcard/slow\.bin'"):
            sync.pull(
                sync_device.client.connection,
                "/sdcard/slow.bin",
                str(tmp_path / "slow.bin"),
                timeout=1.0,  # idle time allowed: the open and stat before the stall must fit
            )
    finally:
        sync_device.device.faults.release_stalls()
    assert list(tmp_path.iterdir()) == []


def test_a_disconnect_mid_pull_stream_says_how_far_it_got(sync_device: SyncDevice) -> None:
    """Without a progress callback nothing asked for the size: the message has none."""
    sync_device.files.write_bytes("/sdcard/big.bin", pattern(4 * 1024 * 1024))
    sync_device.device.faults.drop_after_sent_bytes = 1_500_000
    sink = io.BytesIO()
    with pytest.raises(DisconnectedError) as caught:
        sync.pull_stream(sync_device.client.connection, "/sdcard/big.bin", sink)
    assert re.match(
        r"the device disconnected during pull of '/sdcard/big\.bin' after (\d+) bytes: ",
        str(caught.value),
    )
    assert f"after {len(sink.getvalue())} bytes: " in str(caught.value)


def test_a_fail_answering_recv_names_the_path_and_the_devices_reason(
    sync_device: SyncDevice,
) -> None:
    """pull_stream without progress sends RECV straight away: the FAIL is the answer."""
    connection = sync_device.client.connection
    with pytest.raises(SyncFailError) as caught:
        sync.pull_stream(connection, "/sdcard/none.bin", io.BytesIO())
    assert caught.value.path == "/sdcard/none.bin"
    assert caught.value.device_message.startswith("open failed: ")
    assert "No such file or directory" in caught.value.device_message
    sync_device.files.write_bytes("/sdcard/ok.txt", b"ok")
    sink = io.BytesIO()
    assert sync.pull_stream(connection, "/sdcard/ok.txt", sink) == 2  # the session recovers
    assert sink.getvalue() == b"ok"
