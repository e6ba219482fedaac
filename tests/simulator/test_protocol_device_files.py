"""DeviceFiles (Seam 1): a device file tree confined to a host directory."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from adbwire.testing.device_files import DeviceFiles, FsError


@pytest.fixture
def files(tmp_path: Path) -> DeviceFiles:
    return DeviceFiles(tmp_path / "device")


def errno_of(call: object) -> str:
    assert callable(call)
    with pytest.raises(FsError) as caught:
        call()
    return caught.value.errno_name


def test_skeleton_and_sdcard_alias(files: DeviceFiles) -> None:
    assert files.stat("/data/local/tmp").is_dir
    files.write_bytes("/sdcard/Download/a.txt", b"hello")
    assert files.read_bytes("/storage/emulated/0/Download/a.txt") == b"hello"
    assert (
        files.host_path("/sdcard/Download/a.txt")
        == files.root / "storage/emulated/0/Download/a.txt"
    )
    # lstat sees the link, stat what it points to: as on a device.
    assert files.stat("/sdcard", follow=False).is_symlink
    assert files.stat("/sdcard").is_dir
    assert files.readlink("/sdcard") == "/storage/emulated/0"


@pytest.mark.parametrize(
    "path",
    ["/../../../etc/passwd", "/data/../../..", "/sdcard/../../../../.."],
)
def test_dot_dot_never_leaves_the_root(files: DeviceFiles, path: str) -> None:
    assert files.root in [files.host_path(path), *files.host_path(path).parents]


def test_symlinks_with_absolute_targets_stay_inside(files: DeviceFiles, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("host secret")
    files.symlink("/data/local/tmp/escape", str(outside))  # an absolute *device* path
    host = files.host_path("/data/local/tmp/escape")
    assert host == files.root / str(outside).lstrip("/")
    assert errno_of(lambda: files.read_bytes("/data/local/tmp/escape")) == "ENOENT"
    files.symlink("/data/local/tmp/up", "../../../../../..")
    assert files.host_path("/data/local/tmp/up") == files.root


def test_symlink_loops_are_eloop(files: DeviceFiles) -> None:
    files.symlink("/data/a", "/data/b")
    files.symlink("/data/b", "/data/a")
    assert errno_of(lambda: files.stat("/data/a")) == "ELOOP"
    assert files.stat("/data/a", follow=False).is_symlink


def test_relative_paths_are_rejected(files: DeviceFiles) -> None:
    assert errno_of(lambda: files.stat("data/local")) == "ENOENT"


def test_errors_carry_adbd_texts(files: DeviceFiles) -> None:
    with pytest.raises(FsError) as caught:
        files.stat("/nope")
    assert (caught.value.errno_name, caught.value.message, caught.value.path) == (
        "ENOENT",
        "No such file or directory",
        "/nope",
    )
    assert caught.value.errno == 2


def test_open_write_makes_parents_and_sets_mode(files: DeviceFiles) -> None:
    with files.open_write("/sdcard/new/deep/file.bin", 0o100640) as f:
        f.write(b"abc")
    st = files.stat("/sdcard/new/deep/file.bin")
    assert (st.size, stat.S_IMODE(st.mode), stat.S_ISREG(st.mode)) == (3, 0o640, True)
    assert files.stat("/sdcard/new/deep").is_dir


def test_open_write_truncates(files: DeviceFiles) -> None:
    files.write_bytes("/data/local/tmp/f", b"long old content")
    with files.open_write("/data/local/tmp/f", 0o644) as f:
        f.write(b"new")
    assert files.read_bytes("/data/local/tmp/f") == b"new"


def test_read_only_partitions(files: DeviceFiles) -> None:
    files.write_bytes("/system/build.prop", b"ro.x=1\n")  # set-up helpers may write there
    assert files.is_read_only("/system/build.prop")
    assert errno_of(lambda: files.open_write("/system/build.prop", 0o644)) == "EROFS"
    assert errno_of(lambda: files.open_write("/system/new/dir/x", 0o644)) == "EROFS"
    assert errno_of(lambda: files.remove("/system/build.prop")) == "EROFS"
    assert errno_of(lambda: files.mkdir("/vendor/x")) == "EROFS"
    assert errno_of(lambda: files.set_mtime("/system/build.prop", 0)) == "EROFS"
    assert files.read_bytes("/system/build.prop") == b"ro.x=1\n"


def test_read_only_through_a_link(files: DeviceFiles) -> None:
    files.symlink("/data/sys", "/system")
    assert errno_of(lambda: files.open_write("/data/sys/x", 0o644)) == "EROFS"


def test_type_errors(files: DeviceFiles) -> None:
    files.write_bytes("/data/local/tmp/file", b"x")
    assert errno_of(lambda: files.open_write("/data/local/tmp/file/child", 0o644)) == "ENOTDIR"
    assert errno_of(lambda: files.stat("/data/local/tmp/file/child")) == "ENOTDIR"
    assert errno_of(lambda: files.open_write("/data/local/tmp", 0o644)) == "EISDIR"
    assert errno_of(lambda: files.open_read("/data/local/tmp")) == "EISDIR"
    assert errno_of(lambda: files.open_read("/data/local/tmp/missing")) == "ENOENT"
    assert errno_of(lambda: files.mkdir("/data/local/tmp")) == "EEXIST"
    assert errno_of(lambda: files.mkdir("/data/x/y/z")) == "ENOENT"


def test_capacity_gives_enospc(tmp_path: Path) -> None:
    files = DeviceFiles(tmp_path / "small", capacity_bytes=10_000)
    files.write_bytes("/data/local/tmp/existing", b"x" * 4_000)
    with files.open_write("/data/local/tmp/new", 0o644) as f:
        f.write(b"y" * 5_000)
        with pytest.raises(FsError) as caught:
            f.write(b"y" * 1_001)
    assert caught.value.errno_name == "ENOSPC"
    assert caught.value.message == "No space left on device"
    # Overwriting a file frees its old size first.
    with files.open_write("/data/local/tmp/existing", 0o644) as f:
        f.write(b"z" * 5_000)


def test_listdir_is_sorted_and_lstats(files: DeviceFiles) -> None:
    for name in ("b", "a", "c"):
        files.write_bytes(f"/data/local/tmp/d/{name}", name.encode())
    files.symlink("/data/local/tmp/d/link", "/nowhere")
    entries = files.listdir("/data/local/tmp/d")
    assert [name for name, _ in entries] == ["a", "b", "c", "link"]
    assert entries[3][1].is_symlink
    assert errno_of(lambda: files.listdir("/data/local/tmp/d/a")) == "ENOTDIR"


def test_mkdir_remove_and_mtime(files: DeviceFiles) -> None:
    files.mkdir("/data/x/y", parents=True)
    files.write_bytes("/data/x/y/f", b"1")
    files.set_mtime("/data/x/y/f", 1_234_567_890)
    assert files.stat("/data/x/y/f").mtime == 1_234_567_890
    assert errno_of(lambda: files.remove("/data/x")) == "ENOTEMPTY"
    files.remove("/data/x", recursive=True)
    assert not files.exists("/data/x")
    assert errno_of(lambda: files.remove("/data/x")) == "ENOENT"


def test_remove_of_a_link_keeps_its_target(files: DeviceFiles) -> None:
    files.write_bytes("/data/target", b"keep")
    files.symlink("/data/link", "/data/target")
    files.remove("/data/link")
    assert files.read_bytes("/data/target") == b"keep"


def test_sparse_files_report_their_size(files: DeviceFiles) -> None:
    files.make_sparse("/sdcard/huge.bin", 5 * 2**30)
    assert files.stat("/sdcard/huge.bin").size == 5 * 2**30
    assert os.stat(files.host_path("/sdcard/huge.bin")).st_blocks < 1024
