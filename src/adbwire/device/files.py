"""Device files: list, stat, resolve links, and bounded transfers to and from host files.

Transfers are capped while the bytes flow (a file that grows past the cap mid-transfer is
cut off and the transfer fails), and a pull never leaves a partial file under its final
name: it is written next to it under a temporary name and renamed when complete.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from adbwire.device import commands, output_cap
from adbwire.device.errors import AlreadyExistsError, NotFoundError, TooLargeError
from adbwire.errors import AdbwireError, SyncFailError, UsageError
from adbwire.wire.client import AdbClient
from adbwire.wire.services import sync
from adbwire.wire.services.sync import DirEntry, RemoteStat

Progress = Callable[[int, "int | None"], None]


@dataclass(frozen=True)
class Entry:
    name: str
    kind: str
    """file, dir, link or other."""
    size: int
    mode: int
    mtime: int


def kind_of(stat: RemoteStat) -> str:
    if stat.is_dir:
        return "dir"
    if stat.is_file:
        return "file"
    return "link" if stat.is_symlink else "other"


def list_dir(client: AdbClient, path: str) -> list[Entry]:
    entries: list[DirEntry] = client.list_dir(path, max_output=output_cap.current())
    return sorted(
        (
            Entry(e.name, kind_of(e.stat), e.stat.size, e.stat.permissions, e.stat.mtime)
            for e in entries
        ),
        key=lambda e: e.name,
    )


def stat(client: AdbClient, path: str, *, follow: bool = True) -> RemoteStat:
    try:
        return client.stat(path, follow=follow)
    except SyncFailError as exc:
        if "No such file" in exc.device_message:
            raise NotFoundError(f"{path}: no such file or directory") from None
        raise


def exists(client: AdbClient, path: str) -> bool:
    return client.exists(path)


def is_dir(client: AdbClient, path: str) -> bool:
    try:
        return client.stat(path).is_dir
    except SyncFailError:
        return False


def resolve(client: AdbClient, path: str) -> str | None:
    """The path with every symlink resolved (toybox realpath / readlink -f), or None when
    the device has neither tool."""
    for argv in (["realpath", path], ["readlink", "-f", path]):
        result = commands.run(client, argv)
        if result.exit_code == 0:
            resolved = commands.decode(result.stdout).strip()
            if resolved.startswith("/"):
                return resolved
        elif result.exit_code != 127:  # it exists but failed: say so
            raise NotFoundError(
                f"{path}: cannot resolve ({commands.decode(result.stderr).strip()})"
            )
    return None


def symlink_below(client: AdbClient, path: str, root: str) -> str | None:
    """The first component of `path` below `root` that is a symlink, if any (for devices
    without realpath: such paths are refused rather than guessed)."""
    current = root.rstrip("/")
    for part in path[len(current) :].strip("/").split("/"):
        if not part:
            continue
        current = f"{current}/{part}"
        try:
            if client.lstat(current).is_symlink:
                return current
        except SyncFailError:
            return None  # missing from here on: nothing to follow
    return None


class _CappedSink:
    def __init__(self, file: BinaryIO, cap: int, what: str) -> None:
        self.file = file
        self.cap = cap
        self.what = what
        self.written = 0

    def write(self, data: bytes | memoryview) -> int:
        self.written += len(data)
        if self.written > self.cap:
            raise TooLargeError(f"{self.what} grew past the {self.cap}-byte cap during the pull")
        return self.file.write(data)


def pull_to_file(
    client: AdbClient,
    remote: str,
    destination: Path,
    *,
    cap: int,
    overwrite: bool = False,
    progress: Progress | None = None,
    min_rate: float | None = None,
    rate_grace: float = sync.DEFAULT_RATE_GRACE,
) -> int:
    """Copy a device file to `destination` (complete or not at all); returns its size.

    With `min_rate` (bytes/s) the pull must keep up that average after `rate_grace`
    seconds, so a device that trickles data cannot hold the call open (AdbTimeoutError).
    A host file system error (a name too long, a parent that is a file) is a UsageError
    naming the file.
    """
    info = stat(client, remote)
    if not info.is_file:
        raise UsageError(f"{remote} is a {kind_of(info)}, not a file")
    if info.size > cap:
        raise TooLargeError(f"{remote} is {info.size} bytes, over the {cap}-byte transfer cap")
    try:
        if destination.exists() and (destination.is_dir() or not overwrite):
            raise AlreadyExistsError(
                f"{destination.name} exists (pass overwrite to replace a file)"
            )
        _make_parents(destination)
        staging = destination.with_name(f".{_cut(destination.name)}.{secrets.token_hex(4)}.partial")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(staging, flags, 0o644)
    except OSError as exc:
        raise host_file_error(destination, exc) from exc
    try:
        with os.fdopen(fd, "wb") as file:
            sink = _CappedSink(file, cap, remote)
            client.pull_stream(
                remote,
                sink,  # type: ignore[arg-type]
                progress=progress,
                min_rate=min_rate,
                rate_grace=rate_grace,
            )
            file.flush()
            os.fsync(file.fileno())
        os.replace(staging, destination)
    except OSError as exc:
        if isinstance(exc, AdbwireError):  # AdbTimeoutError is a TimeoutError, an OSError
            raise
        raise host_file_error(destination, exc) from exc
    finally:
        with contextlib.suppress(OSError):
            staging.unlink()
    return sink.written


def _make_parents(destination: Path) -> None:
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UsageError(
            f"cannot write the host file {_cut(destination.name, 80)!r}: a file is in the way "
            "of its directory"
        ) from None


def host_file_error(path: Path, exc: OSError) -> UsageError:
    """A host file system failure, as the caller's error naming the file (not a bug)."""
    return UsageError(f"cannot write the host file {_cut(path.name, 80)!r}: {exc.strerror or exc}")


def _cut(name: str, size: int = 200) -> str:
    """At most `size` bytes of `name` (staging names must fit where the name fits)."""
    return os.fsencode(name)[:size].decode("utf-8", "ignore")


class _CappedSource:
    def __init__(self, file: BinaryIO, cap: int, what: str) -> None:
        self.file = file
        self.cap = cap
        self.what = what
        self.read_so_far = 0
        self.name = what

    def read(self, size: int = -1) -> bytes:
        data = self.file.read(size)
        self.read_so_far += len(data)
        if self.read_so_far > self.cap:
            raise TooLargeError(f"{self.what} grew past the {self.cap}-byte cap during the push")
        return data


def push_from_file(
    client: AdbClient,
    source: Path,
    remote: str,
    *,
    cap: int,
    progress: Progress | None = None,
) -> int:
    """Copy a host file to a new device file (never replaces one); returns its size."""
    size = source.stat().st_size
    if size > cap:
        raise TooLargeError(f"{source.name} is {size} bytes, over the {cap}-byte transfer cap")
    if exists(client, remote):
        raise AlreadyExistsError(f"{remote} already exists on the device; choose another path")
    parent = posixpath.dirname(remote) or "/"
    if not exists(client, parent):
        raise NotFoundError(f"{parent}: no such directory on the device")
    try:
        fd = os.open(source, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise UsageError(
            f"cannot read the host file {_cut(source.name, 80)!r}: {exc.strerror}"
        ) from exc
    with os.fdopen(fd, "rb") as file:
        capped = _CappedSource(file, cap, source.name)
        try:
            return client.push_stream(
                capped,  # type: ignore[arg-type]
                remote,
                size=size,
                progress=progress,
            )
        except TooLargeError:
            commands.run(client, ["rm", "-f", remote])  # it did not exist before: ours to remove
            raise
