"""Screen recording with ``screenrecord``: one per device, stopped on demand, pulled streamed.

``screenrecord --time-limit N [--size WxH] [--bit-rate B] FILE`` runs in the foreground of a
shell stream that a thread of ours keeps open (closing the stream would end it). Stopping
sends it SIGINT, on which it finishes the MP4 (an abrupt end would leave a file without its
index); the file is then pulled to the host chunk by chunk (memory stays flat) and removed
from the device. Its process id is the one ``pidof screenrecord`` lists that was not there
before we started it, asked once when its stream is open (and again at stop if it was not
listed yet): a fixed number of requests, so a recorded session replays. The file is
``adbwire-recording-N.mp4``, the first N not on the device.

A stream that opens only after the start gave up (`START_SECONDS`) is not left behind: its
thread sends screenrecord SIGINT, waits for it to end and removes the file.
"""

from __future__ import annotations

import contextlib
import posixpath
import re
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from adbwire.device import commands, files
from adbwire.device.errors import AlreadyExistsError, NotFoundError, VerificationError
from adbwire.errors import AdbwireError, CommandFailedError, UsageError
from adbwire.wire import shell_quote
from adbwire.wire.client import AdbClient
from adbwire.wire.timeouts import Deadline

MAX_SECONDS = 180
REMOTE_DIR = "/data/local/tmp"
START_SECONDS = 5.0
STOP_SECONDS = 15.0
MAX_OUTPUT = 16 * 1024
_SIZE = re.compile(r"^(\d{2,4})x(\d{2,4})$")


def recording_argv(
    remote: str, max_seconds: int, size: str | None = None, bit_rate: int | None = None
) -> list[str]:
    if not 1 <= max_seconds <= MAX_SECONDS:
        raise UsageError(f"max_seconds must be within 1..{MAX_SECONDS} (screenrecord's limit)")
    argv = ["screenrecord", "--time-limit", str(max_seconds)]
    if size is not None:
        match = _SIZE.match(size)
        if match is None or not all(16 <= int(v) <= 4096 for v in match.groups()):
            raise UsageError(f"size must be WIDTHxHEIGHT within 16..4096, not {size[:20]!r}")
        argv += ["--size", size]
    if bit_rate is not None:
        if not 100_000 <= bit_rate <= 100_000_000:
            raise UsageError("bit_rate must be within 100000..100000000 bits/s")
        argv += ["--bit-rate", str(bit_rate)]
    return [*argv, remote]


@dataclass
class Recording:
    serial: str
    remote_path: str
    max_seconds: int
    started_at: str
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None
    """When screenrecord exited (its stream ended)."""
    pid: int | None = None
    before: frozenset[int] = frozenset()
    """screenrecord processes that ran before ours started."""
    exit_code: int | None = None
    output: bytearray = field(default_factory=bytearray)
    error: str | None = None
    done: threading.Event = field(default_factory=threading.Event)
    opened: threading.Event = field(default_factory=threading.Event)
    settled: threading.Event = field(default_factory=threading.Event)
    """Set once the stream opened or the thread ended, whichever came first."""
    abandoned: bool = False
    """The start gave up on it: a stream opening later is stopped and its file removed."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def mark_opened(self) -> bool:
        """The stream is open; False if the start already gave up on it."""
        with self._lock:
            if self.abandoned:
                return False
            self.opened.set()
            self.settled.set()
            return True

    def abandon(self) -> bool:
        """The start failed: whether the stream was already open (the caller stops it)."""
        with self._lock:
            self.abandoned = True
            return self.opened.is_set()

    @property
    def said(self) -> str:
        return commands.decode(bytes(self.output)).strip()[-300:]

    def elapsed(self) -> float:
        """Seconds recorded: up to its end, not to when it was pulled."""
        end = time.monotonic() if self.ended is None else self.ended
        return min(end - self.started, float(self.max_seconds))


@dataclass(frozen=True)
class Stopped:
    host_path: Path
    remote_path: str
    duration_s: float
    bytes: int
    ended_by: str
    """stop (we sent SIGINT) or time_limit (screenrecord ended at max_seconds)."""


def _free_name(client: AdbClient) -> str:
    for number in range(1, 100):
        path = posixpath.join(REMOTE_DIR, f"adbwire-recording-{number}.mp4")
        if not files.exists(client, path):
            return path
    raise AlreadyExistsError(f"{REMOTE_DIR} holds 99 adbwire recordings: remove them first")


def _pids(client: AdbClient) -> set[int]:
    result = commands.run(client, ["pidof", "screenrecord"], timeout=10.0)
    return {int(word) for word in commands.decode(result.stdout).split() if word.isdigit()}


class Recorder:
    """The recordings running on each device (at most one per device)."""

    def __init__(self) -> None:
        self._active: dict[str, Recording] = {}
        self._lock = threading.Lock()

    def running(self, serial: str) -> Recording | None:
        with self._lock:
            return self._active.get(serial)

    def start(
        self,
        client: AdbClient,
        *,
        max_seconds: int = MAX_SECONDS,
        size: str | None = None,
        bit_rate: int | None = None,
    ) -> Recording:
        recording_argv("/x.mp4", max_seconds, size, bit_rate)  # refuse before the device
        now = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
        recording = Recording(client.serial, "", max_seconds, now)
        with self._lock:
            current = self._active.get(client.serial)
            if current is not None:
                raise AlreadyExistsError(
                    f"a recording started at {current.started_at} is still running on "
                    f"{client.serial}: stop it first (one per device)"
                )
            self._active[client.serial] = recording
        try:
            recording.remote_path = _free_name(client)
            argv = recording_argv(recording.remote_path, max_seconds, size, bit_rate)
            recording.before = frozenset(_pids(client))
            thread = threading.Thread(
                target=_record, args=(client, argv, recording), name="screenrecord", daemon=True
            )
            thread.start()
            _confirm_started(client, recording)
        except BaseException:
            self._forget(recording)
            if recording.abandon():  # open: stop it here; else its thread does when it opens
                with contextlib.suppress(AdbwireError):
                    _finish(client, recording)
                _remove(client, recording)
            raise
        return recording

    def stop(
        self, client: AdbClient, destination: Path, *, cap: int, progress: files.Progress | None
    ) -> Stopped:
        """End the recording (if still running), pull the MP4 to ``destination`` and remove
        it from the device."""
        recording = self._take(client.serial)
        ended_by = "time_limit" if recording.done.is_set() else "stop"
        try:
            _finish(client, recording)
            if recording.exit_code not in (0, None) and not _exists(client, recording):
                raise CommandFailedError("screenrecord", recording.exit_code, recording.said)
            size = files.pull_to_file(client, recording.remote_path, destination, cap=cap,
                                      progress=progress)  # fmt: skip
        finally:
            _remove(client, recording)
        return Stopped(destination, recording.remote_path, round(recording.elapsed(), 1), size,
                       ended_by)  # fmt: skip

    def abort(self, client: AdbClient) -> bool:
        """Stop the device's recording, if any, and delete its file (nothing is pulled)."""
        with self._lock:
            recording = self._active.pop(client.serial, None)
        if recording is None:
            return False
        try:
            _finish(client, recording)
        finally:
            _remove(client, recording)
        return True

    def _take(self, serial: str) -> Recording:
        with self._lock:
            recording = self._active.pop(serial, None)
        if recording is None:
            raise NotFoundError(f"no recording is running on {serial}")
        return recording

    def _forget(self, recording: Recording) -> None:
        with self._lock:
            if self._active.get(recording.serial) is recording:
                del self._active[recording.serial]


