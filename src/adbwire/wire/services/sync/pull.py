"""RECV / RCV2: download of files and directory trees, to paths or streams.

File data is written as it arrives, slice by slice, so memory stays flat whatever the
size. A file pulled to a path is written under a temporary name beside the destination
(`.NAME.XXXXXXXX.adbwire-part`) and renamed only once complete; on any failure the
temporary file is removed, so a partial file never appears under the final name.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat as stat_module
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, BinaryIO

from adbwire.errors import AdbwireError, DisconnectedError, SyncFailError, UsageError
from adbwire.wire.services.sync import codec
from adbwire.wire.services.sync.codec import DataChunk, DataDone, Expect, Fail
from adbwire.wire.services.sync.pull_plan import PullJob, plan_pull
from adbwire.wire.services.sync.results import Ledger, ProgressCallback, TransferResult
from adbwire.wire.services.sync.session import StreamEnded, SyncSession, session_for
from adbwire.wire.services.sync.stat import stat_reply

if TYPE_CHECKING:
    from adbwire.wire.connection import Connection

TEMP_SUFFIX = ".adbwire-part"
Writer = Callable[[memoryview], None]


def pull_stream(
    target: Connection | SyncSession,
    remote: str,
    sink: BinaryIO,
    *,
    progress: ProgressCallback | None = None,
    timeout: float | None = None,
) -> int:
    """Write the device file `remote` into `sink`; returns the byte count.

    A FAIL raises SyncFailError naming `remote`. What was written before a failure stays
    in `sink` (the caller owns it).
    """
    with session_for(target, timeout) as session:
        total = None
        if progress is not None:
            reply = stat_reply(session, remote, follow=True)
            total = None if reply.error else reply.stat.size
        ledger = Ledger("pull", total, progress)
        return receive(session, remote, _stream_writer(sink), ledger, size=total)


def pull(
    target: Connection | SyncSession,
    sources: str | Sequence[str],
    local: str | os.PathLike[str],
    *,
    preserve: bool = False,
    progress: ProgressCallback | None = None,
    timeout: float | None = None,
) -> TransferResult:
    """Copy device files and directory trees here, with adb's destination rules.

    Mistakes found before anything moves raise (a missing remote source: SyncFailError;
    a bad local destination: UsageError). Failures of single files are collected in the
    result; only a lost connection raises mid-way. `preserve` keeps mtime and mode (-a).
    """
    names = [sources] if isinstance(sources, str) else list(sources)
    if not names:
        raise UsageError("pull needs at least one remote source")
    destination = os.fspath(local)
    with session_for(target, timeout) as session:
        ledger = Ledger("pull", None, progress)
        jobs = plan_pull(session, names, destination, ledger)
        ledger.total = sum(job.stat.size for job in jobs if not job.is_dir)
        for job in jobs:
            try:
                if job.is_dir:
                    _make_local_dir(job.local)
                else:
                    size = pull_to_path(session, job, ledger, preserve=preserve)
                    ledger.transferred(job.root, job.remote, job.local, size)
            except (SyncFailError, UsageError, StreamEnded) as exc:
                ledger.failed(job.root, job.remote, job.local, exc)
        return ledger.finish()


def receive(
    session: SyncSession, remote: str, write: Writer, ledger: Ledger, *, size: int | None
) -> int:
    """RECV one file (of `size` bytes, if known) into `write`; errors say how far it got."""
    if session.sendrecv_v2:
        request = codec.encode_recv_v2(remote)
    else:
        request = codec.encode_request(codec.RECV, remote)
    what = f"pull of '{remote}'"
    moved = 0
    try:
        session.send(request, what)
        while True:
            event = session.next_event(Expect.DATA, what)
            if isinstance(event, DataChunk):
                write(event.data)
                moved += len(event.data)
                ledger.advance(len(event.data))
            elif isinstance(event, DataDone):
                return moved
            elif isinstance(event, Fail):
                raise SyncFailError(remote, event.message)
            else:
                raise session.unexpected(event, what)
    except StreamEnded as exc:
        session.discard()
        raise StreamEnded(f"{what} stopped after {moved} bytes: {exc}") from exc
    except DisconnectedError as exc:
        session.discard()
        expected = f" of {size}" if size is not None else ""
        raise DisconnectedError(
            f"the device disconnected during {what} after {moved}{expected} bytes: {exc}"
        ) from exc
    except BaseException:
        session.discard()  # the rest of this file would confuse the next request
        raise


def pull_to_path(session: SyncSession, job: PullJob, ledger: Ledger, *, preserve: bool) -> int:
    """RECV into a temporary file beside `job.local`, renamed over it only when complete."""
    descriptor, temp = _create_temp(job.local)
    try:
        with open(descriptor, "wb", buffering=0) as file:
            writer = _file_writer(file, job.local)
            size = receive(session, job.remote, writer, ledger, size=job.stat.size)
        if preserve:
            os.utime(temp, (job.stat.mtime, job.stat.mtime))
            os.chmod(temp, stat_module.S_IMODE(job.stat.mode) & ~_umask())
        os.replace(temp, job.local)
    except BaseException as exc:
        _remove_quietly(temp)
        if isinstance(exc, OSError) and not isinstance(exc, AdbwireError):
            raise UsageError(f"cannot write '{job.local}': {exc.strerror or exc}") from exc
        raise
    return size


def _create_temp(final: str) -> tuple[int, str]:
    directory, name = os.path.split(final)
    if not name:
        raise UsageError(f"cannot create '{final}': it names a directory")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    while True:
        temp = os.path.join(directory, f".{name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
        try:
            return os.open(temp, flags, 0o644), temp
        except FileExistsError:
            continue
        except OSError as exc:
            raise UsageError(f"cannot create '{final}': {exc.strerror or exc}") from exc


def _make_local_dir(path: str) -> None:
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"failed to create directory '{path}': {exc.strerror or exc}") from exc


def _file_writer(file: BinaryIO, name: str) -> Writer:
    def write(data: memoryview) -> None:
        try:
            written = file.write(data)
            while written < len(data):  # a short write: rare on files, but allowed
                data = data[written:]
                written = file.write(data)
        except OSError as exc:
            raise UsageError(f"cannot write '{name}': {exc.strerror or exc}") from exc

    return write


def _stream_writer(sink: BinaryIO) -> Writer:
    def write(data: memoryview) -> None:
        written = sink.write(data)
        while written is not None and written < len(data):
            data = data[written:]
            written = sink.write(data)

    return write


def _remove_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


_UMASK: list[int] = []


def _umask() -> int:
    """The process umask, read without changing it (os.umask would, for every thread)."""
    if not _UMASK:
        value = 0o022
        try:
            with open("/proc/self/status", encoding="ascii") as status:
                for line in status:
                    if line.startswith("Umask:"):
                        value = int(line.split()[1], 8)
        except (OSError, ValueError):
            pass
        _UMASK.append(value)
    return _UMASK[0]
