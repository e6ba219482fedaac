"""sync: STAT/LST2/STA2, LIST/LIS2, SEND/SND2, RECV/RCV2 — formats, flags and FAIL texts.

Requests are built by hand here (adb 29 never sends SND2/RCV2), so these tests also pin the
wire layout of file_sync_protocol.h.
"""

from __future__ import annotations

import errno
import stat
import struct
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from adbwire.testing import DeviceFiles, DeviceOptions, SimulatedDevice
from tests.simulator.protocol_peer import HostPeer, online_peer
from tests.simulator.protocol_standin import StandinUserland, pattern
from tests.simulator.sync_peer import Sync

DeviceFactory = Callable[..., SimulatedDevice]
DRY_RUN = 0x80000000


@pytest.fixture
def device(sim_device_factory: DeviceFactory) -> SimulatedDevice:
    return sim_device_factory(DeviceOptions(accept_any_key=True), StandinUserland)


@pytest.fixture
def sync(device: SimulatedDevice) -> Iterator[Sync]:
    with HostPeer(device.address) as peer:
        peer.handshake()
        yield Sync(peer.open_ok("sync:"))


def test_stat_v1_is_lstat_with_zeros_on_error(sync: Sync, device: SimulatedDevice) -> None:
    device.files.write_bytes("/sdcard/a.txt", b"12345")
    device.files.set_mtime("/sdcard/a.txt", 1_500_000_000)
    assert sync.stat_v1("/sdcard/a.txt") == (b"STAT", 0o100644, 5, 1_500_000_000)
    assert stat.S_ISLNK(sync.stat_v1("/sdcard")[1])
    assert sync.stat_v1("/missing") == (b"STAT", 0, 0, 0)


def test_stat_v2_follows_and_lstat_v2_does_not(sync: Sync, device: SimulatedDevice) -> None:
    followed = sync.stat_v2(b"STA2", "/sdcard")
    link = sync.stat_v2(b"LST2", "/sdcard")
    assert followed[0] == 0 and stat.S_ISDIR(followed[3])
    assert link[0] == 0 and stat.S_ISLNK(link[3])
    st = device.files.stat("/storage/emulated/0")
    assert followed[1:3] == (st.dev, st.ino)


@pytest.mark.parametrize(
    ("path", "error"),
    [("/nope", errno.ENOENT), ("/data/local/tmp/f/below", errno.ENOTDIR)],
)
def test_stat_v2_carries_errno(sync: Sync, device: SimulatedDevice, path: str, error: int) -> None:
    device.files.write_bytes("/data/local/tmp/f", b"")
    fields = sync.stat_v2(b"STA2", path)
    assert fields == (error, *([0] * 10))


def test_huge_files_truncate_in_v1_only(sync: Sync, device: SimulatedDevice) -> None:
    size = 5 * 2**30 + 7
    device.files.make_sparse("/sdcard/huge.img", size)
    assert sync.stat_v1("/sdcard/huge.img")[2] == size & 0xFFFFFFFF
    assert sync.stat_v2(b"STA2", "/sdcard/huge.img")[7] == size
    assert sync.listing("/sdcard", v2=True)["huge.img"][7] == size


@pytest.mark.parametrize("v2", [False, True])
def test_list_includes_dots_and_lstats_entries(
    sync: Sync, device: SimulatedDevice, v2: bool
) -> None:
    device.files.write_bytes("/data/local/tmp/d/file", b"abc")
    device.files.mkdir("/data/local/tmp/d/sub")
    device.files.symlink("/data/local/tmp/d/link", "/data/local/tmp/d/file")
    entries = sync.listing("/data/local/tmp/d", v2=v2)
    assert set(entries) == {".", "..", "file", "sub", "link"}
    mode_index = 3 if v2 else 0
    assert stat.S_ISLNK(entries["link"][mode_index])
    assert stat.S_ISDIR(entries["."][mode_index]) and stat.S_ISDIR(entries[".."][mode_index])
    assert entries["file"][7 if v2 else 1] == 3
    assert sync.listing("/nope", v2=v2) == {}
    assert sync.listing("/data/local/tmp/d/file", v2=v2) == {}


