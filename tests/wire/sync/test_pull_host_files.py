"""The host side of a pull: the modes files get (-a never keeps setuid/setgid/sticky), host
file system errors as the caller's errors naming the file, adb's destination rules at
their edges, and replies a device should not send."""

from __future__ import annotations

import importlib
import io
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adbwire.errors import RemoteProtocolError, UsageError
from adbwire.testing.hostile import ALL_SPECIAL_BITS, HostileFiles
from adbwire.testing.services import sync as sync_service
from adbwire.testing.services import sync_transfer
from adbwire.wire.services import sync
from adbwire.wire.services.sync import RemoteStat, SyncSession
from adbwire.wire.services.sync.codec import Expect, Okay, SyncEvent
from adbwire.wire.services.sync.pull_plan import PullJob
from adbwire.wire.services.sync.results import Ledger
from tests.simulator.hostile_helpers import hostile_device
from tests.wire.sync.conftest import SyncDevice

# `sync.pull` is the function; the module itself, for its helpers:
pull_module = importlib.import_module("adbwire.wire.services.sync.pull")


@pytest.fixture
def umask_027(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process umask is 027 for the test (and the cached value is read afresh)."""
    monkeypatch.setattr(pull_module, "_UMASK", [])
    previous = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_preserve_never_keeps_setuid_setgid_or_sticky(tmp_path: Path, umask_027: None) -> None:
    device_root, out = tmp_path / "device", tmp_path / "out"
    (device_root / "sdcard" / "bin").mkdir(parents=True)
    out.mkdir()
    tool = device_root / "sdcard" / "bin" / "tool"
    tool.write_bytes(b"#!/bin/sh\n")
    tool.chmod(0o755)
    files = HostileFiles(device_root, special_mode_bits=ALL_SPECIAL_BITS)
    with hostile_device(files=files) as (_device, client):
        reported = sync.stat(client.connection, "/sdcard/bin/tool").mode
        assert stat.S_IMODE(reported) == 0o7755  # what the device claims
        result = sync.pull(client.connection, "/sdcard/bin", str(out), preserve=True)
    assert result.ok, result.failed
    pulled = out / "bin" / "tool"
    assert _mode(pulled) == 0o750  # 0o7755 from the device, less the special bits and umask 027
    assert not pulled.stat().st_mode & (stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX)


def test_preserve_applies_the_umask_to_the_devices_mode(
    v2_device: SyncDevice, tmp_path: Path, umask_027: None
) -> None:
    v2_device.files.write_bytes("/sdcard/open.sh", b"x")
    v2_device.files.host_path("/sdcard/open.sh").chmod(0o777)
    v2_device.files.write_bytes("/sdcard/private", b"y")
    v2_device.files.host_path("/sdcard/private").chmod(0o600)
    os.utime(v2_device.files.host_path("/sdcard/private"), (1_500_000_000, 1_500_000_000))
    connection = v2_device.client.connection
    sync.pull(connection, ["/sdcard/open.sh", "/sdcard/private"], str(tmp_path), preserve=True)
    assert _mode(tmp_path / "open.sh") == 0o750  # 0777 & ~027, never 0777 | ~027
    assert _mode(tmp_path / "private") == 0o600
    assert int((tmp_path / "private").stat().st_mtime) == 1_500_000_000
    sync.pull(connection, "/sdcard/open.sh", str(tmp_path / "plain.sh"))
    assert _mode(tmp_path / "plain.sh") == 0o640  # without -a: 0644 & ~027


def test_without_preserve_files_are_0644_whatever_the_device_says(
    v2_device: SyncDevice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pull_module, "_UMASK", [])
    v2_device.files.write_bytes("/sdcard/run.sh", b"x")
    v2_device.files.host_path("/sdcard/run.sh").chmod(0o777)
    previous = os.umask(0)  # nothing masked: the mode is the one pull asks for
    try:
        sync.pull(v2_device.client.connection, "/sdcard/run.sh", str(tmp_path))
    finally:
        os.umask(previous)
    assert _mode(tmp_path / "run.sh") == 0o644


def test_the_umask_is_read_without_changing_it(
    monkeypatch: pytest.MonkeyPatch, umask_027: None
) -> None:
    assert pull_module._umask() == 0o027
    os.umask(0o077)  # read once per process, then kept
    try:
        assert pull_module._umask() == 0o027
    finally:
        os.umask(0o027)
    monkeypatch.setattr(pull_module, "_UMASK", [])

    def unreadable(*args: object, **kwargs: object) -> object:
        raise PermissionError("no /proc here")

    monkeypatch.setattr(pull_module, "open", unreadable, raising=False)
    assert pull_module._umask() == 0o027  # no /proc (macOS): a new file's mode tells it
    monkeypatch.setattr(pull_module, "_UMASK", [])
    monkeypatch.setattr(pull_module.tempfile, "gettempdir", lambda: "/nonexistent-adbwire")
    assert pull_module._umask() == 0o022  # the usual default when it cannot be read


def test_a_name_as_long_as_the_host_allows_is_pulled(v2_device: SyncDevice, tmp_path: Path) -> None:
    """The temporary name is shortened: `.NAME.XXXXXXXX.adbwire-part` would not fit."""
    name = "n" * 250
    v2_device.files.write_bytes(f"/sdcard/{name}", b"long")
    result = sync.pull(v2_device.client.connection, f"/sdcard/{name}", str(tmp_path))
    assert result.ok, result.failed
    assert [p.name for p in tmp_path.iterdir()] == [name]
    multibyte = "é" * 127  # 254 bytes
    v2_device.files.write_bytes(f"/sdcard/{multibyte}", b"accents")
    assert sync.pull(v2_device.client.connection, f"/sdcard/{multibyte}", str(tmp_path)).ok
    assert (tmp_path / multibyte).read_bytes() == b"accents"


def test_a_name_longer_than_the_host_allows_fails_naming_it(
    v2_device: SyncDevice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on a host file system with short names (eCryptfs allows 143 bytes)."""
    monkeypatch.setattr(pull_module, "_name_max", lambda directory: 143)
    v2_device.files.write_bytes("/sdcard/t/" + "a" * 143, b"fits")
    v2_device.files.write_bytes("/sdcard/t/" + "b" * 144, b"too long")
    result = sync.pull(v2_device.client.connection, "/sdcard/t", str(tmp_path / "t"))
    (failure,) = result.failed
    assert isinstance(failure.error, UsageError)
    assert str(failure.error) == (
        f"cannot create '{tmp_path / 't' / ('b' * 144)}': File name too long "
        "(this file system allows 143 bytes per name)"
    )
    assert [p.name for p in (tmp_path / "t").iterdir()] == ["a" * 143]


def test_the_name_limit_comes_from_the_host_file_system(tmp_path: Path) -> None:
    assert pull_module._name_max(str(tmp_path)) == os.pathconf(tmp_path, "PC_NAME_MAX")
    assert pull_module._name_max("") == os.pathconf(".", "PC_NAME_MAX")
    assert pull_module._name_max(str(tmp_path / "missing")) == pull_module.NAME_MAX


def test_a_local_name_too_long_is_a_usage_error_before_anything_moves(
    v2_device: SyncDevice, tmp_path: Path
) -> None:
    v2_device.files.write_bytes("/sdcard/f", b"1")
    with pytest.raises(UsageError, match="File name too long"):
        sync.pull(v2_device.client.connection, "/sdcard/f", str(tmp_path / ("x" * 300)))
    assert list(tmp_path.iterdir()) == []


def test_a_directory_in_the_way_of_a_file_fails_that_file_only(
    v2_device: SyncDevice, tmp_path: Path
) -> None:
    v2_device.files.write_bytes("/sdcard/d/f", b"file")
    v2_device.files.write_bytes("/sdcard/d/g", b"other")
    (tmp_path / "d" / "f").mkdir(parents=True)  # pulled into an existing directory
    (tmp_path / "d" / "g").write_bytes(b"old")
    result = sync.pull(v2_device.client.connection, "/sdcard/d", str(tmp_path))
    (failure,) = result.failed
    assert str(failure.error) == f"cannot write '{tmp_path / 'd' / 'f'}': Is a directory"
    assert (tmp_path / "d" / "g").read_bytes() == b"other"  # an existing file is replaced
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == ["f", "g"]  # no temp left
    assert list((tmp_path / "d" / "f").iterdir()) == []


def test_a_file_where_a_directory_must_go_fails_its_files_with_clear_errors(
    v2_device: SyncDevice, tmp_path: Path
) -> None:
    """As root, permissions do not stop a write; a file in the way of a path does."""
    v2_device.files.write_bytes("/sdcard/d/sub/x", b"x")
    v2_device.files.write_bytes("/sdcard/d/y", b"y")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "sub").write_bytes(b"a file")
    result = sync.pull(v2_device.client.connection, "/sdcard/d", str(tmp_path))
    errors = {f.source: str(f.error) for f in result.failed}
    sub, x = tmp_path / "d" / "sub", tmp_path / "d" / "sub" / "x"
    assert errors == {
        "/sdcard/d/sub": f"failed to create directory '{sub}': File exists",
        "/sdcard/d/sub/x": f"cannot create '{x}': Not a directory",
    }
    assert all(isinstance(f.error, UsageError) for f in result.failed)
    assert (tmp_path / "d" / "y").read_bytes() == b"y"
    assert sub.read_bytes() == b"a file"


