"""RECV / RCV2: download of files and directory trees, to paths or streams.

File data is written as it arrives, slice by slice, so memory stays flat whatever the
size. A file pulled to a path is written under a temporary name beside the destination
(`.NAME.XXXXXXXX.adbwire-part`) and renamed only once complete; on any failure the
temporary file is removed, so a partial file never appears under the final name.

`timeout` bounds each wait for the device (an idle timeout). A device that keeps sending
a byte now and then never trips it, so a caller can also ask for a minimum rate
(`min_rate`, bytes per second): each file must then arrive within `rate_grace` seconds
plus one second per `min_rate` bytes received (bytes past the size the device announced
earn no more time), which also bounds the whole file to `rate_grace + size / min_rate`.

With `compression` (adb's -z; off by default for pulls, as in adb) the device sends one
compressed stream per file; it is decompressed a piece at a time and may not decompress
to more than the file's size plus `GROWTH_ALLOWANCE`.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat as stat_bits
import tempfile
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, BinaryIO

from adbwire.errors import AdbwireError, DisconnectedError, SyncFailError, UsageError
from adbwire.wire.services.sync import codec
from adbwire.wire.services.sync.codec import DataChunk, DataDone, Expect, Fail
from adbwire.wire.services.sync.compression import Compression, Decoder, resolve_compression
from adbwire.wire.services.sync.options import DEFAULT_MAX_DEPTH, DEFAULT_MAX_ENTRIES
from adbwire.wire.services.sync.pull_plan import (
    EntriesCallback,
    PullJob,
    WalkLimits,
    plan_pull,
)
from adbwire.wire.services.sync.pull_rate import (
    DEFAULT_RATE_GRACE,
    MinRate,
    Pace,
    min_rate_of,
)
from adbwire.wire.services.sync.results import Ledger, ProgressCallback, TransferResult
from adbwire.wire.services.sync.session import StreamEnded, SyncSession, session_for
from adbwire.wire.services.sync.stat import stat_reply

if TYPE_CHECKING:
    from adbwire.wire.connection import Connection

TEMP_SUFFIX = ".adbwire-part"
NAME_MAX = 255
"""Longest file name (in bytes) assumed when the host cannot say (no pathconf)."""
PERMISSION_BITS = 0o777
"""What `preserve` keeps of a device's mode: never setuid, setgid or sticky."""
GROWTH_ALLOWANCE = 64 * 1024 * 1024
"""How much a compressed file may grow past its stat size while it is pulled (a log)."""
Writer = Callable[[memoryview], None]


def pull_stream(
    target: Connection | SyncSession,
    remote: str,
    sink: BinaryIO,
    *,
    progress: ProgressCallback | None = None,
    timeout: float | None = None,
    min_rate: float | None = None,
    rate_grace: float = DEFAULT_RATE_GRACE,
    compression: Compression = Compression.NONE,
) -> int:
    """Write the device file `remote` into `sink`; returns the byte count.

    A FAIL raises SyncFailError naming `remote` (so does a failed stat when `min_rate` is
    set: its deadline needs the size); a pull slower than `min_rate` (see the module's
    docstring) raises AdbTimeoutError. What was written before a failure stays
    in `sink` (the caller owns it).
    """
    rate = min_rate_of(min_rate, rate_grace)
    with session_for(target, timeout) as session:
        kind = resolve_compression(compression, session.features)
        total = None
        if progress is not None or rate is not None or kind.flag:
            reply = stat_reply(session, remote, follow=True)
            if reply.error and (rate is not None or kind.flag):  # the size bounds the pull
                raise SyncFailError(remote, codec.errno_text(reply.error))
            total = None if reply.error else reply.stat.size
        ledger = Ledger("pull", total, progress)
        return receive(
            session, remote, _stream_writer(sink), ledger, size=total, rate=rate, compression=kind
        )


def pull(
    target: Connection | SyncSession,
    sources: str | Sequence[str],
    local: str | os.PathLike[str],
    *,
    preserve: bool = False,
    progress: ProgressCallback | None = None,
    timeout: float | None = None,
    min_rate: float | None = None,
    rate_grace: float = DEFAULT_RATE_GRACE,
    max_entries: int = DEFAULT_MAX_ENTRIES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    on_entries: EntriesCallback | None = None,
    compression: Compression = Compression.NONE,
) -> TransferResult:
    """Copy device files and directory trees here, with adb's destination rules.

    Mistakes found before anything moves raise (a missing remote source: SyncFailError;
    a bad local destination: UsageError). Failures of single files are collected in the
    result; only a lost connection or a timeout (idle, or under `min_rate`) raises
    mid-way. `preserve` keeps mtime and the permission bits (-a; never setuid, setgid or
    sticky). Trees are walked while they are pulled: more than `max_entries` entries in
    all ends the pull (a failure in the result), a directory deeper than `max_depth` is
    a failure of its own; `on_entries(count)` follows the walk. `compression` is adb's
    -z (ANY: the best the device offers; a named one it lacks raises UsageError).
    """
    names = [sources] if isinstance(sources, str) else list(sources)
    if not names:
        raise UsageError("pull needs at least one remote source")
    limits = WalkLimits(max_entries, max_depth)
    rate = min_rate_of(min_rate, rate_grace)
    destination = os.fspath(local)
    with session_for(target, timeout) as session:
        kind = resolve_compression(compression, session.features)
        ledger = Ledger("pull", None, progress)
        plan = plan_pull(session, names, destination, ledger, limits=limits, on_entries=on_entries)
        for batch in plan.batches():
            for job in batch:
                try:
                    if job.is_dir:
                        _make_local_dir(job.local)
                    else:
                        size = pull_to_path(
                            session, job, ledger, preserve=preserve, rate=rate, compression=kind
                        )
                        ledger.transferred(job.root, job.remote, job.local, size)
                except (SyncFailError, UsageError, StreamEnded) as exc:
                    ledger.failed(job.root, job.remote, job.local, exc)
        return ledger.finish()


