"""Deciding what a pull fetches where: adb's destination rules and the remote tree walk.

As `adb pull` does: a local destination that is a directory receives each source under its
own name; several sources need an existing directory; a remote directory pulled into an
existing local directory lands inside it (LOCAL/NAME), onto a missing path it becomes that
path (whose parent must exist). Inside a tree, links to directories are followed (with a
guard against loops) and special files other than devices are skipped. Every source is
checked before a byte moves.

Trees are walked while they are pulled, one directory at a time: a directory is listed,
its files are pulled, then its subdirectories follow. Memory holds one listing and the
directories still to visit, never the whole tree, and two limits bound what a device can
make us walk: the total number of entries (`max_entries`) and the nesting (`max_depth`).
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import stat as stat_module
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from adbwire.errors import SyncFailError, UsageError
from adbwire.wire.services.sync import codec
from adbwire.wire.services.sync.codec import DirEntry, RemoteStat
from adbwire.wire.services.sync.listing import DOT_ENTRIES, iter_dir
from adbwire.wire.services.sync.options import DEFAULT_MAX_DEPTH, DEFAULT_MAX_ENTRIES
from adbwire.wire.services.sync.results import Ledger
from adbwire.wire.services.sync.session import SyncSession
from adbwire.wire.services.sync.stat import stat_many

ENTRIES_REPORT_EVERY = 1000
"""Within one long listing, `on_entries` is called at least every this many entries."""

EntriesCallback = Callable[[int], None]
"""Called with the number of remote entries listed so far, as trees are walked."""


class WalkLimitError(UsageError):
    """A remote tree is larger (more entries) or deeper than the pull's limits allow."""


@dataclass(frozen=True)
class WalkLimits:
    max_entries: int = DEFAULT_MAX_ENTRIES
    max_depth: int = DEFAULT_MAX_DEPTH

    def __post_init__(self) -> None:
        if self.max_entries < 1:
            raise UsageError(f"max_entries must be at least 1, got {self.max_entries}")
        if self.max_depth < 0:
            raise UsageError(f"max_depth must be 0 or more, got {self.max_depth}")


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


@dataclass(frozen=True)
class _Source:
    name: str
    stat: RemoteStat
    target: str


