"""The file-sync service (`sync:`): stat, list, push and pull, over one stream per session.

Every function takes a `Connection` (a session is opened for the one call) or a
`SyncSession` (to share one `sync:` stream across many calls)::

    with SyncSession(connection) as session:
        stat(session, "/sdcard/a.txt").size
        result = push(session, ["build/", "notes.txt"], "/sdcard/Download")
        result.ok, result.failed

Single-file calls (`stat`, `list_dir`, `push_stream`, `pull_stream`) raise on failure;
`push` and `pull` move many files and report each one in a `TransferResult`.
"""

from adbwire.wire.services.sync.codec import DATA_MAX, MAX_PATH, DirEntry, RemoteStat
from adbwire.wire.services.sync.compression import Compression
from adbwire.wire.services.sync.listing import iter_dir, list_dir
from adbwire.wire.services.sync.pull import pull, pull_stream
from adbwire.wire.services.sync.pull_plan import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_ENTRIES,
    WalkLimitError,
)
from adbwire.wire.services.sync.pull_rate import DEFAULT_RATE_GRACE, MinRate
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
