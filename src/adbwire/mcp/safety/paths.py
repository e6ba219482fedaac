"""Where file tools may read and write.

Host side: every host path is relative to the operator's ``--local-root``; it is resolved
(symlinks followed) and must stay inside the root, with no ``..`` and no absolute paths.
Without a local root, tools that touch host files refuse and say how to enable them.

Device side: push and pull only reach the allow-listed directories (``/sdcard``,
``/storage``, ``/data/local/tmp`` by default), checked on the path as given and on the path
the device resolves it to.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

from adbwire.device import validate
from adbwire.errors import UsageError
from adbwire.mcp.results.envelope import ErrorCode, ToolFailure

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
MAX_HOST_PATH = 1024
"""Longest host path an agent may give (characters, relative to the root)."""
MAX_HOST_NAME = 255
"""Longest single name in it (bytes): what ext4, APFS, NTFS and most others allow."""


class LocalRoot:
    def __init__(self, root: Path | None) -> None:
        self.root = root.resolve() if root is not None else None

    def require(self) -> Path:
        if self.root is None:
            raise ToolFailure(
                ErrorCode.HOST_FILES_DISABLED,
                "host file access is off: the operator must start the server with "
                "--local-root DIR (or set files.local_root in the policy file)",
            )
        return self.root

    def resolve(self, relative: str) -> Path:
        """The host path for `relative`, guaranteed inside the root (symlinks resolved)."""
        root = self.require()
        if not relative or len(relative) > MAX_HOST_PATH or _CONTROL.search(relative):
            raise UsageError("invalid host path: give a relative path like 'pulled/log.txt'")
        pure = PurePosixPath(relative.replace("\\", "/"))
        if pure.is_absolute() or re.match(r"^[A-Za-z]:", relative):
            raise _outside(relative, "host paths are relative to the local root")
        if ".." in pure.parts:
            raise _outside(relative, "'..' is not allowed")
        for part in pure.parts:
            if len(os.fsencode(part)) > MAX_HOST_NAME:
                raise UsageError(
                    f"invalid host path: the name {part[:40]!r}... is longer than "
                    f"{MAX_HOST_NAME} bytes, which host file systems do not allow"
                )
        candidate = root.joinpath(*pure.parts)
        resolved = candidate.resolve()
        if not resolved.is_relative_to(root):
            raise _outside(relative, "it resolves outside the local root (symlink)")
        return resolved

    def display(self, path: Path) -> str:
        """A host path as shown to the agent: relative to the root."""
        root = self.require()
        return path.relative_to(root).as_posix()


def open_new_file(path: Path) -> int:
    """Create `path` for writing, never following a symlink planted at the last moment."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    return os.open(path, flags, 0o644)


def check_device_path(path: str, allowed: tuple[str, ...]) -> str:
    """The normalised device path, if it is inside an allowed directory."""
    normalised = validate.device_path(path)
    if not validate.is_under(normalised, allowed):
        raise ToolFailure(
            ErrorCode.PATH_NOT_ALLOWED,
            f"{normalised} is outside the allowed device directories ({', '.join(allowed)})",
            {"allowed": list(allowed)},
        )
    return normalised


def _outside(relative: str, why: str) -> ToolFailure:
    return ToolFailure(ErrorCode.PATH_NOT_ALLOWED, f"host path {relative[:80]!r}: {why}")