class PullPlan:
    """The checked sources of one pull; `batches()` walks them while the caller pulls."""

    def __init__(
        self,
        session: SyncSession,
        ledger: Ledger,
        sources: list[_Source],
        limits: WalkLimits,
        on_entries: EntriesCallback | None,
    ) -> None:
        self.session = session
        self.ledger = ledger
        self.sources = sources
        self.limits = limits
        self.on_entries = on_entries
        self.entries = 0
        self._reported = 0
        self._found_bytes = sum(s.stat.size for s in sources if not s.stat.is_dir)
        self._walks_left = sum(1 for s in sources if s.stat.is_dir)

    def batches(self) -> Iterator[list[PullJob]]:
        """Jobs in order, one directory's worth at a time (a directory job, then its
        files). The caller may use the session between batches, never during one.

        A tree over `max_entries` ends the pull: the failure is recorded against its
        source and nothing more is walked."""
        if not self._walks_left:
            self.ledger.set_total(self._found_bytes)
        for source in self.sources:
            self.ledger.begin_source(source.name)
            if source.stat.is_dir:
                try:
                    yield from self._walk(source)
                except WalkLimitError as exc:
                    self.ledger.failed(source.name, source.name, source.target, exc)
                    return
            elif _pullable(source.stat):
                yield [PullJob(source.name, source.name, source.target, source.stat)]
            else:
                _skip_special(self.ledger, source.name, source.name, source.target, source.stat)

    def _walk(self, source: _Source) -> Iterator[list[PullJob]]:
        root = source.name
        seen: set[tuple[int, int]] = set()
        pending = [(root, source.target, source.stat, 0)]
        while pending:
            remote_dir, local_dir, dir_stat, depth = pending.pop()
            if dir_stat.dev is not None and dir_stat.ino is not None:
                identity = (dir_stat.dev, dir_stat.ino)
                if identity in seen:
                    reason = f"'{remote_dir}' was already pulled (a link loop?)"
                    self.ledger.skipped(root, remote_dir, local_dir, reason)
                    continue
                seen.add(identity)
            if depth > self.limits.max_depth:
                error = WalkLimitError(
                    f"'{remote_dir}' is nested deeper than {self.limits.max_depth} levels "
                    "(max_depth; a link loop?)"
                )
                self.ledger.failed(root, remote_dir, local_dir, error)
                continue
            batch = [PullJob(root, remote_dir, local_dir, dir_stat)]
            subdirs: list[tuple[str, str, RemoteStat, int]] = []
            try:
                entries = self._list(root, remote_dir)
            except SyncFailError as exc:
                self.ledger.failed(root, remote_dir, local_dir, exc)
                entries = []
            links: list[tuple[str, str]] = []
            for entry in entries:
                remote = posixpath.join(remote_dir, entry.name)
                local = os.path.join(local_dir, entry.name)
                if entry.error:
                    error_ = SyncFailError(remote, codec.errno_text(entry.error))
                    self.ledger.failed(root, remote, local, error_)
                elif entry.stat.is_dir:
                    subdirs.append((remote, local, entry.stat, depth + 1))
                elif entry.stat.is_symlink:
                    links.append((remote, local))
                else:
                    self._add_file(batch, root, remote, local, entry.stat)
            replies = stat_many(self.session, [remote for remote, _ in links], follow=True)
            for (remote, local), reply in zip(links, replies, strict=True):
                if reply.error:
                    reason = f"link '{remote}' points nowhere ({codec.errno_text(reply.error)})"
                    self.ledger.skipped(root, remote, local, reason)
                elif reply.stat.is_dir:
                    subdirs.append((remote, local, reply.stat, depth + 1))
                else:
                    self._add_file(batch, root, remote, local, reply.stat)
            pending.extend(reversed(subdirs))
            if not pending:
                self._walks_left -= 1
                if not self._walks_left:
                    self.ledger.set_total(self._found_bytes)
            yield batch

    def _add_file(
        self, batch: list[PullJob], root: str, remote: str, local: str, found: RemoteStat
    ) -> None:
        if _pullable(found):
            batch.append(PullJob(root, remote, local, found))
            self._found_bytes += found.size
        else:
            _skip_special(self.ledger, root, remote, local, found)

    def _list(self, root: str, remote_dir: str) -> list[DirEntry]:
        """One directory's entries, counted against `max_entries` as they arrive (so an
        endless listing stops at the limit)."""
        entries: list[DirEntry] = []
        listing = iter_dir(self.session, remote_dir)
        with contextlib.closing(listing):  # stopped early: the session drops the rest
            for entry in listing:
                if entry.name in DOT_ENTRIES:
                    continue
                self.entries += 1
                if self.entries > self.limits.max_entries:
                    raise WalkLimitError(
                        f"'{root}' has more than {self.limits.max_entries} entries "
                        f"(max_entries; stopped while listing '{remote_dir}')"
                    )
                entries.append(entry)
                if self.entries - self._reported >= ENTRIES_REPORT_EVERY:
                    self._report()
        self._report()
        return entries

    def _report(self) -> None:
        self._reported = self.entries
        if self.on_entries is not None:
            self.on_entries(self.entries)


def plan_pull(
    session: SyncSession,
    sources: Sequence[str],
    local: str,
    ledger: Ledger,
    *,
    limits: WalkLimits | None = None,
    on_entries: EntriesCallback | None = None,
) -> PullPlan:
    """Check the destination and every source (raising before anything moves)."""
    exists, is_dir = _local_destination(local, len(sources))
    replies = stat_many(session, list(sources), follow=True)
    checked: list[_Source] = []
    for source, reply in zip(sources, replies, strict=True):
        if reply.error:
            raise SyncFailError(source, codec.errno_text(reply.error))
        if reply.stat.is_dir and exists and not is_dir:
            raise UsageError(
                f"cannot pull directory '{source}' onto '{local}': that is a file here"
            )
        name = posixpath.basename(source.rstrip("/")) or "root"
        into = exists if reply.stat.is_dir else is_dir
        checked.append(_Source(source, reply.stat, os.path.join(local, name) if into else local))
    return PullPlan(session, ledger, checked, limits or WalkLimits(), on_entries)


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


def _skip_special(ledger: Ledger, root: str, remote: str, local: str, found: RemoteStat) -> None:
    ledger.skipped(root, remote, local, f"special file '{remote}' (mode 0o{found.mode:o})")
