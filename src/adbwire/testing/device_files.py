"""The simulated device's file tree, kept in a real host directory (memory stays constant).

Device paths are absolute POSIX paths, resolved here component by component as Linux's
path_resolution(7) does: symbolic links are followed (absolute targets taken relative to the
tree's root, so no path, however many `..` or links it holds, ever reaches outside it), a
name longer than 255 bytes is ENAMETOOLONG, and a trailing slash names a directory: `link/`
follows the link even where the last link would not be followed. `/sdcard` is a link to
`/storage/emulated/0`, as on a real device, so `lstat` and `stat` differ there too. Every
failure is an FsError with the device's errno, never a host OSError.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import os
import shutil
import stat as stat_module
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Concatenate, Final, ParamSpec, Protocol, TypeVar

from adbwire.testing.fs_types import FileStat, FsError, ParentDirError, fs_error

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["DeviceFiles", "FileStat", "FsError", "Ownership", "ParentDirError"]

MAX_SYMLINK_HOPS: Final = 40
NAME_MAX: Final = 255
PATH_MAX: Final = 4096
SDCARD: Final = "/sdcard"
PRIMARY_STORAGE: Final = "/storage/emulated/0"
SKELETON: Final = ("/data/local/tmp", PRIMARY_STORAGE, "/system", "/vendor")

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _device_errors(
    method: Callable[Concatenate[DeviceFiles, str, _P], _R],
) -> Callable[Concatenate[DeviceFiles, str, _P], _R]:
    """Whatever host OSError a method meets becomes the device's FsError for its path."""

    @functools.wraps(method)
    def wrapper(self: DeviceFiles, device_path: str, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(self, device_path, *args, **kwargs)
        except OSError as error:
            raise fs_error(error, device_path) from error

    return wrapper


def _byte_length(text: str) -> int:
    return len(text.encode("utf-8", errors="surrogateescape"))


def names_directory(device_path: str) -> bool:
    """Whether the path ends in a slash (after a name): Linux then wants a directory."""
    return device_path.endswith("/") and bool(device_path.strip("/"))


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
            raise fs_error(error, self.device_path) from error
        return written


class Ownership(Protocol):
    """Who owns each file: the host's owners mean nothing on the device (the userland's)."""

    def owner_of(self, canonical: str) -> tuple[int, int] | None: ...

    def created(self, canonical: str) -> None: ...

    def moved(self, old: str, new: str) -> None: ...

    def removed(self, canonical: str) -> None: ...


class DeviceFiles:
    """The device's file tree, backed by a real host directory (so memory stays constant)."""

    ownership: Ownership | None = None
    """Set by the userland: uid/gid in every stat, recorded as files are made."""

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

    @_device_errors
    def resolve(self, device_path: str, *, follow: bool = True) -> str:
        """The canonical device path, with every symlink (but maybe the last) resolved."""
        if not device_path.startswith("/"):
            raise FsError.of("ENOENT", device_path)
        if "\0" in device_path:
            raise FsError.of("EINVAL", device_path)
        if _byte_length(device_path) >= PATH_MAX:
            raise FsError.of("ENAMETOOLONG", device_path)
        parts = [part for part in device_path.split("/") if part]
        if names_directory(device_path):
            parts.append(".")  # "name/" is "name/.": a link there is followed
        pending = parts[::-1]
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
            if _byte_length(name) > NAME_MAX:
                raise FsError.of("ENAMETOOLONG", device_path)
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

    @_device_errors
    def stat(self, device_path: str, *, follow: bool = True) -> FileStat:
        """stat(2), or lstat(2) with follow=False (but `link/` is always followed)."""
        canonical = self.resolve(device_path, follow=follow)
        return self._owned(canonical, FileStat.from_os(self._host(canonical).lstat()))

    def _owned(self, canonical: str, st: FileStat) -> FileStat:
        owner = self.ownership.owner_of(canonical) if self.ownership is not None else None
        return st if owner is None else dataclasses.replace(st, uid=owner[0], gid=owner[1])

    def exists(self, device_path: str, *, follow: bool = True) -> bool:
        try:
            self.stat(device_path, follow=follow)
        except FsError:
            return False
        return True

    @_device_errors
    def listdir(self, device_path: str) -> list[tuple[str, FileStat]]:
        canonical = self.resolve(device_path)
        host = self._host(canonical)
        entries: list[tuple[str, FileStat]] = []
        for name in sorted(os.listdir(host)):
            try:
                st = FileStat.from_os((host / name).lstat())
                entries.append((name, self._owned(f"{canonical.rstrip('/')}/{name}", st)))
            except OSError:
                continue  # vanished meanwhile
        return entries

    def iter_dir(self, device_path: str) -> Iterator[tuple[str, FileStat]]:
        """listdir's entries one by one (sync LIST streams them; a subclass may never end)."""
        return iter(self.listdir(device_path))

    @_device_errors
    def readlink(self, device_path: str) -> str:
        return os.readlink(self.host_path(device_path, follow=False))

    def read_bytes(self, device_path: str) -> bytes:
        with self.open_read(device_path) as f:
            return f.read()

    def usage_bytes(self) -> int:
        """Logical size of every regular file in the tree (what capacity_bytes limits)."""
        return sum(size for size in self._file_sizes())

    def _file_sizes(self) -> Iterator[int]:
        for directory, _dirs, files in os.walk(self.root):
            for name in files:
                try:
                    st = os.lstat(os.path.join(directory, name))
                except OSError:
                    continue
                if stat_module.S_ISREG(st.st_mode):
                    yield st.st_size

    # ---- reading and writing -----------------------------------------------------------

    @_device_errors
    def open_read(self, device_path: str) -> BinaryIO:
        host = self.host_path(device_path)
        if host.is_dir():
            raise FsError.of("EISDIR", device_path)
        return open(host, "rb")

    @_device_errors
    def open_write(self, device_path: str, mode: int) -> BinaryIO:
        """Create or truncate a file, making missing parent directories first (adbd's
        fixed_push_mkdir). Failing to make them raises ParentDirError."""
        canonical = self.resolve(device_path)
        host = self._host(canonical)
        if host.is_dir() or names_directory(device_path):
            raise FsError.of("EISDIR", device_path)
        parent_missing = not host.parent.is_dir()
        if self._under_read_only(canonical):
            raise (ParentDirError if parent_missing else FsError).of("EROFS", device_path)
        if parent_missing:
            self._make_parents(host, device_path)
        budget: int | None = None
        with self._lock:
            if self.capacity_bytes is not None:
                current = host.stat().st_size if host.is_file() else 0
                budget = max(0, self.capacity_bytes - (self.usage_bytes() - current))
            file = _CappedFile(host, device_path, budget)
        try:
            os.chmod(host, stat_module.S_IMODE(mode))
        except OSError:
            file.close()
            raise
        if self.ownership is not None:
            self.ownership.created(canonical)
        return file

    def write_file(self, device_path: str, data: bytes, mode: int = 0o100666) -> None:
        """Write a whole file as a device process would (read-only partitions refuse)."""
        with self.open_write(device_path, mode) as file:
            file.write(data)

    def _make_parents(self, host: Path, device_path: str) -> None:
        try:
            host.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as error:
            raise ParentDirError.of("ENOTDIR", device_path) from error
        except OSError as error:
            raise fs_error(error, device_path, ParentDirError) from error

    @_device_errors
    def set_mtime(self, device_path: str, mtime: int) -> None:
        """Set atime and mtime of the path itself (a link is not followed, like lutimes)."""
        host = self._writable_host_path(device_path, follow=False)
        os.utime(host, (mtime, mtime), follow_symlinks=False)

    @_device_errors
    def chmod(self, device_path: str, mode: int) -> None:
        os.chmod(self._writable_host_path(device_path), stat_module.S_IMODE(mode))

    @_device_errors
    def mkdir(self, device_path: str, *, parents: bool = False) -> None:
        host = self._writable_host_path(device_path)
        existed = host.exists()
        try:
            host.mkdir(parents=parents, exist_ok=parents)
        except FileExistsError as error:
            raise FsError.of("EEXIST", device_path) from error
        if parents and not host.is_dir():
            raise FsError.of("EEXIST", device_path)
        if self.ownership is not None and not existed:
            self.ownership.created(self.resolve(device_path))

    @_device_errors
    def remove(self, device_path: str, *, recursive: bool = False) -> None:
        """unlink(2) a file or link, rmdir(2) a directory (or remove a whole tree)."""
        if (
            names_directory(device_path)
            and self.stat(device_path.rstrip("/"), follow=False).is_symlink
        ):
            raise FsError.of("ENOTDIR", device_path)  # "link/" is the directory, not the link
        host = self._writable_host_path(device_path, follow=False)
        if host.is_symlink() or not host.is_dir():
            host.unlink()
        elif recursive:
            shutil.rmtree(host)
        else:
            host.rmdir()
        if self.ownership is not None:
            self.ownership.removed(self.resolve(device_path, follow=False))

    @_device_errors
    def rename(self, device_path: str, new_path: str) -> None:
        """rename(2): neither a link at `device_path` nor one at `new_path` is followed."""
        source = self._writable_host_path(device_path, follow=False)
        if not source.exists() and not source.is_symlink():
            raise FsError.of("ENOENT", device_path)
        try:
            target = self._writable_host_path(new_path, follow=False)
        except FsError as error:
            raise FsError(error.errno_name, error.message, device_path) from error
        os.rename(source, target)
        if self.ownership is not None:
            self.ownership.moved(
                self.resolve(device_path, follow=False), self.resolve(new_path, follow=False)
            )

    @_device_errors
    def symlink(self, device_path: str, target: str) -> None:
        """Create a symbolic link at device_path pointing to target (device semantics)."""
        if names_directory(device_path):
            raise FsError.of("EEXIST" if self.exists(device_path) else "ENOENT", device_path)
        canonical = self.resolve(device_path, follow=False)
        host = self._host(canonical)
        parent_missing = not host.parent.is_dir()
        if self._under_read_only(canonical):
            raise (ParentDirError if parent_missing else FsError).of("EROFS", device_path)
        if parent_missing:
            self._make_parents(host, device_path)
        os.symlink(target, host)
        if self.ownership is not None:
            self.ownership.created(canonical)

    # ---- scenario set-up helpers (they ignore read_only, as a system image would) -------

    @_device_errors
    def write_bytes(self, device_path: str, data: bytes, mode: int = 0o100644) -> None:
        host = self.host_path(device_path)
        self._make_parents(host, device_path)
        host.write_bytes(data)
        os.chmod(host, stat_module.S_IMODE(mode))

    @_device_errors
    def make_sparse(self, device_path: str, size: int) -> None:
        """A file of `size` bytes that takes no disk space (for >4 GiB stat_v2 tests)."""
        host = self.host_path(device_path)
        self._make_parents(host, device_path)
        with open(host, "wb") as f:
            f.truncate(size)
