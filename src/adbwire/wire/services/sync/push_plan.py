"""Deciding what a push sends where: adb's destination rules and the local tree walk.

Rules, as `adb push` applies them: a remote destination that is a directory receives each
source under its own name; several sources need a directory; a directory pushed onto an
existing remote directory lands inside it (REMOTE/NAME), onto a missing path it becomes
that path. Inside a pushed tree, symbolic links are sent as links and other special files
are skipped. Everything is checked before a byte moves.
"""

from __future__ import annotations

import logging
import os
import posixpath
import stat as stat_module
from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO

from adbwire.errors import AdbwireError, SyncFailError, UsageError
from adbwire.wire import shell_quote
from adbwire.wire.services import shell as shell_service
from adbwire.wire.services.sync import codec
from adbwire.wire.services.sync.results import Ledger
from adbwire.wire.services.sync.session import SyncSession
from adbwire.wire.services.sync.stat import stat_many, stat_reply

log = logging.getLogger(__name__)

MKDIR_COMMAND_LIMIT = 32 * 1024


@dataclass
class PushJob:
    """One file to send: from a local path, a stream, or a symbolic link's target."""

    root: str
    """The source the caller named (the file itself, or the directory it was found in)."""
    local: str
    remote: str
    mode: int
    """Full st_mode, type bits included: S_IFLNK makes the device create a link."""
    mtime: int
    size: int | None
    stream: BinaryIO | None = None
    link_target: bytes | None = None
    sent: int = 0


def plan_push(
    session: SyncSession,
    sources: Sequence[str],
    remote: str,
    ledger: Ledger,
    *,
    sync_only: bool = False,
) -> list[PushJob]:
    if not remote:
        raise UsageError("the remote destination is empty")
    destination = stat_reply(session, remote, follow=True)
    if destination.error and destination.error != codec.ENOENT:
        raise SyncFailError(remote, codec.errno_text(destination.error))
    exists = not destination.error
    is_dir = exists and destination.stat.is_dir
    if not exists and remote.endswith("/") and len(sources) == 1:
        is_dir = True  # adb would fail here; "push FILE newdir/" means into newdir
    if not is_dir and len(sources) > 1:
        raise UsageError(f"target '{remote}' is not a directory")
    if exists and not is_dir and remote.endswith("/"):
        raise UsageError(f"failed to access '{remote}': Not a directory")
    local_stats = [_local_stat(source) for source in sources]
    for source, st in zip(sources, local_stats, strict=True):
        if stat_module.S_ISDIR(st.st_mode) and exists and not is_dir:
            raise UsageError(
                f"cannot push directory '{source}' onto '{remote}': "
                "that is a file on the device, not a directory"
            )

    jobs: list[PushJob] = []
    directories: list[str] = []
    for source, st in zip(sources, local_stats, strict=True):
        ledger.begin_source(source)
        name = os.path.basename(os.path.abspath(source))
        if stat_module.S_ISDIR(st.st_mode):
            target = posixpath.join(remote, name) if exists else remote
            _walk(ledger, source, target, jobs=jobs, dirs=directories)
        elif stat_module.S_ISREG(st.st_mode):
            target = posixpath.join(remote, name) if is_dir else remote
            jobs.append(PushJob(source, source, target, st.st_mode, int(st.st_mtime), st.st_size))
        else:
            _skip_special(ledger, source, source, remote, st.st_mode)

    jobs = _refuse_long_paths(session, jobs, ledger)
    _make_directories(session, directories, jobs)
    if sync_only:
        jobs = _drop_up_to_date(session, jobs, ledger)
    return jobs


def _local_stat(source: str) -> os.stat_result:
    try:
        return os.stat(source)
    except OSError as exc:
        raise UsageError(f"cannot stat '{source}': {exc.strerror or exc}") from exc


