"""Deciding what a pull fetches where: adb's destination rules and the remote tree walk.

As `adb pull` does: a local destination that is a directory receives each source under its
own name; several sources need an existing directory; a remote directory pulled into an
existing local directory lands inside it (LOCAL/NAME), onto a missing path it becomes that
path (whose parent must exist). Inside a tree, links to directories are followed (with a
guard against loops) and special files other than devices are skipped. Every source is
checked before a byte moves.
"""

from __future__ import annotations

import os
import posixpath
import stat as stat_module
from collections.abc import Sequence
from dataclasses import dataclass

from adbwire.errors import SyncFailError, UsageError
from adbwire.wire.services.sync import codec
from adbwire.wire.services.sync.codec import RemoteStat
from adbwire.wire.services.sync.listing import DOT_ENTRIES, iter_dir
from adbwire.wire.services.sync.results import Ledger
from adbwire.wire.services.sync.session import SyncSession
from adbwire.wire.services.sync.stat import stat_many

MAX_DEPTH = 256
"""Deepest directory nesting followed (stops link loops on v1 devices, which lack inodes)."""


@dataclass(frozen=True)
class PullJob:
    root: str
    """The source the caller named (the file itself, or the directory it was found in)."""
    remote: str
    local: str
    stat: RemoteStat

    @property
    def is_dir(self) -> bool:
        return self.stat.is_dir


def plan_pull(
    session: SyncSession, sources: Sequence[str], local: str, ledger: Ledger
) -> list[PullJob]:
    exists, is_dir = _local_destination(local, len(sources))
    replies = stat_many(session, list(sources), follow=True)
    for source, reply in zip(sources, replies, strict=True):
        if reply.error:
            raise SyncFailError(source, codec.errno_text(reply.error))
        if reply.stat.is_dir and exists and not is_dir:
            raise UsageError(
                f"cannot pull directory '{source}' onto '{local}': that is a file here"
            )

    jobs: list[PullJob] = []
    for source, reply in zip(sources, replies, strict=True):
        ledger.begin_source(source)
        name = posixpath.basename(source.rstrip("/")) or "root"
        if reply.stat.is_dir:
            target = os.path.join(local, name) if exists else local
            _walk(session, ledger, source, target, reply.stat, jobs=jobs)
        elif _pullable(reply.stat):
            target = os.path.join(local, name) if is_dir else local
            jobs.append(PullJob(source, source, target, reply.stat))
        else:
            _skip_special(ledger, source, source, local, reply.stat.mode)
    return jobs


def _local_destination(local: str, source_count: int) -> tuple[bool, bool]:
    try:
        st = os.stat(local)
    except FileNotFoundError:
        if source_count > 1:
            raise UsageError(f"failed to access '{local}': No such file or directory") from None
        parent = os.path.dirname(os.path.abspath(local.rstrip("/" + os.sep) or local))
        if not os.path.isdir(parent):
            raise UsageError(
                f"cannot create file/directory '{local}': No such file or directory"
            ) from None
        return False, False
    except OSError as exc:
        raise UsageError(f"failed to access '{local}': {exc.strerror or exc}") from exc
    is_dir = stat_module.S_ISDIR(st.st_mode)
    if not is_dir and source_count > 1:
        raise UsageError(f"target '{local}' is not a directory")
    if not is_dir and local.endswith(("/", os.sep)):
        raise UsageError(f"failed to access '{local}': Not a directory")
    return True, is_dir


def _pullable(found: RemoteStat) -> bool:
    mode = found.mode
    return stat_module.S_ISREG(mode) or stat_module.S_ISBLK(mode) or stat_module.S_ISCHR(mode)


def _skip_special(ledger: Ledger, root: str, remote: str, local: str, mode: int) -> None:
    ledger.skipped(root, remote, local, f"special file '{remote}' (mode 0o{mode:o})")


def _walk(
    session: SyncSession,
    ledger: Ledger,
    root: str,
    local_top: str,
    top: RemoteStat,
    *,
    jobs: list[PullJob],
) -> None:
    seen: set[tuple[int, int]] = set()
    pending = [(root, local_top, top, 0)]
    while pending:
        remote_dir, local_dir, dir_stat, depth = pending.pop()
        if dir_stat.dev is not None and dir_stat.ino is not None:
            identity = (dir_stat.dev, dir_stat.ino)
            if identity in seen:
                reason = f"'{remote_dir}' was already pulled (a link loop?)"
                ledger.skipped(root, remote_dir, local_dir, reason)
                continue
            seen.add(identity)
        if depth > MAX_DEPTH:
            ledger.skipped(
                root, remote_dir, local_dir, f"'{remote_dir}': deeper than {MAX_DEPTH} levels"
            )
            continue
        jobs.append(PullJob(root, remote_dir, local_dir, dir_stat))
        try:
            entries = [e for e in iter_dir(session, remote_dir) if e.name not in DOT_ENTRIES]
        except SyncFailError as exc:
            ledger.failed(root, remote_dir, local_dir, exc)
            continue
        subdirs: list[tuple[str, str, RemoteStat, int]] = []
        links = []
        for entry in entries:
            remote = posixpath.join(remote_dir, entry.name)
            local = os.path.join(local_dir, entry.name)
            if entry.error:
                error = SyncFailError(remote, codec.errno_text(entry.error))
                ledger.failed(root, remote, local, error)
            elif entry.stat.is_dir:
                subdirs.append((remote, local, entry.stat, depth + 1))
            elif entry.stat.is_symlink:
                links.append((remote, local))
            elif _pullable(entry.stat):
                jobs.append(PullJob(root, remote, local, entry.stat))
            else:
                _skip_special(ledger, root, remote, local, entry.stat.mode)
        replies = stat_many(session, [remote for remote, _ in links], follow=True)
        for (remote, local), reply in zip(links, replies, strict=True):
            if reply.error:
                reason = f"link '{remote}' points nowhere ({codec.errno_text(reply.error)})"
                ledger.skipped(root, remote, local, reason)
            elif reply.stat.is_dir:
                subdirs.append((remote, local, reply.stat, depth + 1))
            elif _pullable(reply.stat):
                jobs.append(PullJob(root, remote, local, reply.stat))
            else:
                _skip_special(ledger, root, remote, local, reply.stat.mode)
        pending.extend(reversed(subdirs))
