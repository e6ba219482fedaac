"""Writing a trace: a private directory, one JSON line per call, screenshots within a budget.

The tool call only hands its record over (`TraceWriter.submit`). A screen still to take
(the screen after an action) is taken in the device's own capture lane, a thread that lives
while the device has steps waiting: a frozen device holds back its own steps only, never
another device's. Then one writer thread encodes the screenshots, writes them (under a
temporary name, then renamed), appends the line and keeps the directory under its size
budget, dropping the oldest screenshots first. When even the lines no longer fit, further
calls are counted, not written, and the count closes the file. Nothing here may fail a tool
call: a disk error is logged once and ends the recording.
"""

from __future__ import annotations

import collections
import contextlib
import io
import json
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, features

from adbwire.errors import UsageError
from adbwire.mcp.safety.audit import now_iso
from adbwire.mcp.trace.format import FORMAT, SHOTS_DIR, TRACE_FILE, VERSION, shot_name

log = logging.getLogger(__name__)

DEFAULT_BUDGET_BYTES = 100 * 1024 * 1024
MIN_BUDGET_BYTES = 64 * 1024
END_RESERVE = 256
"""Bytes kept for the closing line, whatever the steps used."""
QUEUE_SIZE = 16
"""Calls waiting for the writer thread, and, apart, for one device's capture lane; a call that
finds its place full is counted as dropped, never waits (bounded memory, and a hung device's
screen stalls no call)."""
WEBP_QUALITY = 70
CAPTURE_THREAD = "adbwire-trace-capture"
"""The name of a device's capture lane thread."""
CLOSE_TIMEOUT = 30.0
WRITER_RESERVE = 5.0
"""Seconds of `CLOSE_TIMEOUT` kept for the writer (what is queued, then the closing line):
screens still being taken get the rest."""


@dataclass(frozen=True)
class Shot:
    """A screen, already downscaled, and the device size it came from."""

    image: Image.Image
    device_width: int
    device_height: int


Capture = Callable[[], Shot]
"""Takes a screen in the device's capture lane (the screen after an action, while the agent
reads the result) within its own deadline; raising leaves the step without it, with the
reason."""


@dataclass
class _Job:
    record: dict[str, Any]
    shots: dict[str, Shot]
    later: tuple[str, Capture] | None = None
    taken: threading.Event = field(default_factory=threading.Event)


