"""The simulated device's file tree, kept in a real host directory (memory stays constant).

Device paths are absolute POSIX paths. Symbolic links inside the tree are resolved here,
component by component, with absolute targets taken relative to the tree's root: no path,
however many `..` or links it holds, ever reaches outside the root. `/sdcard` is such a link
to `/storage/emulated/0`, as on a real device, so `lstat` and `stat` differ there too.
"""

from __future__ import annotations

import errno
import io
import os
import shutil
import stat as stat_module
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Final

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["DeviceFiles", "FileStat", "FsError"]

MAX_SYMLINK_HOPS: Final = 40
SDCARD: Final = "/sdcard"
PRIMARY_STORAGE: Final = "/storage/emulated/0"
SKELETON: Final = ("/data/local/tmp", PRIMARY_STORAGE, "/system", "/vendor")

_MESSAGES: Final = {
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
        return cls(errno_name, _MESSAGES.get(errno_name, errno_name), path)

    @property
    def errno(self) -> int:
        """The Linux errno number (what stat_v2 puts on the wire)."""
        return int(getattr(errno, self.errno_name, errno.EIO))


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


def _fs_error(error: OSError, path: str) -> FsError:
    name = errno.errorcode.get(error.errno or errno.EIO, "EIO")
    return FsError(name, _MESSAGES.get(name, error.strerror or name), path)


class _CappedFile(io.FileIO):
    """A file opened for writing that raises ENOSPC once the device would be full."""

    def __init__(self, host: Path, device_path: str, budget: int | None) -> None:
        super().__init__(host, "wb")
        self.device_path = device_path
        self._budget = budget

    def write(self, data: ReadableBuffer, /) -> int:
        view = memoryview(data).cast("B")
        size = len(view)
        if self._budget is not None:
            if size > self._budget:
                raise FsError.of("ENOSPC", self.device_path)
            self._budget -= size
        written = 0
        try:
            while written < size:
                written += super().write(view[written:]) or 0
        except OSError as error:
            raise _fs_error(error, self.device_path) from error
        return written


class DeviceFiles:
    """The device's file tree, backed by a real host directory (so memory stays constant)."""

    def __init__(
        self,
        root: Path,
        *,
        read_only: Sequence[str] = ("/system", "/vendor", "/proc"),
        capacity_bytes: int | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        self.read_only = tuple(p.rstrip("/") or "/" for p in read_only)
        self.capacity_bytes = capacity_bytes
        self._lock = threading.Lock()
        self.root.mkdir(parents=True, exist_ok=True)
        for directory in SKELETON:
            (self.root / directory.lstrip("/")).mkdir(parents=True, exist_ok=True)
        sdcard = self.root / SDCARD.lstrip("/")
        if not sdcard.exists() and not sdcard.is_symlink():
            sdcard.symlink_to(PRIMARY_STORAGE)  # a device-absolute target: resolved by us only

    # ---- path resolution -------------------------------------------------------------

    def resolve(self, device_path: str, *, follow: bool = True) -> str:
        """The canonical device path, with every symlink (but maybe the last) resolved."""
        if not device_path.startswith("/"):
            raise FsError.of("ENOENT", device_path)
        pending = [part for part in reversed(device_path.split("/")) if part]
        resolved: list[str] = []
        hops = 0
        while pending:
            name = pending.pop()
            if name == ".":
                continue
            if name == "..":
                if resolved:
                    resolved.pop()
                continue
            candidate = [*resolved, name]
            host = self.root.joinpath(*candidate)
            if (pending or follow) and host.is_symlink():
                hops += 1
                if hops > MAX_SYMLINK_HOPS:
                    raise FsError.of("ELOOP", device_path)
                target = os.readlink(host)
                if target.startswith("/"):
                    resolved = []
                pending.extend(part for part in reversed(target.split("/")) if part)
                continue
            if pending and host.exists() and not host.is_dir():
                raise FsError.of("ENOTDIR", device_path)
            resolved = candidate
        return "/" + "/".join(resolved)

    def host_path(self, device_path: str, *, follow: bool = True) -> Path:
        """The host file behind a device path, confined to the root."""
        return self._host(self.resolve(device_path, follow=follow))

    def _host(self, canonical: str) -> Path:
        return self.root.joinpath(*[part for part in canonical.split("/") if part])

    def _under_read_only(self, canonical: str) -> bool:
        return any(
            prefix in ("/", canonical) or canonical.startswith(prefix + "/")
            for prefix in self.read_only
        )

    def is_read_only(self, device_path: str) -> bool:
        return self._under_read_only(self.resolve(device_path))

    def _writable_host_path(self, device_path: str, *, follow: bool = True) -> Path:
        canonical = self.resolve(device_path, follow=follow)
        if self._under_read_only(canonical):
            raise FsError.of("EROFS", device_path)
        return self._host(canonical)

    # ---- queries -----------------------------------------------------------------------

    def stat(self, device_path: str, *, follow: bool = True) -> FileStat:
        host = self.host_path(device_path, follow=follow)
        try:
            return FileStat.from_os(host.lstat())
        except OSError as error:
            raise _fs_error(error, device_path) from error

    def exists(self, device_path: str, *, follow: bool = True) -> bool:
        try:
            self.stat(device_path, follow=follow)
        except FsError:
            return False
        return True

    def listdir(self, device_path: str) -> list[tuple[str, FileStat]]:
        host = self.host_path(device_path)
        try:
            names = sorted(os.listdir(host))
        except OSError as error:
            raise _fs_error(error, device_path) from error
        entries: list[tuple[str, FileStat]] = []
        for name in names:
            try:
                entries.append((name, FileStat.from_os((host / name).lstat())))
            except OSError:
                continue  # vanished meanwhile
        return entries

    def readlink(self, device_path: str) -> str:
        host = self.host_path(device_path, follow=False)
        try:
            return os.readlink(host)
        except OSError as error:
            raise _fs_error(error, device_path) from error

    def read_bytes(self, device_path: str) -> bytes:
        with self.open_read(device_path) as f:
            return f.read()

    def usage_bytes(self) -> int:
        """Logical size of every regular file in the tree (what capacity_bytes limits)."""
        return sum(size for size in self._file_sizes())

    def _file_sizes(self) -> Iterator[int]:
        for directory, _dirs, files in os.walk(self.root):
            for name in files:
                path = os.path.join(directory, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                if stat_module.S_ISREG(st.st_mode):
                    yield st.st_size

    # ---- reading and writing -----------------------------------------------------------

    def open_read(self, device_path: str) -> BinaryIO:
        host = self.host_path(device_path)
        if host.is_dir():
            raise FsError.of("EISDIR", device_path)
        try:
            return open(host, "rb")
        except OSError as error:
            raise _fs_error(error, device_path) from error

    def open_write(self, device_path: str, mode: int) -> BinaryIO:
        """Create or truncate a file, making its parent directories first (fixed_push_mkdir)."""
        host = self._writable_host_path(device_path)
        if host.is_dir():
            raise FsError.of("EISDIR", device_path)
        self._make_parents(host, device_path)
        budget: int | None = None
        with self._lock:
            if self.capacity_bytes is not None:
                current = host.stat().st_size if host.is_file() else 0
                budget = max(0, self.capacity_bytes - (self.usage_bytes() - current))
            try:
                file = _CappedFile(host, device_path, budget)
            except OSError as error:
                raise _fs_error(error, device_path) from error
        os.chmod(host, stat_module.S_IMODE(mode))
        return file

    def _make_parents(self, host: Path, device_path: str) -> None:
        try:
            host.parent.mkdir(parents=True, exist_ok=True)
        except FileExistsError as error:
            raise FsError.of("ENOTDIR", device_path) from error
        except NotADirectoryError as error:
            raise FsError.of("ENOTDIR", device_path) from error
        except OSError as error:
            raise _fs_error(error, device_path) from error

    def set_mtime(self, device_path: str, mtime: int) -> None:
        """Set atime and mtime of the path itself (a link is not followed, like lutimes)."""
        host = self._writable_host_path(device_path, follow=False)
        try:
            os.utime(host, (mtime, mtime), follow_symlinks=False)
        except OSError as error:
            raise _fs_error(error, device_path) from error

    def chmod(self, device_path: str, mode: int) -> None:
        host = self._writable_host_path(device_path)
        try:
            os.chmod(host, stat_module.S_IMODE(mode))
        except OSError as error:
            raise _fs_error(error, device_path) from error

    def mkdir(self, device_path: str, *, parents: bool = False) -> None:
        host = self._writable_host_path(device_path)
        try:
            host.mkdir(parents=parents, exist_ok=parents)
        except FileExistsError as error:
            raise FsError.of("EEXIST", device_path) from error
        except FileNotFoundError as error:
            raise FsError.of("ENOENT", device_path) from error
        except NotADirectoryError as error:
            raise FsError.of("ENOTDIR", device_path) from error
        except OSError as error:
            raise _fs_error(error, device_path) from error
        if parents and not host.is_dir():
            raise FsError.of("EEXIST", device_path)

    def remove(self, device_path: str, *, recursive: bool = False) -> None:
        host = self._writable_host_path(device_path, follow=False)
        try:
            if host.is_symlink() or not host.is_dir():
                host.unlink()
            elif recursive:
                shutil.rmtree(host)
            else:
                host.rmdir()
        except FileNotFoundError as error:
            raise FsError.of("ENOENT", device_path) from error
        except OSError as error:
            raise _fs_error(error, device_path) from error

    def symlink(self, device_path: str, target: str) -> None:
        """Create a symbolic link at device_path pointing to target (device semantics)."""
        host = self._writable_host_path(device_path, follow=False)
        self._make_parents(host, device_path)
        try:
            os.symlink(target, host)
        except OSError as error:
            raise _fs_error(error, device_path) from error

    # ---- scenario set-up helpers (they ignore read_only, as a system image would) -------

    def write_bytes(self, device_path: str, data: bytes, mode: int = 0o100644) -> None:
        host = self.host_path(device_path)
        self._make_parents(host, device_path)
        host.write_bytes(data)
        os.chmod(host, stat_module.S_IMODE(mode))

    def make_sparse(self, device_path: str, size: int) -> None:
        """A file of `size` bytes that takes no disk space (for >4 GiB stat_v2 tests)."""
        host = self.host_path(device_path)
        self._make_parents(host, device_path)
        with open(host, "wb") as f:
            f.truncate(size)
