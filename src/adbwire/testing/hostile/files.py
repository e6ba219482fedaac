"""File-tree modes: a fan-out tree, a listing that never ends, and special mode bits.

`HostileFiles` is a `DeviceFiles` (pass it as `files=` to `SimulatedDevice` /
`running_device`); everything it does not fake is a real file tree, as usual:

- `fan_out_at="/sdcard/fanout"`: that directory and every directory below it lists
  `fan_out` more directories (`d0`, `d1`, …), without end, over sync STAT/LIST/LIS2/STA2/LST2
  and in the shell (`ls`, `stat`). None of it exists on the host.
- `endless_listing_at="/sdcard/endless"`: LIST/LIS2 of that directory sends regular-file
  entries (`entry00000000`, …) until the host closes the stream; DONE never comes.
- `special_mode_bits=S_ISUID | S_ISGID | S_ISVTX`: every regular file is reported with these
  bits set (`special_dir_mode_bits` for directories), whatever the host file's mode is.
"""

from __future__ import annotations

import itertools
import posixpath
import stat as stat_module
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, Final

from adbwire.testing.device_files import DeviceFiles
from adbwire.testing.fs_types import FileStat, FsError

__all__ = ["ALL_SPECIAL_BITS", "HostileFiles"]

ALL_SPECIAL_BITS: Final = stat_module.S_ISUID | stat_module.S_ISGID | stat_module.S_ISVTX
_FAKE_TIME: Final = 1714644900  # 2024-05-02 10:15:00 UTC
_SHELL_UID: Final = 2000
_MEDIA_RW_GID: Final = 1023


def _fake_stat(path: str, mode: int, size: int) -> FileStat:
    return FileStat(
        mode=mode,
        size=size,
        mtime=_FAKE_TIME,
        atime=_FAKE_TIME,
        ctime=_FAKE_TIME,
        uid=_SHELL_UID,
        gid=_MEDIA_RW_GID,
        dev=0xFD00,
        ino=zlib.crc32(path.encode("utf-8", errors="surrogateescape")),
        nlink=2 if stat_module.S_ISDIR(mode) else 1,
    )


def _normal(device_path: str) -> str:
    return "/" + posixpath.normpath(device_path).lstrip("/")


class HostileFiles(DeviceFiles):
    """A device file tree with hostile parts (see the module docstring)."""

    def __init__(
        self,
        root: Path,
        *,
        fan_out_at: str | None = None,
        fan_out: int = 2,
        endless_listing_at: str | None = None,
        special_mode_bits: int = 0,
        special_dir_mode_bits: int = 0,
        read_only: Sequence[str] = ("/system", "/vendor", "/proc"),
        capacity_bytes: int | None = None,
    ) -> None:
        super().__init__(root, read_only=read_only, capacity_bytes=capacity_bytes)
        if fan_out < 1:
            raise ValueError("fan_out must be at least 1")
        self.fan_out = fan_out
        self.special_mode_bits = special_mode_bits & ALL_SPECIAL_BITS
        self.special_dir_mode_bits = special_dir_mode_bits & ALL_SPECIAL_BITS
        self._fan_roots = self._anchor(fan_out_at)
        self._endless = self._anchor(endless_listing_at)

    def _anchor(self, device_path: str | None) -> frozenset[str]:
        """The directory as given and as canonical path (a real, empty directory, so that
        its parent lists it)."""
        if device_path is None:
            return frozenset()
        given = _normal(device_path)
        self.host_path(given).mkdir(parents=True, exist_ok=True)
        return frozenset({given, self.resolve(given)})

    def _in_fan_out(self, device_path: str) -> bool:
        path = _normal(device_path)
        return any(path == root or path.startswith(root + "/") for root in self._fan_roots)

    def _is_endless(self, device_path: str) -> bool:
        return _normal(device_path) in self._endless

    def _reported(self, st: FileStat) -> FileStat:
        extra = 0
        if st.is_file:
            extra = self.special_mode_bits
        elif st.is_dir:
            extra = self.special_dir_mode_bits
        if not extra:
            return st
        return FileStat(
            mode=st.mode | extra,
            size=st.size,
            mtime=st.mtime,
            atime=st.atime,
            ctime=st.ctime,
            uid=st.uid,
            gid=st.gid,
            dev=st.dev,
            ino=st.ino,
            nlink=st.nlink,
        )

    def stat(self, device_path: str, *, follow: bool = True) -> FileStat:
        if self._in_fan_out(device_path):
            return _fake_stat(_normal(device_path), stat_module.S_IFDIR | 0o771, 3452)
        return self._reported(super().stat(device_path, follow=follow))

    def listdir(self, device_path: str) -> list[tuple[str, FileStat]]:
        if self._in_fan_out(device_path):
            base = _normal(device_path)
            return [
                (name, _fake_stat(f"{base}/{name}", stat_module.S_IFDIR | 0o771, 3452))
                for name in (f"d{index}" for index in range(self.fan_out))
            ]
        return [(name, self._reported(st)) for name, st in super().listdir(device_path)]

    def iter_dir(self, device_path: str) -> Iterator[tuple[str, FileStat]]:
        if not self._is_endless(device_path):
            return super().iter_dir(device_path)
        base = _normal(device_path)
        mode = stat_module.S_IFREG | 0o660 | self.special_mode_bits
        return (
            (name, _fake_stat(f"{base}/{name}", mode, 4096))
            for name in (f"entry{index:08d}" for index in itertools.count())
        )

    def open_read(self, device_path: str) -> BinaryIO:
        if self._in_fan_out(device_path):
            raise FsError.of("EISDIR", device_path)
        return super().open_read(device_path)
