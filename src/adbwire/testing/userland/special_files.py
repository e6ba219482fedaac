"""Files that are not in the device's file tree: /dev/null, /dev/zero, /dev/(u)random, /proc.

Commands that read files (cat, dd, md5sum, head…) open them through `open_input`, and
`ls`, `stat` and `test` look them up through `stat_path`/`list_path`, so `dd if=/dev/zero`,
`cat /proc/uptime` and `[ -d /proc/$pid ]` work as they do on a device.
"""

from __future__ import annotations

import io
import os
from typing import TYPE_CHECKING, BinaryIO

from adbwire.testing.device_files import FileStat
from adbwire.testing.userland.procfs import is_proc, list_proc, read_proc, stat_proc

if TYPE_CHECKING:
    from adbwire.testing.userland.shell.interp import Shell

MAX_READ = 1 << 20


class _EndlessStream(io.RawIOBase):
    """An endless source: zero bytes, or random ones."""

    def __init__(self, *, random: bool) -> None:
        self._random = random

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        count = MAX_READ if size is None or size < 0 else min(size, MAX_READ)
        return os.urandom(count) if self._random else bytes(count)


def open_input(shell: Shell, operand: str) -> BinaryIO:
    """Open `operand` (relative to the shell's directory) for reading, device files or not."""
    path = shell.file_path(operand)
    if path == "/dev/null":
        return io.BytesIO(b"")
    if path == "/dev/zero":
        return _EndlessStream(random=False)  # type: ignore[return-value]
    if path in ("/dev/urandom", "/dev/random"):
        return _EndlessStream(random=True)  # type: ignore[return-value]
    if is_proc(path):
        return io.BytesIO(read_proc(shell, path))
    return shell.host.files.open_read(path)


def stat_path(shell: Shell, path: str, *, follow: bool = True) -> FileStat:
    """stat(2) of a resolved path, /proc included."""
    if is_proc(path):
        return stat_proc(shell, path)
    return shell.host.files.stat(path, follow=follow)


def list_path(shell: Shell, path: str) -> list[tuple[str, FileStat]]:
    """A directory's entries, /proc included."""
    if is_proc(path):
        return list_proc(shell, path)
    return shell.host.files.listdir(path)


def is_special(path: str) -> bool:
    return path in ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")