def test_push_v1_writes_file_mode_and_mtime(sync: Sync, device: SimulatedDevice) -> None:
    data = pattern(300_000)
    assert sync.push_v1("/sdcard/dir/new/x.bin", data, mode=0o100640, mtime=1_234_567_890) == (
        b"OKAY",
        b"",
    )
    st = device.files.stat("/sdcard/dir/new/x.bin")
    # adbd copies the owner bits to group and other: 0640 becomes 0666.
    assert (st.size, stat.S_IMODE(st.mode), st.mtime) == (len(data), 0o666, 1_234_567_890)
    assert device.files.read_bytes("/sdcard/dir/new/x.bin") == data
    # The service goes on serving requests after a push.
    assert sync.stat_v1("/sdcard/dir/new/x.bin")[2] == len(data)


def test_push_replaces_an_existing_file(sync: Sync, device: SimulatedDevice) -> None:
    device.files.write_bytes("/data/local/tmp/f", b"old old old")
    assert sync.push_v1("/data/local/tmp/f", b"new")[0] == b"OKAY"
    assert device.files.read_bytes("/data/local/tmp/f") == b"new"


def test_push_to_read_only_fails_and_ends_the_service(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        sync = Sync(peer.open_ok("sync:"))
        assert sync.push_v1("/system/x", b"data") == (
            b"FAIL",
            b"couldn't create file: Read-only file system",
        )
        with pytest.raises(EOFError):
            sync.read(1)


def test_push_to_a_directory_fails(sync: Sync) -> None:
    assert sync.push_v1("/data/local/tmp", b"x") == (
        b"FAIL",
        b"couldn't create file: Is a directory",
    )


def test_push_without_comma(sync: Sync) -> None:
    sync.request(b"SEND", "/sdcard/nomode")
    assert sync.status() == (b"FAIL", b"missing , in ID_SEND_V1")


def test_push_bad_data_message(sync: Sync, device: SimulatedDevice) -> None:
    sync.request(b"SEND", "/sdcard/bad,33188")
    sync.stream.write(struct.pack("<4sI", b"JUNK", 0) + struct.pack("<4sI", b"DONE", 0))
    assert sync.status() == (b"FAIL", b"invalid data message")
    assert sync.stream.read_all() == b"", "a failed push ends the sync service"
    assert not device.files.exists("/sdcard/bad"), "the partial file is removed"


def test_push_when_full_reports_enospc(tmp_path: Path) -> None:
    files = DeviceFiles(tmp_path / "full", capacity_bytes=100_000)
    device = SimulatedDevice(
        DeviceOptions(accept_any_key=True), userland_factory=StandinUserland, files=files
    )
    with device, online_peer(device.address) as peer:
        sync = Sync(peer.open_ok("sync:"))
        assert sync.push_v1("/sdcard/big", pattern(200_000)) == (
            b"FAIL",
            b"write failed: No space left on device",
        )
        assert sync.stream.read_all() == b""
        assert not files.exists("/sdcard/big")


def test_push_symlink(sync: Sync, device: SimulatedDevice) -> None:
    sync.request(b"SEND", f"/data/local/tmp/ln,{stat.S_IFLNK | 0o777}")
    sync.send_data(b"/sdcard/target\0", 1_300_000_000)
    assert sync.status() == (b"OKAY", b"")
    assert device.files.readlink("/data/local/tmp/ln") == "/sdcard/target"
    assert device.files.stat("/data/local/tmp/ln", follow=False).mtime == 1_300_000_000


def test_pull_v1(sync: Sync, device: SimulatedDevice) -> None:
    data = pattern(3 * 1024 * 1024 + 5)
    device.files.write_bytes("/sdcard/p.bin", data)
    sync.request(b"RECV", "/sdcard/p.bin")
    chunks = list(sync.pull_chunks())
    assert {message_id for message_id, _ in chunks} == {b"DATA"}
    assert all(len(chunk) <= 65536 for _, chunk in chunks)
    assert b"".join(chunk for _, chunk in chunks) == data


def test_pull_empty_file(sync: Sync, device: SimulatedDevice) -> None:
    device.files.write_bytes("/sdcard/empty", b"")
    sync.request(b"RECV", "/sdcard/empty")
    assert list(sync.pull_chunks()) == []


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/sdcard/missing", b"open failed: No such file or directory"),
        ("/sdcard", b"read failed: Is a directory"),
    ],
)
def test_pull_failures(sync: Sync, path: str, message: bytes) -> None:
    sync.request(b"RECV", path)
    assert list(sync.pull_chunks()) == [(b"FAIL", message)]