def _record(client: AdbClient, argv: list[str], recording: Recording) -> None:
    """The thread that keeps screenrecord's shell stream open until it exits."""
    deadline = Deadline(recording.max_seconds + STOP_SECONDS + 60, "screenrecord")
    abandoned = False
    try:
        with client.start_shell(shell_quote.join(argv), max_output=MAX_OUTPUT) as process:
            abandoned = not recording.mark_opened()
            process.close_stdin(deadline)
            if abandoned:  # opened after the start gave up: end it now
                _interrupt(client, recording)
                deadline = Deadline(STOP_SECONDS, "screenrecord after SIGINT")
            for _channel, data in process.output(deadline):
                recording.output += data[: MAX_OUTPUT - len(recording.output)]
            recording.exit_code = process.exit_code
    except AdbwireError as exc:
        recording.error = str(exc)[:300]
    finally:
        recording.ended = time.monotonic()
        recording.done.set()
        recording.settled.set()
        if abandoned:
            _remove(client, recording)


def _confirm_started(client: AdbClient, recording: Recording) -> None:
    """Its stream is open and it has not failed; its pid when already listed."""
    if not recording.settled.wait(START_SECONDS):
        raise VerificationError(f"screenrecord did not start within {START_SECONDS:g}s")
    new = _pids(client) - recording.before if recording.opened.is_set() else set()
    if _failed(recording) or (recording.done.is_set() and recording.exit_code is None):
        detail = recording.error or recording.said or "it ended at once"
        raise CommandFailedError("screenrecord", recording.exit_code or 1, detail)
    recording.pid = max(new) if new else None


def _failed(recording: Recording) -> bool:
    """It already ended with an error (pidof can still list a process that is exiting)."""
    return recording.done.is_set() and recording.exit_code not in (0, None)


def _finish(client: AdbClient, recording: Recording) -> None:
    """SIGINT, then wait for screenrecord to write the MP4's index and exit."""
    if recording.done.is_set():
        return
    _interrupt(client, recording)
    if not recording.done.wait(STOP_SECONDS):
        raise VerificationError(
            f"screenrecord (pid {recording.pid}) did not end within {STOP_SECONDS:g}s of SIGINT"
        )


def _interrupt(client: AdbClient, recording: Recording) -> None:
    """SIGINT to our screenrecord (its pid found now if it was not listed yet)."""
    if recording.pid is None:
        new = _pids(client) - recording.before
        recording.pid = max(new) if new else None
    if recording.pid is not None:
        commands.run(client, ["kill", "-2", str(recording.pid)], timeout=10.0)


def _exists(client: AdbClient, recording: Recording) -> bool:
    try:
        return files.stat(client, recording.remote_path).is_file
    except AdbwireError:
        return False


def _remove(client: AdbClient, recording: Recording) -> None:
    with contextlib.suppress(AdbwireError):  # best effort: the device may be gone
        commands.run(client, ["rm", "-f", recording.remote_path], timeout=10.0)
