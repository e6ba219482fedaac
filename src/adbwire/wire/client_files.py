"""`AdbClient`'s file methods: stat, list, push and pull over the sync service.

The sync modules load on the first file call (`adbwire -s S shell` never makes one); the
defaults in the signatures come from sync/options.py, which loads nothing else (#20).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, BinaryIO

from adbwire.wire.services.sync.options import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_ENTRIES,
    DEFAULT_RATE_GRACE,
    Compression,
)

if TYPE_CHECKING:
    from adbwire.wire.connection import Connection
    from adbwire.wire.services.sync import DirEntry, RemoteStat, SyncSession, TransferResult
    from adbwire.wire.services.sync.pull_plan import EntriesCallback

Progress = Callable[[int, int | None], None]
LocalPath = str | os.PathLike[str]


class FileMethods:
    """Mixed into `AdbClient`; each method is one call into `wire/services/sync`."""

    connection: Connection

    def stat(self, path: str, *, follow: bool = True, timeout: float | None = None) -> RemoteStat:
        from adbwire.wire.services import sync  # noqa: PLC0415 - see the module's docstring

        return sync.stat(self.connection, path, follow=follow, timeout=timeout)

    def lstat(self, path: str, *, timeout: float | None = None) -> RemoteStat:
        """The entry itself, a symlink not followed."""
        from adbwire.wire.services import sync  # noqa: PLC0415

        return sync.lstat(self.connection, path, timeout=timeout)

    def exists(self, path: str, *, timeout: float | None = None) -> bool:
        from adbwire.wire.services import sync  # noqa: PLC0415

        return sync.exists(self.connection, path, timeout=timeout)

    def list_dir(
        self,
        path: str,
        *,
        dot_entries: bool = False,
        timeout: float | None = None,
        max_output: int | None = None,
    ) -> list[DirEntry]:
        """Entries of a directory (with `.` and `..` when `dot_entries`); `max_output` caps
        the listing's bytes as in shell."""
        from adbwire.wire.services import sync  # noqa: PLC0415

        return sync.list_dir(
            self.connection, path, dot_entries=dot_entries, timeout=timeout, max_output=max_output
        )

    def push(
        self,
        sources: Sequence[LocalPath],
        remote: str,
        *,
        sync_only: bool = False,
        progress: Progress | None = None,
        timeout: float | None = None,
        compression: Compression = Compression.ANY,
    ) -> TransferResult:
        """Copy local files/directories to the device, as `adb push` does (compressed with
        the best algorithm the device offers unless `compression` says otherwise)."""
        from adbwire.wire.services import sync  # noqa: PLC0415

        return sync.push(
            self.connection,
            sources,
            remote,
            sync_only=sync_only,
            progress=progress,
            timeout=timeout,
            compression=compression,
        )

    def pull(
        self,
        sources: Sequence[str],
        local: LocalPath,
        *,
        preserve: bool = False,
        progress: Progress | None = None,
        timeout: float | None = None,
        compression: Compression = Compression.NONE,
        min_rate: float | None = None,
        rate_grace: float = DEFAULT_RATE_GRACE,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        max_depth: int = DEFAULT_MAX_DEPTH,
        on_entries: EntriesCallback | None = None,
    ) -> TransferResult:
        """Copy device files/directories here, as `adb pull` does (never a partial file).

        `min_rate` (bytes/s, after `rate_grace` seconds) ends a transfer the device
        trickles; `max_entries`/`max_depth` bound the walk of a directory tree."""
        from adbwire.wire.services import sync  # noqa: PLC0415

        return sync.pull(
            self.connection,
            sources,
            local,
            preserve=preserve,
            progress=progress,
            timeout=timeout,
            compression=compression,
            min_rate=min_rate,
            rate_grace=rate_grace,
            max_entries=max_entries,
            max_depth=max_depth,
            on_entries=on_entries,
        )

    def push_stream(
        self,
        source: BinaryIO,
        remote: str,
        *,
        mode: int = 0o644,
        mtime: int | None = None,
        size: int | None = None,
        progress: Progress | None = None,
        timeout: float | None = None,
        compression: Compression = Compression.NONE,
    ) -> int:
        """Write a file on the device from a host stream (`size`, when known, lets the
        progress callback report a total)."""
        from adbwire.wire.services import sync  # noqa: PLC0415

        return sync.push_stream(
            self.connection,
            source,
            remote,
            mode=mode,
            mtime=mtime,
            size=size,
            progress=progress,
            timeout=timeout,
            compression=compression,
        )

    def pull_stream(
        self,
        remote: str,
        sink: BinaryIO,
        *,
        progress: Progress | None = None,
        timeout: float | None = None,
        min_rate: float | None = None,
        rate_grace: float = DEFAULT_RATE_GRACE,
        compression: Compression = Compression.NONE,
    ) -> int:
        from adbwire.wire.services import sync  # noqa: PLC0415

        return sync.pull_stream(
            self.connection,
            remote,
            sink,
            progress=progress,
            timeout=timeout,
            min_rate=min_rate,
            rate_grace=rate_grace,
            compression=compression,
        )

    def sync_session(self, *, timeout: float | None = None) -> SyncSession:
        """One `sync:` stream for many file operations."""
        from adbwire.wire.services.sync import SyncSession  # noqa: PLC0415

        return SyncSession(self.connection, timeout=timeout)
