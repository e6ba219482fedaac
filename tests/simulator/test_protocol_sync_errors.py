"""sync: requests on paths the device's kernel refuses: each one gets adbd's answer.

A name over 255 bytes (ENAMETOOLONG), a symlink loop (ELOOP), a file used as a directory
(ENOTDIR): STAT answers zeros, STA2/LST2 carry the errno, LIST/LIS2 end with DONE and the
service goes on; SEND/RECV answer FAIL with adbd's text and end it. A trailing slash makes
lstat follow a link, as Linux does.
"""

from __future__ import annotations

import errno
import stat
import struct
from collections.abc import Callable, Iterator

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice
from tests.simulator.protocol_peer import HostPeer
from tests.simulator.protocol_standin import StandinUserland
from tests.simulator.sync_peer import Sync

TMP = "/data/local/tmp"
LONG_NAME = "n" * 256
LONGEST_NAME = "n" * 255
LONG_PATHS = [
    f"{TMP}/{LONG_NAME}",
    f"{TMP}/{'é' * 128}",  # 128 characters, 256 bytes: the limit is in bytes
    f"{TMP}/{LONG_NAME}/below",
]


@pytest.fixture
def device(sim_device_factory: Callable[..., SimulatedDevice]) -> SimulatedDevice:
    return sim_device_factory(DeviceOptions(accept_any_key=True), StandinUserland)


@pytest.fixture
def sync(device: SimulatedDevice) -> Iterator[Sync]:
    with HostPeer(device.address) as peer:
        peer.handshake()
        yield Sync(peer.open_ok("sync:"))


def still_serving(sync: Sync) -> bool:
    return sync.stat_v2(b"STA2", TMP)[0] == 0


@pytest.mark.parametrize("path", LONG_PATHS)
def test_stat_of_a_too_long_name_carries_enametoolong(sync: Sync, path: str) -> None:
    assert sync.stat_v1(path) == (b"STAT", 0, 0, 0)
    assert sync.stat_v2(b"STA2", path) == (errno.ENAMETOOLONG, *([0] * 10))
    assert sync.stat_v2(b"LST2", path) == (errno.ENAMETOOLONG, *([0] * 10))
    assert still_serving(sync)


@pytest.mark.parametrize("v2", [False, True])
def test_listing_a_too_long_name_is_empty_and_the_service_goes_on(sync: Sync, v2: bool) -> None:
    assert sync.listing(LONG_PATHS[0], v2=v2) == {}
    assert still_serving(sync)


def test_255_bytes_is_still_a_name(sync: Sync, device: SimulatedDevice) -> None:
    assert sync.stat_v2(b"STA2", f"{TMP}/{LONGEST_NAME}")[0] == errno.ENOENT
    assert sync.push_v1(f"{TMP}/{LONGEST_NAME}", b"fits") == (b"OKAY", b"")
    assert device.files.read_bytes(f"{TMP}/{LONGEST_NAME}") == b"fits"


@pytest.mark.parametrize("path", LONG_PATHS)
def test_push_to_a_too_long_name_fails_like_adbd(sync: Sync, path: str) -> None:
    assert sync.push_v1(path, b"data") == (b"FAIL", b"couldn't create file: File name too long")
    assert sync.stream.read_all() == b"", "a failed push ends the sync service"


def test_push_v2_to_a_too_long_name_fails_like_adbd(sync: Sync) -> None:
    sync.request(b"SND2", LONG_PATHS[0])
    sync.stream.write(struct.pack("<4sII", b"SND2", 0o100644, 0))
    sync.send_data(b"data", 1)
    assert sync.status() == (b"FAIL", b"couldn't create file: File name too long")


@pytest.mark.parametrize("v2", [False, True])
def test_pull_of_a_too_long_name_fails_like_adbd(sync: Sync, v2: bool) -> None:
    sync.request(b"RCV2" if v2 else b"RECV", LONG_PATHS[0])
    if v2:
        sync.stream.write(struct.pack("<4sI", b"RCV2", 0))
    assert list(sync.pull_chunks()) == [(b"FAIL", b"open failed: File name too long")]


def test_a_symlink_loop_is_eloop(sync: Sync, device: SimulatedDevice) -> None:
    device.files.symlink(f"{TMP}/loop", f"{TMP}/loop")
    assert sync.stat_v2(b"STA2", f"{TMP}/loop")[0] == errno.ELOOP
    assert stat.S_ISLNK(sync.stat_v2(b"LST2", f"{TMP}/loop")[3])
    sync.request(b"RECV", f"{TMP}/loop")
    assert list(sync.pull_chunks()) == [
        (b"FAIL", b"open failed: Too many symbolic links encountered")
    ]


def test_a_trailing_slash_makes_lstat_follow_the_link(sync: Sync, device: SimulatedDevice) -> None:
    assert stat.S_ISLNK(sync.stat_v1("/sdcard")[1])
    assert stat.S_ISDIR(sync.stat_v1("/sdcard/")[1])
    assert stat.S_ISDIR(sync.stat_v2(b"LST2", "/sdcard/")[3])
    device.files.write_bytes(f"{TMP}/file", b"x")
    assert sync.stat_v1(f"{TMP}/file/") == (b"STAT", 0, 0, 0)
    assert sync.stat_v2(b"LST2", f"{TMP}/file/")[0] == errno.ENOTDIR


def test_making_a_missing_parent_fails_as_secure_mkdirs(sync: Sync) -> None:
    assert sync.push_v1("/system/newdir/x", b"data") == (
        b"FAIL",
        b"secure_mkdirs() failed: Read-only file system",
    )


def test_a_file_in_the_way_of_a_directory(sync: Sync, device: SimulatedDevice) -> None:
    device.files.write_bytes(f"{TMP}/file", b"x")
    assert sync.push_v1(f"{TMP}/file/x", b"data") == (
        b"FAIL",
        b"couldn't create file: Not a directory",
    )


def test_a_path_ends_at_its_first_nul_as_in_adbd(sync: Sync, device: SimulatedDevice) -> None:
    device.files.write_bytes(f"{TMP}/a.txt", b"12345")
    assert sync.stat_v2(b"STA2", f"{TMP}/a.txt\0/ignored")[7] == 5


@pytest.mark.parametrize("flags", [0, 4])  # raw, zstd
def test_a_data_message_over_64_kib_is_refused_like_adbd(
    sync: Sync, device: SimulatedDevice, flags: int
) -> None:
    sync.request(b"SND2", f"{TMP}/big")
    sync.stream.write(struct.pack("<4sII", b"SND2", 0o100644, flags))
    sync.stream.write(struct.pack("<4sI", b"DATA", 65537) + bytes(65537))
    assert sync.status() == (b"FAIL", b"oversize data message")
    assert sync.stream.read_all() == b"", "a failed push ends the sync service"
    assert not device.files.exists(f"{TMP}/big")
