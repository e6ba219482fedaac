"""Push and pull round trips against the simulated device, v1 and v2: bytes, modes, mtimes,
trees, adb's destination rules, progress."""

from __future__ import annotations

import hashlib
import io
import itertools
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from adbwire.wire.services import sync
from adbwire.wire.services.sync import SyncSession
from adbwire.wire.stream import Stream
from tests.wire.sync.conftest import FEATURE_SETS, SyncDevice

SIZES = [0, 1, 64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 3 * 1024 * 1024 + 17]


def pattern(size: int, seed: int = 0) -> bytes:
    """Bytes that differ with position (a prime period, so no chunk boundary lines up)."""
    block = bytes((i * 7 + seed) % 251 for i in range(251))
    return (block * (size // 251 + 1))[:size]


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("size", SIZES)
def test_round_trip_through_paths(sync_device: SyncDevice, tmp_path: Path, size: int) -> None:
    data = pattern(size)
    local = tmp_path / "in.bin"
    local.write_bytes(data)
    os.chmod(local, 0o640)
    os.utime(local, (1_600_000_000, 1_650_000_000))
    connection = sync_device.client.connection

    pushed = sync.push(connection, str(local), "/data/local/tmp/f.bin")
    assert pushed.ok, pushed.failed
    assert [(t.destination, t.size) for t in pushed.transferred] == [
        ("/data/local/tmp/f.bin", size)
    ]
    assert digest(sync_device.files.read_bytes("/data/local/tmp/f.bin")) == digest(data)
    remote = sync.stat(connection, "/data/local/tmp/f.bin")
    assert (remote.size, remote.mtime) == (size, 1_650_000_000)

    back = tmp_path / "out.bin"
    pulled = sync.pull(connection, "/data/local/tmp/f.bin", str(back), preserve=True)
    assert pulled.ok, pulled.failed
    assert digest(back.read_bytes()) == digest(data)
    assert int(back.stat().st_mtime) == 1_650_000_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.bin", "out.bin"]


@pytest.mark.parametrize("size", [0, 64 * 1024 + 1, 2 * 1024 * 1024 + 5])
def test_round_trip_through_streams(sync_device: SyncDevice, size: int) -> None:
    data = pattern(size, seed=3)
    connection = sync_device.client.connection
    sent = sync.push_stream(connection, io.BytesIO(data), "/sdcard/s.bin", mode=0o600, mtime=1234)
    assert sent == size
    remote = sync.stat(connection, "/sdcard/s.bin")
    assert (remote.size, remote.mtime, remote.is_file) == (size, 1234, True)
    sink = io.BytesIO()
    assert sync.pull_stream(connection, "/sdcard/s.bin", sink) == size
    assert digest(sink.getvalue()) == digest(data)


def test_push_from_a_stream_without_readinto(sync_device: SyncDevice) -> None:
    class ReadOnly:
        """Only read(), in short pieces: a generator-backed or socket-like source."""

        def __init__(self, data: bytes) -> None:
            self.source = io.BytesIO(data)

        def read(self, size: int = -1) -> bytes:
            return self.source.read(min(size, 1000))

    data = pattern(70_000)
    sync.push_stream(sync_device.client.connection, ReadOnly(data), "/sdcard/r.bin")  # type: ignore[arg-type]
    assert sync_device.files.read_bytes("/sdcard/r.bin") == data


def make_tree(root: Path) -> dict[str, bytes]:
    files = {
        "top.txt": b"top",
        "empty.bin": b"",
        "a/one.bin": pattern(70_000, 1),
        "a/b/two.bin": pattern(5, 2),
        "a/b/c/three.bin": pattern(200_000, 3),
        "z/last.txt": b"last",
    }
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return files


def test_a_nested_tree_goes_and_comes_back(sync_device: SyncDevice, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    files = make_tree(tree)
    connection = sync_device.client.connection
    with SyncSession(connection) as session:
        pushed = sync.push(session, str(tree), "/data/local/tmp/t")  # missing: becomes t
        assert pushed.ok, pushed.failed
        assert len(pushed.transferred) == len(files)
        for name, data in files.items():
            assert sync_device.files.read_bytes(f"/data/local/tmp/t/{name}") == data

        sync.push(session, str(tree), "/data/local/tmp/t")  # exists: lands in t/tree
        assert (
            sync_device.files.read_bytes("/data/local/tmp/t/tree/a/one.bin") == files["a/one.bin"]
        )

        out = tmp_path / "out"
        out.mkdir()
        pulled = sync.pull(session, "/data/local/tmp/t/tree", str(out))  # exists: out/tree
        assert pulled.ok, pulled.failed
        assert pulled.bytes_transferred == sum(len(d) for d in files.values())
    for name, data in files.items():
        assert (out / "tree" / name).read_bytes() == data


def test_links_inside_a_pushed_tree_stay_links(sync_device: SyncDevice, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    make_tree(tree)
    (tree / "link.txt").symlink_to("top.txt")
    result = sync.push(sync_device.client.connection, str(tree), "/data/local/tmp/t")
    assert result.ok, result.failed
    assert sync_device.files.readlink("/data/local/tmp/t/link.txt") == "top.txt"


def test_files_go_into_a_remote_directory_under_their_names(
    sync_device: SyncDevice, tmp_path: Path
) -> None:
    names = ["x.txt", "y.txt", "z.txt"]
    for name in names:
        (tmp_path / name).write_bytes(name.encode())
    result = sync.push(
        sync_device.client.connection, [str(tmp_path / n) for n in names], "/data/local/tmp"
    )
    assert result.ok
    assert [s.source for s in result.sources] == [str(tmp_path / n) for n in names]
    for name in names:
        assert sync_device.files.read_bytes(f"/data/local/tmp/{name}") == name.encode()


def test_pull_into_a_local_directory_and_to_a_new_name(
    sync_device: SyncDevice, tmp_path: Path
) -> None:
    sync_device.files.write_bytes("/sdcard/one.txt", b"1")
    sync_device.files.write_bytes("/sdcard/two.txt", b"22")
    connection = sync_device.client.connection
    result = sync.pull(connection, ["/sdcard/one.txt", "/sdcard/two.txt"], str(tmp_path))
    assert result.ok
    assert (tmp_path / "two.txt").read_bytes() == b"22"
    sync.pull(connection, "/sdcard/one.txt", str(tmp_path / "renamed.txt"))
    assert (tmp_path / "renamed.txt").read_bytes() == b"1"


def test_progress_reaches_the_total_and_never_goes_back(
    sync_device: SyncDevice, tmp_path: Path
) -> None:
    files = make_tree(tmp_path / "tree")
    total = sum(len(d) for d in files.values())
    seen: list[tuple[int, int | None]] = []
    sync.push(
        sync_device.client.connection,
        str(tmp_path / "tree"),
        "/data/local/tmp/p",
        progress=lambda done, whole: seen.append((done, whole)),
    )
    assert seen[-1] == (total, total)
    assert all(a[0] <= b[0] for a, b in itertools.pairwise(seen))
    seen.clear()
    sync.pull(
        sync_device.client.connection,
        "/data/local/tmp/p",
        str(tmp_path / "back"),
        progress=lambda done, whole: seen.append((done, whole)),
    )
    assert seen[-1] == (total, total)


def test_sync_only_skips_files_that_are_up_to_date(sync_device: SyncDevice, tmp_path: Path) -> None:
    files = make_tree(tmp_path / "tree")
    connection = sync_device.client.connection
    first = sync.push(connection, str(tmp_path / "tree"), "/data/local/tmp", sync_only=True)
    assert len(first.transferred) == len(files)
    (tmp_path / "tree" / "top.txt").write_bytes(b"changed!")
    second = sync.push(connection, str(tmp_path / "tree"), "/data/local/tmp", sync_only=True)
    assert [t.destination for t in second.transferred] == ["/data/local/tmp/tree/top.txt"]
    assert len(second.skipped) == len(files) - 1
    assert sync_device.files.read_bytes("/data/local/tmp/tree/top.txt") == b"changed!"


def test_empty_directories_are_created_too(sync_device: SyncDevice, tmp_path: Path) -> None:
    """adb leaves empty directories out of a push; adbwire makes them with `mkdir -p`."""
    (tmp_path / "tree" / "full").mkdir(parents=True)
    (tmp_path / "tree" / "full" / "f").write_bytes(b"1")
    (tmp_path / "tree" / "hollow" / "deeper").mkdir(parents=True)
    result = sync.push(sync_device.client.connection, str(tmp_path / "tree"), "/data/local/tmp/e")
    assert result.ok
    assert sync_device.files.stat("/data/local/tmp/e/hollow/deeper").is_dir


def test_a_device_without_fixed_push_mkdir_gets_its_directories_first(
    connect_sync_device: Callable[..., SyncDevice], tmp_path: Path
) -> None:
    features = tuple(f for f in FEATURE_SETS["v2"] if f != "fixed_push_mkdir")
    device = connect_sync_device("v2", features=features)
    files = make_tree(tmp_path / "tree")
    result = sync.push(device.client.connection, str(tmp_path / "tree"), "/data/local/tmp/m")
    assert result.ok
    for name, data in files.items():
        assert device.files.read_bytes(f"/data/local/tmp/m/{name}") == data


def test_many_files_share_one_sync_stream(
    sync_device: SyncDevice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    connection = sync_device.client.connection
    opened: list[str] = []
    real_open = connection.open_stream

    def counting_open(service: str, timeout: float | None = None) -> Stream:
        opened.append(service)
        return real_open(service, timeout)

    monkeypatch.setattr(connection, "open_stream", counting_open)
    for index in range(12):
        (tmp_path / "many" / f"{index}.txt").parent.mkdir(exist_ok=True)
        (tmp_path / "many" / f"{index}.txt").write_bytes(pattern(index * 1000))
    result = sync.push(connection, str(tmp_path / "many"), "/data/local/tmp/many")
    assert len(result.transferred) == 12
    assert opened.count("sync:") == 1