class TraceWriter:
    """Writes one trace into `directory` (new or empty; made 0700)."""

    def __init__(
        self,
        directory: Path,
        *,
        budget_bytes: int = DEFAULT_BUDGET_BYTES,
        source: str = "api",
        title: str | None = None,
    ) -> None:
        if budget_bytes < MIN_BUDGET_BYTES:
            raise UsageError(f"a trace budget must be at least {MIN_BUDGET_BYTES} bytes")
        self.directory = directory
        self.budget_bytes = budget_bytes
        self.extension = "webp" if features.check("webp") else "png"
        if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
            raise UsageError(f"{directory} is not an empty directory; give a new one for the trace")
        _make_private_dir(directory)
        _make_private_dir(directory / SHOTS_DIR)
        self._used = 0
        self._shots: collections.deque[tuple[Path, int]] = collections.deque()
        self._steps = 0
        self.dropped_steps = 0
        self._count_lock = threading.Lock()
        self._broken = False
        self._index = 0
        self._index_lock = threading.Lock()
        self._closed = False
        self._lanes: dict[str | None, collections.deque[_Job]] = {}
        """Per device, its steps waiting behind a screen to take (the first is being taken)."""
        self._lanes_changed = threading.Condition()
        self._sealed = False
        """Closing gave up on the lanes: what they hold is counted as dropped, not handed on."""
        header = {
            "format": FORMAT,
            "version": VERSION,
            "created": now_iso(),
            "source": source,
            "title": title,
            "budget_bytes": budget_bytes,
        }
        self._append(header)
        self._queue: queue.Queue[_Job | None] = queue.Queue(QUEUE_SIZE)
        self._thread = threading.Thread(target=self._work, name="adbwire-trace", daemon=True)
        self._thread.start()

    @property
    def used_bytes(self) -> int:
        """Bytes the trace holds now (its lines and the screenshots still kept)."""
        return self._used

    def next_index(self) -> int:
        """The number of the next call, in the order calls arrive (from 1)."""
        with self._index_lock:
            self._index += 1
            return self._index

    def submit(
        self,
        record: dict[str, Any],
        shots: dict[str, Shot],
        later: tuple[str, Capture] | None = None,
    ) -> threading.Event:
        """Queue a finished call (`record` gets its ``screens`` when written), and `later`,
        a screen to take first, in the capture lane of the record's ``device``. A device's
        steps are written in the order they finished. Never blocks: a full queue or lane
        counts the call as dropped. The event is set once that screen is taken (or failed,
        or dropped), or, without one, once the call is written."""
        job = _Job(record, shots, later)
        device = record.get("device")
        key = device if isinstance(device, str) else None
        with self._lanes_changed:
            lane = self._lanes.get(key)
            if self._closed:
                job.taken.set()
            elif lane is None and later is None:  # nothing ahead of it, nothing to take
                self._hand_over(job)
            elif lane is None:
                self._lanes[key] = collections.deque([job])
                threading.Thread(
                    target=self._run_lane, args=(key,), name=CAPTURE_THREAD, daemon=True
                ).start()
            elif len(lane) < QUEUE_SIZE:
                lane.append(job)
            else:
                self._count_dropped(1)
                job.taken.set()
        return job.taken

    def flush(self) -> None:
        """Wait until every call submitted so far is on disk."""
        with self._lanes_changed:
            self._lanes_changed.wait_for(lambda: not self._lanes)
        self._queue.join()

    def close(self) -> None:
        """Write what is submitted and the closing line, within `CLOSE_TIMEOUT`: the steps of a
        device whose screen is still being taken when `WRITER_RESERVE` is left are counted
        as dropped (in the closing line, which that reserve leaves time for)."""
        deadline = time.monotonic() + CLOSE_TIMEOUT
        for_lanes = max(0.0, CLOSE_TIMEOUT - WRITER_RESERVE)
        with self._lanes_changed:
            if self._closed:
                return
            self._closed = True
            if not self._lanes_changed.wait_for(lambda: not self._lanes, for_lanes):
                self._sealed = True
                stuck = sum(len(lane) for lane in self._lanes.values())
                self._count_dropped(stuck)
                log.warning("trace: %d step(s) left behind a screen still being taken", stuck)
        with contextlib.suppress(queue.Full):  # the writer stuck on a disk
            self._queue.put(None, timeout=max(0.0, deadline - time.monotonic()))
        self._thread.join(max(0.0, deadline - time.monotonic()))
        if self._thread.is_alive():
            log.error("the trace writer did not finish within %s s", CLOSE_TIMEOUT)
            return
        self._append({"kind": "end", "steps": self._steps, "dropped_steps": self.dropped_steps})

    # ------------------------------------------------------------------ capture lanes

    def _run_lane(self, key: str | None) -> None:
        """Take the screens one device's steps wait for, in order, and hand the steps on."""
        while True:
            with self._lanes_changed:
                lane = self._lanes[key]
                if self._sealed:
                    return  # closing counted what is left here
                if not lane:
                    del self._lanes[key]
                    self._lanes_changed.notify_all()
                    return
                job = lane[0]
            if job.later is not None:
                self._take(job, *job.later)
            with self._lanes_changed:
                if self._sealed:
                    return
                lane.popleft()
                self._hand_over(job)

    def _hand_over(self, job: _Job) -> None:
        """To the writer thread, or counted as dropped when its queue is full."""
        try:
            self._queue.put_nowait(job)
        except queue.Full:
            self._count_dropped(1)
            job.taken.set()

    def _count_dropped(self, steps: int) -> None:
        with self._count_lock:
            self.dropped_steps += steps

    # ------------------------------------------------------------------ writer thread

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            try:
                if job is None:
                    return
                if not self._broken:
                    self._write(job)
            except Exception:  # a trace must never take the server down
                log.exception("trace recording stopped: writing %s failed", self.directory)
                self._broken = True
            finally:
                if job is not None:
                    job.taken.set()
                self._queue.task_done()

    def _take(self, job: _Job, moment: str, capture: Capture) -> None:
        try:
            job.shots[moment] = capture()
        except Exception as exc:  # a device gone, a timeout, a bug: the step says so
            screens = job.record.setdefault("screens", {})
            screens[moment] = {"missing": f"no screen: {str(exc)[:200]}"}
        finally:
            job.taken.set()

    def _write(self, job: _Job) -> None:
        record = job.record
        screens: dict[str, Any] = dict(record.get("screens") or {})
        for moment, shot in job.shots.items():
            screens[moment] = self._store_shot(int(record["index"]), moment, shot)
        if screens:
            record["screens"] = screens
        line = _line(record)
        self._make_room(len(line) + END_RESERVE)
        if self._used + len(line) + END_RESERVE > self.budget_bytes:
            self._count_dropped(1)
            return
        self._append_line(line)
        self._steps += 1

    def _store_shot(self, index: int, moment: str, shot: Shot) -> dict[str, Any]:
        data = _encode(shot.image, self.extension)
        name = shot_name(index, moment, self.extension)
        self._make_room(len(data) + END_RESERVE)
        if self._used + len(data) + END_RESERVE > self.budget_bytes:
            return {"missing": "larger than what is left of the trace budget"}
        path = self.directory / name
        partial = path.with_name("." + path.name + ".partial")
        _write_all(partial, data, os.O_TRUNC)
        os.replace(partial, path)
        self._shots.append((path, len(data)))
        self._used += len(data)
        return {
            "file": name,
            "width": shot.image.width,
            "height": shot.image.height,
            "device_width": shot.device_width,
            "device_height": shot.device_height,
        }

    def _make_room(self, needed: int) -> None:
        """Drop the oldest screenshots until `needed` more bytes fit (or none is left)."""
        while self._shots and self._used + needed > self.budget_bytes:
            path, size = self._shots.popleft()
            path.unlink(missing_ok=True)
            self._used -= size

    def _append(self, record: dict[str, Any]) -> None:
        self._append_line(_line(record))

    def _append_line(self, line: bytes) -> None:
        _write_all(self.directory / TRACE_FILE, line, os.O_APPEND)
        self._used += len(line)


def _line(record: dict[str, Any]) -> bytes:
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)
    return (text + "\n").encode("utf-8")


def _encode(image: Image.Image, extension: str) -> bytes:
    buffer = io.BytesIO()
    if extension == "webp":
        image.save(buffer, "WEBP", quality=WEBP_QUALITY, method=0)
    else:
        image.save(buffer, "PNG", compress_level=1)
    return buffer.getvalue()


def _write_all(path: Path, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | mode, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _make_private_dir(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)  # an existing empty directory keeps its mode otherwise