def test_a_write_error_removes_the_temporary_file(
    v2_device: SyncDevice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    v2_device.files.write_bytes("/sdcard/f", b"data")

    def failing_utime(*args: object, **kwargs: object) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(pull_module.os, "utime", failing_utime)
    result = sync.pull(v2_device.client.connection, "/sdcard/f", str(tmp_path / "f"), preserve=True)
    (failure,) = result.failed
    assert str(failure.error) == f"cannot write '{tmp_path / 'f'}': Read-only file system"
    assert list(tmp_path.iterdir()) == []


def test_an_empty_source_list_is_refused(v2_device: SyncDevice, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"^pull needs at least one remote source$"):
        sync.pull(v2_device.client.connection, [], str(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_a_single_source_as_a_string_or_a_path_like_destination(
    v2_device: SyncDevice, tmp_path: Path
) -> None:
    v2_device.files.write_bytes("/sdcard/s.txt", b"s")
    result = sync.pull(v2_device.client.connection, "/sdcard/s.txt", tmp_path)
    assert [(t.source, t.destination) for t in result.transferred] == [
        ("/sdcard/s.txt", str(tmp_path / "s.txt"))
    ]


class _OffScriptSession(SyncSession):
    """A session whose device answers RECV with an OKAY (a reply no RECV can have)."""

    discarded = 0

    def send(self, data: object, what: str = "sync") -> None:
        pass

    def next_event(self, expect: Expect, what: str = "sync", **kwargs: object) -> SyncEvent:
        return Okay()

    def discard(self) -> None:
        self.discarded += 1
        super().discard()


def test_an_unexpected_reply_during_a_pull_is_a_protocol_error(
    v2_device: SyncDevice, tmp_path: Path
) -> None:
    session = _OffScriptSession(v2_device.client.connection)
    found = RemoteStat(mode=stat.S_IFREG | 0o644, size=4, mtime=0)
    job = PullJob("/sdcard/f", "/sdcard/f", str(tmp_path / "f"), found)
    with pytest.raises(RemoteProtocolError, match="unexpected Okay during pull of '/sdcard/f'"):
        pull_module.pull_to_path(session, job, Ledger("pull", None, None), preserve=False)
    assert session.discarded >= 1
    assert list(tmp_path.iterdir()) == []


def test_the_temporary_name_is_dot_name_hex_part_and_fits_the_host(
    v2_device: SyncDevice, tmp_path: Path
) -> None:
    """Seen from the progress callback, while the file is being written."""
    longest = os.pathconf(tmp_path, "PC_NAME_MAX")
    seen: list[list[str]] = []
    for name in ("photo.jpg", "n" * longest):
        v2_device.files.write_bytes(f"/sdcard/{name}", b"x" * 100_000)
        seen.clear()
        result = sync.pull(
            v2_device.client.connection,
            f"/sdcard/{name}",
            str(tmp_path),
            progress=lambda done, total: seen.append(os.listdir(tmp_path)),
        )
        assert result.ok, result.failed
        temps = {entry for listing in seen for entry in listing if entry != name}
        (temp,) = temps  # one temporary name, beside the destination
        kept = name[: longest - len(".adbwire-part") - 10]
        assert re.fullmatch(rf"\.{re.escape(kept)}\.[0-9a-f]{{8}}\.adbwire-part", temp), temp
        assert len(temp) <= longest
        assert os.listdir(tmp_path) == [name]
        os.unlink(tmp_path / name)
    assert len(temp) == longest  # the long name is cut exactly as far as needed


def test_pull_stream_totals_follow_links_to_their_file(v2_device: SyncDevice) -> None:
    v2_device.files.write_bytes("/sdcard/target.bin", b"t" * 5000)
    v2_device.files.symlink("/sdcard/link.bin", "/sdcard/target.bin")
    totals: list[int | None] = []
    sink = io.BytesIO()
    sync.pull_stream(
        v2_device.client.connection,
        "/sdcard/link.bin",
        sink,
        progress=lambda done, total: totals.append(total),
    )
    assert sink.getvalue() == b"t" * 5000
    assert set(totals) == {5000}  # the file's size, not the link's


def test_the_name_limit_of_the_current_directory_when_no_directory_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []

    def pathconf(path: str, name: str) -> int:
        asked.append(path)
        return 111

    monkeypatch.setattr(pull_module.os, "pathconf", pathconf)
    assert pull_module._name_max("") == 111
    assert pull_module._name_max("out") == 111
    assert asked == [".", "out"]


def test_rcv2_only_for_devices_that_announce_sendrecv_v2(
    sync_device: SyncDevice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The simulator would answer either; an adbd older than Android 11 knows only RECV."""
    requests: list[str] = []
    real_v1, real_v2 = sync_transfer.do_recv_v1, sync_transfer.do_recv_v2

    def recv_v1(*args: Any) -> bool:
        requests.append("RECV")
        return real_v1(*args)

    def recv_v2(*args: Any) -> bool:
        requests.append("RCV2")
        return real_v2(*args)

    monkeypatch.setattr(sync_service, "do_recv_v1", recv_v1)
    monkeypatch.setattr(sync_service, "do_recv_v2", recv_v2)
    sync_device.files.write_bytes("/sdcard/r.bin", b"r")
    assert sync.pull(sync_device.client.connection, "/sdcard/r.bin", str(tmp_path)).ok
    sync.pull_stream(sync_device.client.connection, "/sdcard/r.bin", io.BytesIO())
    expected = "RCV2" if sync_device.version == "v2" else "RECV"
    assert requests == [expected, expected]
