"""Host paths stay inside the local root; device paths inside the allowed directories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adbwire.errors import UsageError
from adbwire.mcp.envelope import ErrorCode, ToolFailure
from adbwire.mcp.paths import LocalRoot, check_device_path
from adbwire.mcp.policy import DEFAULT_DEVICE_PATHS


def test_without_a_root_host_files_are_off() -> None:
    with pytest.raises(ToolFailure) as caught:
        LocalRoot(None).resolve("a.txt")
    assert caught.value.code is ErrorCode.HOST_FILES_DISABLED
    assert "--local-root" in caught.value.message


@pytest.mark.parametrize("path", ["../x", "a/../../x", "/etc/passwd", "C:\\\\x", "a/..", "..\\\\x"])
def test_escapes_are_refused(tmp_path: Path, path: str) -> None:
    with pytest.raises(ToolFailure) as caught:
        LocalRoot(tmp_path).resolve(path)
    assert caught.value.code is ErrorCode.PATH_NOT_ALLOWED


def test_a_symlink_out_of_the_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "secret"
    outside.mkdir()
    os.symlink(outside, root / "link")
    with pytest.raises(ToolFailure) as caught:
        LocalRoot(root).resolve("link/key.pem")
    assert "symlink" in caught.value.message
    os.symlink(root / "inner", root / "ok-link")
    assert LocalRoot(root).resolve("ok-link/a") == (root / "inner" / "a").resolve()


@pytest.mark.parametrize("path", ["", "bad\nname", "x\0y"])
def test_malformed_host_paths(tmp_path: Path, path: str) -> None:
    with pytest.raises(UsageError):
        LocalRoot(tmp_path).resolve(path)


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


@pytest.mark.parametrize("path", ["relative", "/sdcard/../data/x", "/sdcard/a\nb"])
def test_malformed_device_paths(path: str) -> None:
    with pytest.raises(UsageError):
        check_device_path(path, DEFAULT_DEVICE_PATHS)
