"""The file-sync service (`sync:`): stat, list, push and pull, over one stream per session.

Every function takes a `Connection` (a session is opened for the one call) or a
`SyncSession` (to share one `sync:` stream across many calls)::

    with SyncSession(connection) as session:
        stat(session, "/sdcard/a.txt").size
        result = push(session, ["build/", "notes.txt"], "/sdcard/Download")
        result.ok, result.failed

Single-file calls (`stat`, `list_dir`, `push_stream`, `pull_stream`) raise on failure;
`push` and `pull` move many files and report each one in a `TransferResult`.

The names are imported when first used (a shell command never loads the sync modules).
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

from adbwire._lazy_exports import lazy_exports

if TYPE_CHECKING:
    from adbwire.wire.services.sync.codec import DATA_MAX, MAX_PATH, DirEntry, RemoteStat
    from adbwire.wire.services.sync.listing import iter_dir, list_dir
    from adbwire.wire.services.sync.options import (
        DEFAULT_MAX_DEPTH,
        DEFAULT_MAX_ENTRIES,
        DEFAULT_RATE_GRACE,
        Compression,
    )
    from adbwire.wire.services.sync.pull import pull, pull_stream
    from adbwire.wire.services.sync.pull_plan import WalkLimitError
    from adbwire.wire.services.sync.pull_rate import MinRate
    from adbwire.wire.services.sync.push import push, push_stream
    from adbwire.wire.services.sync.results import (
        FileFailed,
        FileSkipped,
        FileTransferred,
        ProgressCallback,
        SourceSummary,
        TransferResult,
    )
    from adbwire.wire.services.sync.session import SyncSession
    from adbwire.wire.services.sync.stat import exists, lstat, stat

__all__ = [
    "DATA_MAX",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_ENTRIES",
    "DEFAULT_RATE_GRACE",
    "MAX_PATH",
    "Compression",
    "DirEntry",
    "FileFailed",
    "FileSkipped",
    "FileTransferred",
    "MinRate",
    "ProgressCallback",
    "RemoteStat",
    "SourceSummary",
    "SyncSession",
    "TransferResult",
    "WalkLimitError",
    "exists",
    "iter_dir",
    "list_dir",
    "lstat",
    "pull",
    "pull_stream",
    "push",
    "push_stream",
    "stat",
]

_PACKAGE = __name__
_HOME_OF = {
    "DATA_MAX": "codec",
    "MAX_PATH": "codec",
    "DirEntry": "codec",
    "RemoteStat": "codec",
    "iter_dir": "listing",
    "list_dir": "listing",
    "DEFAULT_MAX_DEPTH": "options",
    "DEFAULT_MAX_ENTRIES": "options",
    "DEFAULT_RATE_GRACE": "options",
    "Compression": "options",
    "pull": "pull",
    "pull_stream": "pull",
    "WalkLimitError": "pull_plan",
    "MinRate": "pull_rate",
    "push": "push",
    "push_stream": "push",
    "FileFailed": "results",
    "FileSkipped": "results",
    "FileTransferred": "results",
    "ProgressCallback": "results",
    "SourceSummary": "results",
    "TransferResult": "results",
    "SyncSession": "session",
    "exists": "stat",
    "lstat": "stat",
    "stat": "stat",
}
_NAMED_LIKE_THEIR_MODULES = frozenset({"pull", "push", "stat"})


class _SyncPackage(ModuleType):
    """`sync.pull`, `sync.push` and `sync.stat` are functions, named like the modules that
    define them: importing such a module (which binds it on its package) binds the function
    instead, as the eager `from .pull import pull` of old did, whatever imports it first."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _NAMED_LIKE_THEIR_MODULES and isinstance(value, ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


__getattr__, __dir__ = lazy_exports(
    _PACKAGE, {name: f"{_PACKAGE}.{home}" for name, home in _HOME_OF.items()}, globals()
)
sys.modules[_PACKAGE].__class__ = _SyncPackage