def receive(
    session: SyncSession,
    remote: str,
    write: Writer,
    ledger: Ledger,
    *,
    size: int | None,
    rate: MinRate | None = None,
    compression: Compression = Compression.NONE,
) -> int:
    """RECV one file (of `size` bytes, if known) into `write`; errors say how far it got.

    `compression` must be resolved already (not ANY), and needs `size`: it bounds what the
    compressed stream may decompress to."""
    if session.sendrecv_v2:
        request = codec.encode_recv_v2(remote, compression.flag)
    else:
        request = codec.encode_request(codec.RECV, remote)
    what = f"pull of '{remote}'"
    moved = 0
    pace = None if rate is None else Pace(rate, remote, size)
    limit = None
    decoder = None
    if compression.flag:
        assert size is not None, "a compressed pull needs the file's size"
        decoder = Decoder(compression, limit=size + GROWTH_ALLOWANCE)

    def emit(data: bytes | memoryview) -> None:
        nonlocal moved
        write(memoryview(data))
        moved += len(data)
        ledger.advance(len(data))

    try:
        session.send(request, what)
        while True:
            if pace is not None:
                limit = pace.deadline(moved)
                if limit.expired():  # data keeps coming, too slowly
                    raise limit.error()
            event = session.next_event(Expect.DATA, what, limit=limit)
            if isinstance(event, DataChunk):
                if decoder is None:
                    emit(event.data)
                else:
                    decoder.feed(event.data, emit)
            elif isinstance(event, DataDone):
                if decoder is not None:
                    decoder.finish()
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


def pull_to_path(
    session: SyncSession,
    job: PullJob,
    ledger: Ledger,
    *,
    preserve: bool,
    rate: MinRate | None = None,
    compression: Compression = Compression.NONE,
) -> int:
    """RECV into a temporary file beside `job.local`, renamed over it only when complete."""
    descriptor, temp = _create_temp(job.local)
    try:
        with open(descriptor, "wb", buffering=0) as file:
            writer = _file_writer(file, job.local)
            size = receive(
                session,
                job.remote,
                writer,
                ledger,
                size=job.stat.size,
                rate=rate,
                compression=compression,
            )
        if preserve:
            os.utime(temp, (job.stat.mtime, job.stat.mtime))
            os.chmod(temp, job.stat.mode & PERMISSION_BITS & ~_umask())
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
    longest = _name_max(directory)
    if len(os.fsencode(name)) > longest:
        raise UsageError(
            f"cannot create '{final}': File name too long (this file system allows "
            f"{longest} bytes per name)"
        )
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    short = _shortened(name, longest - len(TEMP_SUFFIX) - 10)  # "." NAME "." 8 hex digits
    while True:
        temp = os.path.join(directory, f".{short}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
        try:
            return os.open(temp, flags, 0o644), temp
        except FileExistsError:
            continue
        except OSError as exc:
            raise UsageError(f"cannot create '{final}': {exc.strerror or exc}") from exc


def _name_max(directory: str) -> int:
    """The longest file name `directory`'s file system takes, in bytes (255 if unknown)."""
    try:
        return os.pathconf(directory or ".", "PC_NAME_MAX")
    except (AttributeError, OSError, ValueError):
        return NAME_MAX


def _shortened(name: str, room: int) -> str:
    """`name` cut to at most `room` bytes, so that a file whose own name fits also gets a
    temporary name that fits."""
    while len(os.fsencode(name)) > room:
        name = name[:-1]
    return name


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
    """The process umask, read without changing it (os.umask would, for every thread):
    from /proc on Linux, elsewhere (macOS, the BSDs) from the mode a new file gets."""
    if not _UMASK:
        value = _umask_from_proc()
        _UMASK.append(_umask_from_new_file() if value is None else value)
    return _UMASK[0]


def _umask_from_proc() -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return None


def _umask_from_new_file(directory: str | None = None) -> int:
    """Create a file asking for mode 0777: the bits the system took away are the umask."""
    path = os.path.join(
        directory or tempfile.gettempdir(), f".adbwire-umask-{secrets.token_hex(8)}"
    )
    try:
        descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o777)
    except OSError:
        return 0o022
    try:
        return 0o777 & ~stat_bits.S_IMODE(os.fstat(descriptor).st_mode)
    finally:
        os.close(descriptor)
        with contextlib.suppress(OSError):
            os.unlink(path)
