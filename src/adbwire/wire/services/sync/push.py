"""SEND / SND2: pipelined upload of files, streams and directory trees.

The protocol answers a file only after its DONE, so a file goes out as SEND, every DATA and
DONE without waiting; file data is read straight into a reusable batch buffer behind
pre-placed DATA headers, and one stream write carries a whole batch (small files share
one). Replies are collected as they arrive and at the end.

adbd answers a failing file with FAIL and then ends the sync service, dropping whatever
followed it in the pipe; those files are sent again on a fresh stream, so one failure
never hides another file's fate: each lands in the result as transferred, failed or
skipped.

With compression (adb 31+ devices, compression.py), a file of 64 KiB or more goes out as
one compressed stream in DATA messages; smaller files go raw, as adb sends them.
"""

from __future__ import annotations

import os
import stat as stat_module
import time
from collections import deque
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, BinaryIO

from adbwire.errors import DisconnectedError, SyncFailError, UsageError
from adbwire.wire.services.sync import codec
from adbwire.wire.services.sync.codec import DATA_MAX, HEADER_SIZE, Expect, Fail, Okay, SyncEvent
from adbwire.wire.services.sync.compression import Compression, Encoder, resolve_compression
from adbwire.wire.services.sync.push_plan import PushJob, plan_push
from adbwire.wire.services.sync.results import Ledger, ProgressCallback, TransferResult
from adbwire.wire.services.sync.session import StreamEnded, SyncSession, session_for

if TYPE_CHECKING:
    from adbwire.wire.connection import Connection

MIN_BATCH = 128 * 1024
MIN_CHUNK = 16 * 1024
"""Below this much room left in a batch, send the batch rather than a small DATA."""
MAX_IN_FLIGHT = 128
"""Files sent but not yet answered (adb's limit: adbd's socket buffer holds their replies)."""


def push_stream(
    target: Connection | SyncSession,
    source: BinaryIO,
    remote: str,
    *,
    mode: int = 0o644,
    mtime: int | None = None,
    size: int | None = None,
    progress: ProgressCallback | None = None,
    timeout: float | None = None,
    compression: Compression = Compression.NONE,
) -> int:
    """Upload everything `source` yields to `remote`; returns the byte count.

    `mode` is the file's permission bits; `mtime` defaults to now; `size` only feeds the
    progress callback (and, under 64 KiB, sends the file raw whatever `compression`
    says). A device FAIL raises SyncFailError naming `remote`.
    """
    if not stat_module.S_IFMT(mode):
        mode |= stat_module.S_IFREG
    if size is None:
        size = _stream_size(source)
    codec.check_path(codec.encode_path(remote), remote)
    name = getattr(source, "name", None)
    job = PushJob(
        root=remote,
        local=name if isinstance(name, str) else "<stream>",
        remote=remote,
        mode=mode,
        mtime=int(time.time()) if mtime is None else mtime,
        size=size,
        stream=source,
    )
    with session_for(target, timeout) as session:
        ledger = Ledger("push", size, progress)
        result = send_jobs(session, [job], ledger, compression=compression)
    result.raise_first()
    return result.bytes_transferred


def push(
    target: Connection | SyncSession,
    sources: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    remote: str,
    *,
    sync_only: bool = False,
    progress: ProgressCallback | None = None,
    timeout: float | None = None,
    compression: Compression = Compression.ANY,
) -> TransferResult:
    """Copy local files and directory trees to the device, with adb's destination rules.

    Mistakes found before anything moves raise (UsageError: a missing local source, a
    directory onto a remote file, several sources onto a non-directory). Failures of
    single files are collected in the result; only a lost connection raises mid-way.
    `sync_only` skips files whose remote copy has the same size and mtime (adb --sync).
    `compression` is adb's -z: ANY (adb push's default) takes the best algorithm the
    device offers, if any; a named one the device lacks raises UsageError.
    """
    if isinstance(sources, (str, os.PathLike)):
        names = [os.fspath(sources)]
    else:
        names = [os.fspath(item) for item in sources]
    if not names:
        raise UsageError("push needs at least one local source")
    with session_for(target, timeout) as session:
        ledger = Ledger("push", None, progress)
        jobs = plan_push(session, names, remote, ledger, sync_only=sync_only)
        ledger.total = sum(job.size or 0 for job in jobs)
        return send_jobs(session, jobs, ledger, compression=compression)


