"""The push pipeline against an instant device: replies are ready the moment a batch is
written, the timing a fast device gives and the simulator only sometimes does. Any wait
for a reply that is not owed fails at once (no sleeping, no timeouts)."""

from __future__ import annotations

import io
import struct
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from adbwire.errors import AdbTimeoutError
from adbwire.wire.services.sync import codec
from adbwire.wire.services.sync.codec import Expect, Fail, Okay, SyncEvent
from adbwire.wire.services.sync.push import send_jobs
from adbwire.wire.services.sync.push_plan import PushJob
from adbwire.wire.services.sync.results import Ledger
from adbwire.wire.services.sync.session import StreamEnded

HEADER = struct.Struct("<4sI")


@dataclass
class FakeConnection:
    max_payload: int = 256 * 1024


@dataclass
class InstantDevice:
    """Stands in for SyncSession: parses what is sent, answers at once, adbd-style."""

    failing: set[str] = field(default_factory=set)
    connection: FakeConnection = field(default_factory=FakeConnection)
    sendrecv_v2: bool = True
    received: dict[str, bytes] = field(default_factory=dict)
    streams_opened: int = 0
    _open: bool = False
    _closed_by_device: bool = False
    _pending: bytearray = field(default_factory=bytearray)
    _replies: deque[SyncEvent] = field(default_factory=deque)
    _path: str | None = None
    _body: bytearray = field(default_factory=bytearray)

    @property
    def is_open(self) -> bool:
        return self._open

    def send(self, data: memoryview | bytes, what: str = "") -> None:
        if not self._open:
            self._open, self._closed_by_device = True, False
            self.streams_opened += 1
            self._pending.clear()
        if self._closed_by_device:
            raise StreamEnded("closed")
        self._pending += data
        self._parse()

    def _parse(self) -> None:
        while len(self._pending) >= 8 and not self._closed_by_device:
            message_id, length = HEADER.unpack_from(self._pending)
            if message_id == codec.SND2:
                if len(self._pending) < 8 + length + 12:
                    return
                self._path = bytes(self._pending[8 : 8 + length]).decode()
                del self._pending[: 8 + length + 12]
                self._body = bytearray()
            elif message_id == codec.DATA:
                if len(self._pending) < 8 + length:
                    return
                self._body += self._pending[8 : 8 + length]
                del self._pending[: 8 + length]
            elif message_id == codec.DONE:
                del self._pending[:8]
                assert self._path is not None
                if self._path in self.failing:
                    self._replies.append(Fail("couldn't create file: Read-only file system"))
                    self._closed_by_device = True  # adbd ends the service after FAIL
                else:
                    self.received[self._path] = bytes(self._body)
                    self._replies.append(Okay())
            else:
                raise AssertionError(f"unexpected {message_id!r}")

    def poll_event(self, expect: Expect) -> SyncEvent | None:
        return self._replies.popleft() if self._replies else None

    def next_event(self, expect: Expect, what: str = "") -> SyncEvent:
        if self._replies:
            return self._replies.popleft()
        if self._closed_by_device:
            self.discard()
            raise StreamEnded("closed")
        raise AdbTimeoutError("waited for a reply that is not owed")

    def discard(self) -> None:
        self._open = False
        self._replies.clear()

    def unexpected(self, event: SyncEvent, what: str) -> Exception:
        raise AssertionError(f"unexpected {event}")


def jobs_for(names: list[str], size: int = 10) -> list[PushJob]:
    return [
        PushJob(name, name, name, 0o100644, 1, size, stream=io.BytesIO(name.encode() * size))
        for name in names
    ]


def run(device: InstantDevice, jobs: list[PushJob]) -> tuple[list[str], list[str]]:
    result = send_jobs(device, jobs, Ledger("push", None, None))  # type: ignore[arg-type]
    return [t.destination for t in result.transferred], [f.destination for f in result.failed]


def test_replies_that_arrive_with_the_last_batch_are_not_waited_for_again() -> None:
    device = InstantDevice()
    transferred, failed = run(device, jobs_for(["/a"]))
    assert (transferred, failed) == (["/a"], [])
    assert device.received["/a"] == b"/a" * 10


def test_many_small_files_share_batches_and_one_stream() -> None:
    names = [f"/f{i}" for i in range(300)]  # more than MAX_IN_FLIGHT
    device = InstantDevice()
    transferred, failed = run(device, jobs_for(names))
    assert transferred == names and not failed
    assert device.streams_opened == 1


def test_a_fail_ahead_of_pipelined_files_resends_them_on_a_new_stream(tmp_path: Path) -> None:
    names = [f"/f{i}" for i in range(10)]
    jobs = []
    for name in names:  # files on disk can be read again, so they can be sent again
        local = tmp_path / name.strip("/")
        local.write_bytes(name.encode() * 3)
        jobs.append(PushJob(name, str(local), name, 0o100644, 1, len(name) * 3))
    device = InstantDevice(failing={"/f3"})
    transferred, failed = run(device, jobs)
    assert failed == ["/f3"]
    assert transferred == [n for n in names if n != "/f3"]
    assert all(device.received[n] == n.encode() * 3 for n in transferred)
    assert device.streams_opened == 2


def test_a_stream_that_cannot_be_read_again_is_reported_not_lost() -> None:
    device = InstantDevice(failing={"/first"})
    result = send_jobs(device, jobs_for(["/first", "/second"]), Ledger("push", None, None))  # type: ignore[arg-type]
    assert [f.destination for f in result.failed] == ["/first", "/second"]
    assert "cannot be read again" in str(result.failed[1].error)
    assert result.transferred == []
