"""What the simulated device's file operations return and raise: FileStat and FsError.

Errors carry the Linux errno name and bionic's strerror text, because that text is what
adbd and toybox print ("couldn't create file: File name too long", "ls: x: Not a directory").
"""

from __future__ import annotations

import errno
import os
import stat as stat_module
from dataclasses import dataclass
from typing import Final

__all__ = ["FileStat", "FsError", "ParentDirError", "fs_error"]

STRERROR: Final = {
    "ENOENT": "No such file or directory",
    "EACCES": "Permission denied",
    "EROFS": "Read-only file system",
    "ENOTDIR": "Not a directory",
    "EISDIR": "Is a directory",
    "ENOSPC": "No space left on device",
    "EEXIST": "File exists",
    "ENOTEMPTY": "Directory not empty",
    "ELOOP": "Too many symbolic links encountered",
    "EINVAL": "Invalid argument",
    "EPERM": "Operation not permitted",
    "ENAMETOOLONG": "File name too long",
    "EBUSY": "Device or resource busy",
    "EXDEV": "Cross-device link",
    "EFBIG": "File too large",
    "EMLINK": "Too many links",
    "EIO": "I/O error",
}


class FsError(Exception):
    """A file operation failed the way it would on the device (errno name + strerror text)."""

    def __init__(self, errno_name: str, message: str, path: str) -> None:
        super().__init__(f"{path}: {message}")
        self.errno_name = errno_name
        self.message = message
        self.path = path

    @classmethod
    def of(cls, errno_name: str, path: str) -> FsError:
        return cls(errno_name, STRERROR.get(errno_name, errno_name), path)

    @property
    def errno(self) -> int:
        """The Linux errno number (what stat_v2 puts on the wire)."""
        return int(getattr(errno, self.errno_name, errno.EIO))


class ParentDirError(FsError):
    """Creating the missing parent directories of a new file failed (adbd's secure_mkdirs)."""


def fs_error(error: OSError, path: str, kind: type[FsError] = FsError) -> FsError:
    """The device's view of a host OSError on `path`."""
    name = errno.errorcode.get(error.errno or errno.EIO, "EIO")
    return kind(name, STRERROR.get(name, error.strerror or name), path)


@dataclass(frozen=True)
class FileStat:
    mode: int
    size: int
    mtime: int
    atime: int
    ctime: int
    uid: int
    gid: int
    dev: int
    ino: int
    nlink: int

    @classmethod
    def from_os(cls, st: os.stat_result) -> FileStat:
        return cls(
            mode=st.st_mode,
            size=st.st_size,
            mtime=int(st.st_mtime),
            atime=int(st.st_atime),
            ctime=int(st.st_ctime),
            uid=st.st_uid,
            gid=st.st_gid,
            dev=st.st_dev,
            ino=st.st_ino,
            nlink=st.st_nlink,
        )

    @property
    def is_dir(self) -> bool:
        return stat_module.S_ISDIR(self.mode)

    @property
    def is_file(self) -> bool:
        return stat_module.S_ISREG(self.mode)

    @property
    def is_symlink(self) -> bool:
        return stat_module.S_ISLNK(self.mode)
