"""DeviceFiles resolves paths as Linux does and fails only with FsError, never a host OSError.

Trailing slashes follow links (path_resolution(7)), names over NAME_MAX (255 bytes) and paths
over PATH_MAX are ENAMETOOLONG, a NUL is EINVAL, and every public operation maps whatever the
host says into the device's errno.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import pytest

from adbwire.testing.device_files import DeviceFiles, FsError, ParentDirError

TMP = "/data/local/tmp"
LONG = f"{TMP}/{'x' * 256}"


@pytest.fixture
def files(tmp_path: Path) -> DeviceFiles:
    return DeviceFiles(tmp_path / "device")


def errno_of(call: Callable[[], object]) -> str:
    with pytest.raises(FsError) as caught:
        call()
    return caught.value.errno_name


def test_a_trailing_slash_follows_the_last_link(files: DeviceFiles) -> None:
    assert files.stat("/sdcard", follow=False).is_symlink
    assert files.stat("/sdcard/", follow=False).is_dir
    assert files.resolve("/sdcard/", follow=False) == "/storage/emulated/0"
    files.write_bytes(f"{TMP}/file", b"x")
    files.symlink(f"{TMP}/to-file", f"{TMP}/file")
    assert errno_of(lambda: files.stat(f"{TMP}/file/")) == "ENOTDIR"
    assert errno_of(lambda: files.stat(f"{TMP}/to-file/", follow=False)) == "ENOTDIR"
    assert errno_of(lambda: files.stat(f"{TMP}/missing/")) == "ENOENT"


def test_dot_dot_after_a_link_is_physical(files: DeviceFiles) -> None:
    assert files.resolve("/sdcard/..") == "/storage/emulated"
    assert files.resolve("/sdcard/../../data/./local") == "/storage/data/local"


def test_removing_link_slash_keeps_the_directory(files: DeviceFiles) -> None:
    files.write_bytes("/sdcard/Download/keep.txt", b"keep")
    assert errno_of(lambda: files.remove("/sdcard/", recursive=True)) == "ENOTDIR"
    assert files.read_bytes("/sdcard/Download/keep.txt") == b"keep"
    assert files.stat("/sdcard", follow=False).is_symlink
    files.mkdir(f"{TMP}/empty")
    files.remove(f"{TMP}/empty/")
    assert not files.exists(f"{TMP}/empty")


def test_creating_name_slash_is_a_directory_error(files: DeviceFiles) -> None:
    assert errno_of(lambda: files.open_write(f"{TMP}/new/", 0o644)) == "EISDIR"
    assert not files.exists(f"{TMP}/new")
    files.mkdir(f"{TMP}/made/")
    assert files.stat(f"{TMP}/made").is_dir


def test_names_are_limited_in_bytes_not_characters(files: DeviceFiles) -> None:
    files.write_bytes(f"{TMP}/{'é' * 127}", b"254 bytes")
    assert files.exists(f"{TMP}/{'é' * 127}")
    assert errno_of(lambda: files.stat(f"{TMP}/{'é' * 128}")) == "ENAMETOOLONG"


def test_a_path_of_path_max_bytes_is_too_long(files: DeviceFiles) -> None:
    deep = "/data" + "/d" * 2046  # 4097 bytes of short names
    assert errno_of(lambda: files.stat(deep)) == "ENAMETOOLONG"
    assert errno_of(lambda: files.mkdir(deep, parents=True)) == "ENAMETOOLONG"


def test_a_nul_is_invalid(files: DeviceFiles) -> None:
    assert errno_of(lambda: files.stat(f"{TMP}/a\0b")) == "EINVAL"
    assert errno_of(lambda: files.open_write(f"{TMP}/a\0b", 0o644)) == "EINVAL"


OPERATIONS: dict[str, Callable[[DeviceFiles, str], object]] = {
    "stat": lambda f, p: f.stat(p),
    "lstat": lambda f, p: f.stat(p, follow=False),
    "listdir": lambda f, p: f.listdir(p),
    "readlink": lambda f, p: f.readlink(p),
    "open_read": lambda f, p: f.open_read(p),
    "read_bytes": lambda f, p: f.read_bytes(p),
    "open_write": lambda f, p: f.open_write(p, 0o644),
    "write_file": lambda f, p: f.write_file(p, b"x"),
    "write_bytes": lambda f, p: f.write_bytes(p, b"x"),
    "make_sparse": lambda f, p: f.make_sparse(p, 10),
    "set_mtime": lambda f, p: f.set_mtime(p, 0),
    "chmod": lambda f, p: f.chmod(p, 0o600),
    "mkdir": lambda f, p: f.mkdir(p),
    "mkdir -p": lambda f, p: f.mkdir(p, parents=True),
    "remove": lambda f, p: f.remove(p),
    "remove -r": lambda f, p: f.remove(p, recursive=True),
    "rename from": lambda f, p: f.rename(p, f"{TMP}/elsewhere"),
    "rename to": lambda f, p: f.rename(f"{TMP}/exists", p),
    "symlink": lambda f, p: f.symlink(p, "/sdcard"),
    "is_read_only": lambda f, p: f.is_read_only(p),
    "host_path": lambda f, p: f.host_path(p),
}


@pytest.mark.parametrize("operation", list(OPERATIONS))
@pytest.mark.parametrize("path", [LONG, f"{LONG}/below", f"{TMP}/ok/{'y' * 300}"])
def test_too_long_names_are_enametoolong_everywhere(
    files: DeviceFiles, operation: str, path: str
) -> None:
    files.write_bytes(f"{TMP}/exists", b"x")
    assert errno_of(lambda: OPERATIONS[operation](files, path)) == "ENAMETOOLONG"
    assert not files.exists(path)


@pytest.mark.parametrize("operation", list(OPERATIONS))
@pytest.mark.parametrize(
    "path", ["/data/loop", "/data/loop/x", f"{TMP}/file/x", f"{TMP}/full", "/system/x"]
)
def test_no_host_oserror_ever_escapes(files: DeviceFiles, operation: str, path: str) -> None:
    files.symlink("/data/loop", "/data/loop")
    files.write_bytes(f"{TMP}/file", b"x")
    files.write_bytes(f"{TMP}/exists", b"x")
    files.write_bytes(f"{TMP}/full/inside", b"x")
    with contextlib.suppress(FsError):  # anything else fails the test
        OPERATIONS[operation](files, path)


def test_rename_moves_without_following_links(files: DeviceFiles) -> None:
    files.write_bytes(f"{TMP}/a", b"A")
    files.rename(f"{TMP}/a", f"{TMP}/b")
    assert files.read_bytes(f"{TMP}/b") == b"A" and not files.exists(f"{TMP}/a")
    files.symlink(f"{TMP}/link", f"{TMP}/b")
    files.rename(f"{TMP}/link", f"{TMP}/link2")
    assert files.readlink(f"{TMP}/link2") == f"{TMP}/b"
    files.write_bytes(f"{TMP}/full/inside", b"x")
    files.mkdir(f"{TMP}/dir")
    assert errno_of(lambda: files.rename(f"{TMP}/dir", f"{TMP}/full")) == "ENOTEMPTY"
    assert errno_of(lambda: files.rename(f"{TMP}/b", f"{TMP}/full")) == "EISDIR"
    assert errno_of(lambda: files.rename(f"{TMP}/nope", f"{TMP}/c")) == "ENOENT"
    assert errno_of(lambda: files.rename(f"{TMP}/b", "/system/b")) == "EROFS"


def test_write_file_honours_read_only_partitions(files: DeviceFiles) -> None:
    with pytest.raises(FsError) as caught:
        files.write_file("/system/x", b"data")
    assert caught.value.errno_name == "EROFS"
    assert not files.exists("/system/x")
    files.write_file(f"{TMP}/x", b"data", 0o100640)
    assert files.read_bytes(f"{TMP}/x") == b"data"


def test_failing_to_make_parents_is_a_parent_dir_error(files: DeviceFiles) -> None:
    with pytest.raises(ParentDirError) as caught:
        files.open_write("/system/newdir/x", 0o644)
    assert caught.value.errno_name == "EROFS"
    files.write_bytes("/system/build.prop", b"")
    with pytest.raises(FsError) as plain:
        files.open_write("/system/build.prop", 0o644)
    assert not isinstance(plain.value, ParentDirError)