def test_send_v2_and_recv_v2(sync: Sync, device: SimulatedDevice) -> None:
    data = pattern(200_000)
    sync.request(b"SND2", "/data/local/tmp/v2.bin")
    sync.stream.write(struct.pack("<4sII", b"SND2", 0o100600, 0))
    sync.send_data(data, 1_111_111_111)
    assert sync.status() == (b"OKAY", b"")
    st = device.files.stat("/data/local/tmp/v2.bin")
    assert (stat.S_IMODE(st.mode), st.mtime) == (0o666, 1_111_111_111)
    sync.request(b"RCV2", "/data/local/tmp/v2.bin")
    sync.stream.write(struct.pack("<4sI", b"RCV2", 0))
    assert b"".join(chunk for _, chunk in sync.pull_chunks()) == data


def test_send_v2_dry_run_writes_nothing(sync: Sync, device: SimulatedDevice) -> None:
    sync.request(b"SND2", "/data/local/tmp/dry")
    sync.stream.write(struct.pack("<4sII", b"SND2", 0o100644, DRY_RUN))
    sync.send_data(b"would be written", 1)
    assert sync.status() == (b"OKAY", b"")
    assert not device.files.exists("/data/local/tmp/dry")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (0x40, b"unknown flags: 64"),
        (0x40 | 4, b"unknown flags: 64"),
        (1 | 4, b"multiple compression flags received: 5"),
    ],
)
def test_send_v2_unsupported_flags(sync: Sync, flags: int, message: bytes) -> None:
    sync.request(b"SND2", "/data/local/tmp/z")
    sync.stream.write(struct.pack("<4sII", b"SND2", 0o100644, flags))
    assert sync.status() == (b"FAIL", message)


@pytest.mark.parametrize(
    ("flags", "message"),
    [(0x40, b"unknown flags: 64"), (2 | 4, b"multiple compression flags received: 6")],
)
def test_recv_v2_unsupported_flags(
    sync: Sync, device: SimulatedDevice, flags: int, message: bytes
) -> None:
    device.files.write_bytes("/sdcard/f", b"x")
    sync.request(b"RCV2", "/sdcard/f")
    sync.stream.write(struct.pack("<4sI", b"RCV2", flags))
    assert sync.status() == (b"FAIL", message)


def test_unknown_request_and_long_path(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        sync = Sync(peer.open_ok("sync:"))
        sync.request(b"WHAT", "/x")
        assert sync.status() == (b"FAIL", b"unknown command 54414857")
    with online_peer(device.address) as peer:
        sync = Sync(peer.open_ok("sync:"))
        sync.request(b"STAT", "/" + "a" * 1100)
        assert sync.status() == (b"FAIL", b"path too long")


def test_quit_closes_the_stream(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        stream = peer.open_ok("sync:")
        Sync(stream).request(b"QUIT", "")
        assert stream.read_all() == b""
