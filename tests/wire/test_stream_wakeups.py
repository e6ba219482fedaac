"""Every blocked stream call wakes promptly on close, cancel and link failure.

The device answers OPENs (except 'shell:hang-open'), never acknowledges our WRTEs and never
sends data, so a read, a write beyond the first packet and that one OPEN all block until
something other than the device wakes them. Each case is repeated to shake out races
between the waiter's check and its wait.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from adbwire.errors import (
    AdbTimeoutError,
    DisconnectedError,
    OperationCancelledError,
)
from adbwire.wire import packets as P
from adbwire.wire.client import AdbClient
from adbwire.wire.operation import Operation
from adbwire.wire.stream import Stream
from adbwire.wire.timeouts import Deadline, Timeouts

from .fake_peer import PeerSocket, fake_device

FAST = Timeouts(connect=3.0, auth=1.0, operation=10.0)
PROMPT = 5.0
"""Seconds within which a woken call must have returned (its own deadline is far later)."""


def silent_device(drop: threading.Event) -> Callable[[PeerSocket], None]:
    def script(peer: PeerSocket) -> None:
        peer.accept_cnxn()
        peer.sock.settimeout(0.05)
        next_id = 100
        while not drop.is_set():
            try:
                packet = peer.recv_packet()
            except TimeoutError:
                continue
            if packet.command == P.A_OPEN and not bytes(packet.payload).startswith(
                b"shell:hang-open"
            ):
                peer.send(P.Packet(P.A_OKAY, next_id, packet.arg0))
                next_id += 1
        peer.sock.close()

    return script


@contextmanager
def silent_client() -> Iterator[tuple[AdbClient, threading.Event]]:
    drop = threading.Event()
    try:
        with (
            fake_device(silent_device(drop)) as (address, _),
            AdbClient.connect_tcp(address, [], timeouts=FAST) as client,
        ):
            yield client, drop
    finally:
        drop.set()


class Outcome:
    """Runs `call` in a thread; records what it raised and when it finished."""

    def __init__(self, call: Callable[[], object]) -> None:
        self.started = threading.Event()
        self.error: BaseException | None = None
        self.finished_at: float | None = None

        def run() -> None:
            self.started.set()
            try:
                call()
            except BaseException as exc:
                self.error = exc
            self.finished_at = time.monotonic()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert self.started.wait(5)

    def join(self) -> BaseException | None:
        self.thread.join(PROMPT)
        assert not self.thread.is_alive(), "the blocked call was never woken"
        return self.error


def block_a_write(stream: Stream) -> Callable[[], object]:
    stream.write(b"first", Deadline(5, "first write"))  # uses the one classic credit
    return lambda: stream.write(b"second", Deadline(30, "second write"))


@pytest.mark.parametrize("pause", [0.0, 0.001, 0.02])
def test_close_wakes_a_blocked_reader_and_writer(pause: float) -> None:
    with silent_client() as (client, _):
        for _ in range(10):
            stream = client.open_stream("shell:x")
            reader = Outcome(functools.partial(stream.read, None, Deadline(30, "read")))
            writer = Outcome(block_a_write(stream))
            time.sleep(pause)  # close before, during or after the waits begin
            stream.close()
            assert isinstance(reader.join(), OperationCancelledError)
            assert isinstance(writer.join(), OperationCancelledError)


@pytest.mark.parametrize("pause", [0.0, 0.001, 0.02])
def test_cancel_wakes_an_open_waiting_for_its_okay(pause: float) -> None:
    with silent_client() as (client, _):
        for _ in range(10):
            operation = Operation()

            def open_hanging(op: Operation = operation) -> None:
                with op.bound():
                    client.open_stream("shell:hang-open", timeout=30)

            opener = Outcome(open_hanging)
            time.sleep(pause)
            operation.cancel()
            error = opener.join()
            # Cancelled before it adopted the stream or while waiting: either way cancelled.
            assert isinstance(error, OperationCancelledError), error


def test_link_failure_wakes_reader_writer_and_opener_together() -> None:
    with silent_client() as (client, drop):
        stream = client.open_stream("shell:x")
        reader = Outcome(lambda: stream.read(None, Deadline(30, "read")))
        writer = Outcome(block_a_write(stream))
        opener = Outcome(lambda: client.open_stream("shell:hang-open", timeout=30))
        time.sleep(0.05)
        dropped_at = time.monotonic()
        drop.set()
        for outcome in (reader, writer, opener):
            assert isinstance(outcome.join(), DisconnectedError), outcome.error
            assert outcome.finished_at is not None
            assert outcome.finished_at - dropped_at < PROMPT


def test_second_reader_honours_its_deadline_behind_a_blocked_one() -> None:
    with silent_client() as (client, _):
        stream = client.open_stream("shell:x")
        first = Outcome(lambda: stream.read(None, None))  # blocks with no deadline
        time.sleep(0.05)
        started = time.monotonic()
        with pytest.raises(AdbTimeoutError):
            stream.read(None, Deadline(0.2, "second read"))
        assert time.monotonic() - started < 0.2 + PROMPT
        stream.close()
        assert isinstance(first.join(), OperationCancelledError)


def test_second_writer_honours_its_deadline_behind_a_blocked_one() -> None:
    with silent_client() as (client, _):
        stream = client.open_stream("shell:x")
        first = Outcome(block_a_write(stream))
        time.sleep(0.05)
        started = time.monotonic()
        with pytest.raises(AdbTimeoutError):
            stream.write(b"third", Deadline(0.2, "third write"))
        assert time.monotonic() - started < 0.2 + PROMPT
        stream.close()
        assert isinstance(first.join(), OperationCancelledError)