def send_jobs(
    session: SyncSession,
    jobs: Iterable[PushJob],
    ledger: Ledger,
    *,
    compression: Compression = Compression.NONE,
) -> TransferResult:
    """Send every job over the session's stream; the result says how each one ended."""
    if compression is not Compression.NONE:
        compression = resolve_compression(compression, session.features)
    _Pusher(session, ledger, compression).run(jobs)
    return ledger.finish()


class _DeviceFailed(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _LocalReadError(Exception):
    pass


class _Pusher:
    def __init__(self, session: SyncSession, ledger: Ledger, compression: Compression) -> None:
        self.session = session
        self.ledger = ledger
        self.compression = compression
        self.scratch = memoryview(bytearray(DATA_MAX if compression.flag else 0))
        self.buffer = bytearray(max(session.connection.max_payload, MIN_BATCH))
        self.view = memoryview(self.buffer)
        self.used = 0
        self.queue: deque[PushJob] = deque()
        self.in_flight: deque[PushJob] = deque()
        self.current: PushJob | None = None

    def run(self, jobs: Iterable[PushJob]) -> None:
        self.queue.extend(jobs)
        try:
            while self.queue or self.in_flight:
                try:
                    self._step()
                except _DeviceFailed as failed:
                    self._recover(failed.message)
                except StreamEnded:
                    self._recover_after_close()
        except DisconnectedError as exc:
            done = len(self.ledger.result.transferred)
            raise DisconnectedError(
                f"push stopped after {self.ledger.done} bytes ({done} files done): {exc}"
            ) from exc

    def _step(self) -> None:
        if not self.queue:
            self._flush()  # may itself take the replies that have arrived meanwhile
            if self.in_flight:
                self._wait_reply()
            return
        job = self.queue.popleft()
        source = self._open(job)
        if source is None and job.link_target is None:
            return
        self.current = job
        try:
            self._write_job(job, source)
        except _LocalReadError as exc:
            self._abandon_current(str(exc))
            return
        finally:
            if source is not None and job.stream is None:
                source.close()
        self.current = None
        self.in_flight.append(job)
        if len(self.in_flight) >= MAX_IN_FLIGHT:
            self._flush()
            if len(self.in_flight) >= MAX_IN_FLIGHT:
                self._wait_reply()

    # ---------------------------------------------------------------- writing

    def _open(self, job: PushJob) -> BinaryIO | None:
        if job.stream is not None or job.link_target is not None:
            return job.stream
        try:
            return open(job.local, "rb", buffering=0)  # closed in _step
        except OSError as exc:
            error = UsageError(f"cannot read '{job.local}': {exc.strerror or exc}")
            self.ledger.failed(job.root, job.local, job.remote, error)
            return None

    def _write_job(self, job: PushJob, source: BinaryIO | None) -> None:
        encoder = self._encoder_for(job)
        if self.session.sendrecv_v2:
            flag = 0 if encoder is None else encoder.kind.flag
            self._add(codec.encode_send_v2(job.remote, job.mode, flag))
        else:
            self._add(codec.encode_send_v1(job.remote, job.mode))
        if job.link_target is not None:
            body = job.link_target + b"\0"
            self._add(codec.HEADER.pack(codec.DATA, len(body)) + body)
            job.sent = len(body)
        elif encoder is not None:
            assert source is not None
            self._add_compressed_body(job, source, encoder)
        else:
            assert source is not None
            self._add_body(job, source)
            if not job.sent:
                self._add(codec.HEADER.pack(codec.DATA, 0))  # as adb sends an empty file
        self._add(codec.encode_done(job.mtime))

    def _add(self, data: bytes | memoryview) -> None:
        if len(data) > len(self.buffer) - self.used:
            self._flush()
        self.view[self.used : self.used + len(data)] = data
        self.used += len(data)

    def _add_body(self, job: PushJob, source: BinaryIO) -> None:
        readinto = getattr(source, "readinto", None)
        while True:
            room = len(self.buffer) - self.used - HEADER_SIZE
            if room < MIN_CHUNK:
                self._flush()
                room = len(self.buffer) - HEADER_SIZE
            start = self.used + HEADER_SIZE
            window = self.view[start : start + min(DATA_MAX, room)]
            try:
                got = _read_into(source, readinto, window)
            except OSError as exc:
                raise _LocalReadError(f"cannot read '{job.local}': {exc}") from exc
            if not got:
                return
            codec.pack_data_header(self.buffer, self.used, got)
            self.used = start + got
            job.sent += got
            self.ledger.advance(got)

    def _encoder_for(self, job: PushJob) -> Encoder | None:
        """adb compresses only files of 64 KiB or more (smaller ones go out in one write)."""
        if not self.compression.flag or job.link_target is not None:
            return None
        if job.size is not None and job.size < DATA_MAX:
            return None
        return Encoder(self.compression)

    def _add_compressed_body(self, job: PushJob, source: BinaryIO, encoder: Encoder) -> None:
        readinto = getattr(source, "readinto", None)
        while True:
            try:
                got = _read_into(source, readinto, self.scratch)
            except OSError as exc:
                raise _LocalReadError(f"cannot read '{job.local}': {exc}") from exc
            if not got:
                self._add_data(encoder.finish())
                return
            self._add_data(encoder.compress(self.scratch[:got]))
            job.sent += got
            self.ledger.advance(got)

    def _add_data(self, payload: bytes) -> None:
        """DATA messages of at most 64 KiB carrying `payload` (compressed bytes), copied
        once, into the batch (a message may straddle two batches: sync is a byte stream)."""
        view = memoryview(payload)
        for start in range(0, len(view), DATA_MAX):
            piece = view[start : start + DATA_MAX]
            self._add(codec.HEADER.pack(codec.DATA, len(piece)))
            self._add(piece)

    def _flush(self) -> None:
        if self.used:
            used, self.used = self.used, 0
            self.session.send(self.view[:used], "push")
            self._take_available_replies()

    # ---------------------------------------------------------------- replies

    def _take_available_replies(self) -> None:
        while (event := self.session.poll_event(Expect.STATUS)) is not None:
            self._on_reply(event)

    def _wait_reply(self) -> None:
        self._on_reply(self.session.next_event(Expect.STATUS, "push"))

    def _on_reply(self, event: SyncEvent) -> None:
        if isinstance(event, Fail):
            raise _DeviceFailed(event.message)
        if not isinstance(event, Okay) or not self.in_flight:
            raise self.session.unexpected(event, "push")
        job = self.in_flight.popleft()
        self.ledger.transferred(job.root, job.local, job.remote, job.sent)

    # ---------------------------------------------------------------- failures

    def _abandon_current(self, message: str) -> None:
        """A local read failed mid-file: settle earlier files, then end the stream so the
        device drops the partial file."""
        job, self.current = self.current, None
        assert job is not None
        self.ledger.failed(job.root, job.local, job.remote, UsageError(message))
        self._flush()
        while self.in_flight:
            self._wait_reply()
        self.session.discard()

    def _recover(self, message: str) -> None:
        """A FAIL answers the oldest unanswered file; the device then ends the stream."""
        victim = self.in_flight.popleft() if self.in_flight else self.current
        again = list(self.in_flight)
        if self.current is not None and self.current is not victim:
            again.append(self.current)
        if victim is not None:
            error = SyncFailError(victim.remote, message)
            self.ledger.failed(victim.root, victim.local, victim.remote, error)
        self._restart(again)

    def _recover_after_close(self) -> None:
        """The stream closed under us: read what the device said before it closed."""
        try:
            while self.session.is_open and self.in_flight:
                self._wait_reply()
            if self.session.is_open:
                self._wait_reply()  # a FAIL about the file being sent, or the end
        except _DeviceFailed as failed:
            self._recover(failed.message)
            return
        except StreamEnded:
            pass
        self._recover("the device closed the sync stream without saying why")

    def _restart(self, again: list[PushJob]) -> None:
        """Queue the files the device dropped, to go again on a fresh stream."""
        resend: list[PushJob] = []
        for job in again:
            self.ledger.rewind(job.sent)
            job.sent = 0
            if job.stream is None:
                resend.append(job)
            else:
                error = SyncFailError(job.remote, "not sent: the stream cannot be read again")
                self.ledger.failed(job.root, job.local, job.remote, error)
        self.queue.extendleft(reversed(resend))
        self.in_flight.clear()
        self.current = None
        self.used = 0
        self.session.discard()


def _read_into(source: BinaryIO, readinto: object, window: memoryview) -> int:
    if callable(readinto):
        got = readinto(window)
        if got is None:
            raise UsageError("the source stream is non-blocking and had no data ready")
        return int(got)
    data = source.read(len(window))
    window[: len(data)] = data
    return len(data)


def _stream_size(source: BinaryIO) -> int | None:
    """Bytes left in a seekable stream, for progress; None when it cannot be known."""
    try:
        if not source.seekable():
            return None
        position = source.tell()
        end = source.seek(0, os.SEEK_END)
        source.seek(position)
    except (OSError, ValueError, AttributeError):
        return None
    return max(0, end - position)
