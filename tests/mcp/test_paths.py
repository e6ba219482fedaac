"""Host paths stay inside the local root; device paths inside the allowed directories."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from adbwire.errors import UsageError
from adbwire.mcp.results.envelope import ErrorCode, ToolFailure
from adbwire.mcp.safety.paths import MAX_HOST_PATH, LocalRoot, check_device_path, open_new_file
from adbwire.mcp.safety.policy import DEFAULT_DEVICE_PATHS


def test_without_a_root_host_files_are_off() -> None:
    with pytest.raises(ToolFailure) as caught:
        LocalRoot(None).resolve("a.txt")
    assert caught.value.code is ErrorCode.HOST_FILES_DISABLED
    assert caught.value.message == (
        "host file access is off: the operator must start the server with --local-root DIR "
        "(or set files.local_root in the policy file)"
    )


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("../x", "'..' is not allowed"),
        ("a/../../x", "'..' is not allowed"),
        ("a/..", "'..' is not allowed"),
        ("..\\\\x", "'..' is not allowed"),
        ("/etc/passwd", "host paths are relative to the local root"),
        ("C:\\\\x", "host paths are relative to the local root"),
        ("c:x", "host paths are relative to the local root"),
    ],
)
def test_escapes_are_refused(tmp_path: Path, path: str, why: str) -> None:
    with pytest.raises(ToolFailure) as caught:
        LocalRoot(tmp_path).resolve(path)
    assert caught.value.code is ErrorCode.PATH_NOT_ALLOWED
    assert caught.value.message == f"host path {path!r}: {why}"


def test_a_refused_host_path_is_quoted_shortened_to_80_characters(tmp_path: Path) -> None:
    path = "/" + "a" * 120
    with pytest.raises(ToolFailure) as caught:
        LocalRoot(tmp_path).resolve(path)
    assert caught.value.message == (
        f"host path {path[:80]!r}: host paths are relative to the local root"
    )


def test_a_symlink_out_of_the_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "secret"
    outside.mkdir()
    os.symlink(outside, root / "link")
    with pytest.raises(ToolFailure) as caught:
        LocalRoot(root).resolve("link/key.pem")
    assert caught.value.message == (
        "host path 'link/key.pem': it resolves outside the local root (symlink)"
    )
    os.symlink(root / "inner", root / "ok-link")
    assert LocalRoot(root).resolve("ok-link/a") == (root / "inner" / "a").resolve()


@pytest.mark.parametrize("path", ["", "bad\nname", "x\0y", "del\x7f", "tab\tx", "\x1f"])
def test_malformed_host_paths(tmp_path: Path, path: str) -> None:
    with pytest.raises(UsageError) as caught:
        LocalRoot(tmp_path).resolve(path)
    assert str(caught.value) == "invalid host path: give a relative path like 'pulled/log.txt'"


def test_a_path_inside_the_root_resolves(tmp_path: Path) -> None:
    root = LocalRoot(tmp_path)
    assert root.resolve("sub/file.txt") == tmp_path.resolve() / "sub" / "file.txt"
    assert root.display(root.resolve("sub/file.txt")) == "sub/file.txt"


@pytest.mark.parametrize(
    "path", ["/sdcard", "/sdcard/Download/x.txt", "/storage/emulated/0/a", "/data/local/tmp/x"]
)
def test_allowed_device_paths(path: str) -> None:
    assert check_device_path(path, DEFAULT_DEVICE_PATHS) == path


@pytest.mark.parametrize(
    "path", ["/data/data/com.x/db", "/sdcardx/a", "/system/build.prop", "/data/local/tmpfoo", "/"]
)
def test_other_device_paths_are_refused(path: str) -> None:
    with pytest.raises(ToolFailure) as caught:
        check_device_path(path, DEFAULT_DEVICE_PATHS)
    assert caught.value.code is ErrorCode.PATH_NOT_ALLOWED
    assert caught.value.message == (
        f"{path} is outside the allowed device directories (/sdcard, /storage, /data/local/tmp)"
    )
    assert caught.value.details == {"allowed": ["/sdcard", "/storage", "/data/local/tmp"]}
    assert caught.value.message == (
        f"{path} is outside the allowed device directories (/sdcard, /storage, /data/local/tmp)"
    )
    assert caught.value.details == {"allowed": ["/sdcard", "/storage", "/data/local/tmp"]}


@pytest.mark.parametrize("path", ["relative", "/sdcard/../data/x", "/sdcard/a\nb"])
def test_malformed_device_paths(path: str) -> None:
    with pytest.raises(UsageError):
        check_device_path(path, DEFAULT_DEVICE_PATHS)


def test_host_paths_up_to_1024_characters(tmp_path: Path) -> None:
    root = LocalRoot(tmp_path)
    longest = "/".join(["d" * 200] * 5) + "/" + "f" * 19  # 1024 characters
    assert len(longest) == MAX_HOST_PATH == 1024
    assert root.resolve(longest) == tmp_path.resolve().joinpath(*longest.split("/"))
    with pytest.raises(UsageError, match="invalid host path"):
        root.resolve(longest + "x")


def test_a_name_over_255_bytes_is_refused_clearly(tmp_path: Path) -> None:
    """A host file system would refuse it later (ENAMETOOLONG) as an internal error."""
    root = LocalRoot(tmp_path)
    assert root.resolve("a/" + "n" * 255).name == "n" * 255
    assert root.resolve("é" * 127).name == "é" * 127  # 254 bytes
    for path, name in [
        ("n" * 256, "n" * 256),
        ("é" * 128, "é" * 128),
        ("ok/" + "m" * 256 + "/x", "m" * 256),
    ]:
        with pytest.raises(UsageError) as caught:
            root.resolve(path)
        assert str(caught.value) == (
            f"invalid host path: the name {name[:40]!r}... is longer than 255 bytes, which "
            "host file systems do not allow"
        )


def test_new_host_files_are_0644_and_never_follow_a_symlink(tmp_path: Path) -> None:
    previous = os.umask(0)
    try:
        descriptor = open_new_file(tmp_path / "shot.png")
    finally:
        os.umask(previous)
    os.close(descriptor)
    assert stat.S_IMODE((tmp_path / "shot.png").stat().st_mode) == 0o644
    with pytest.raises(FileExistsError):
        open_new_file(tmp_path / "shot.png")  # never replaces a file
    os.symlink(tmp_path / "elsewhere", tmp_path / "planted")
    with pytest.raises(FileExistsError):
        open_new_file(tmp_path / "planted")
    assert not (tmp_path / "elsewhere").exists()
    descriptor = open_new_file(tmp_path / "w.bin")
    try:
        assert os.write(descriptor, b"ok") == 2  # opened for writing
    finally:
        os.close(descriptor)