def _walk(
    ledger: Ledger, root: str, remote_top: str, *, jobs: list[PushJob], dirs: list[str]
) -> None:
    """Every file under the local directory `root`, with its remote path under remote_top."""
    pending = [(root, remote_top)]
    while pending:
        local_dir, remote_dir = pending.pop()
        dirs.append(remote_dir)
        try:
            with os.scandir(local_dir) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError as exc:
            error = UsageError(f"cannot open '{local_dir}': {exc.strerror or exc}")
            ledger.failed(root, local_dir, remote_dir, error)
            continue
        subdirs = []
        for entry in entries:
            remote = posixpath.join(remote_dir, entry.name)
            try:
                st = entry.stat(follow_symlinks=False)
                if stat_module.S_ISDIR(st.st_mode):
                    subdirs.append((entry.path, remote))
                elif stat_module.S_ISREG(st.st_mode):
                    mtime = int(st.st_mtime)
                    jobs.append(PushJob(root, entry.path, remote, st.st_mode, mtime, st.st_size))
                elif stat_module.S_ISLNK(st.st_mode):
                    link = os.fsencode(os.readlink(entry.path))
                    mtime = int(st.st_mtime)
                    jobs.append(
                        PushJob(
                            root,
                            entry.path,
                            remote,
                            st.st_mode,
                            mtime,
                            len(link) + 1,
                            link_target=link,
                        )
                    )
                else:
                    _skip_special(ledger, root, entry.path, remote, st.st_mode)
            except OSError as exc:
                error = UsageError(f"cannot read '{entry.path}': {exc.strerror or exc}")
                ledger.failed(root, entry.path, remote, error)
        pending.extend(reversed(subdirs))


def _skip_special(ledger: Ledger, root: str, local: str, remote: str, mode: int) -> None:
    ledger.skipped(root, local, remote, f"special file '{local}' (mode 0o{mode:o})")


def _refuse_long_paths(session: SyncSession, jobs: list[PushJob], ledger: Ledger) -> list[PushJob]:
    kept = []
    for job in jobs:
        try:
            if session.sendrecv_v2:
                codec.encode_send_v2(job.remote, job.mode)
            else:
                codec.encode_send_v1(job.remote, job.mode)
        except UsageError as exc:
            ledger.failed(job.root, job.local, job.remote, exc)
            continue
        kept.append(job)
    return kept


def _make_directories(session: SyncSession, directories: list[str], jobs: list[PushJob]) -> None:
    """Create remote directories the pushes themselves will not create.

    A device with `fixed_push_mkdir` makes a file's parents itself, so only empty
    directories need a `mkdir` (adb leaves them out). Without it, like adb, every
    directory is made first when the device has shell_v2 (Android 9 needed that).
    """
    if not directories:
        return
    if session.fixed_push_mkdir or not session.shell_v2:
        holding_files = {posixpath.dirname(job.remote) for job in jobs}
        covered: set[str] = set()
        for holder in holding_files:
            directory = holder
            while directory not in covered and directory not in ("", "/"):
                covered.add(directory)
                directory = posixpath.dirname(directory)
        directories = [d for d in directories if d.rstrip("/") not in covered]
    command = ""
    for directory in directories:
        word = shell_quote.quote(directory)
        if command and len(command) + len(word) > MKDIR_COMMAND_LIMIT:
            _run_mkdir(session, command)
            command = ""
        command = f"{command} {word}" if command else f"mkdir -p {word}"
    if command:
        _run_mkdir(session, command)


def _run_mkdir(session: SyncSession, command: str) -> None:
    try:
        result = shell_service.run(session.connection, command, timeout=session.idle_timeout)
    except AdbwireError as exc:
        log.debug("%s failed: %s", command[:200], exc)
        return
    if result.exit_code:
        log.debug("%s exited %d: %s", command[:200], result.exit_code, result.stderr[:200])


def _drop_up_to_date(session: SyncSession, jobs: list[PushJob], ledger: Ledger) -> list[PushJob]:
    """adb --sync: leave out files whose remote copy has the same size and mtime."""
    replies = stat_many(session, [job.remote for job in jobs], follow=False)
    kept = []
    for job, reply in zip(jobs, replies, strict=True):
        if not reply.error and reply.stat.size == job.size and reply.stat.mtime == job.mtime:
            ledger.skipped(
                job.root, job.local, job.remote, "up to date on the device", expected=True
            )
        else:
            kept.append(job)
    return kept
