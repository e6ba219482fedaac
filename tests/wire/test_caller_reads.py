"""Leader/follower reading (wire/reading.py): a waiting caller reads the link itself.

A scripted device answers every OPEN with OKAY and otherwise sends only what a test tells
it to, byte for byte, so a test can cut a packet in two, or feed one stream while another
waits.
"""

from __future__ import annotations

import queue
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from adbwire.errors import AdbTimeoutError, OperationCancelledError
from adbwire.wire import packets as P
from adbwire.wire import reading
from adbwire.wire.client import AdbClient
from adbwire.wire.connection import Connection
from adbwire.wire.protocol import ConnectionState
from adbwire.wire.timeouts import Deadline, Timeouts

from .fake_peer import PeerSocket, fake_device

FAST = Timeouts(connect=3.0, auth=1.0, operation=10.0)
PROMPT = 5.0
"""Seconds within which a woken or timed-out call must have returned."""


class Device:
    """The device's side: the remote id of each stream, and raw bytes to send."""

    def __init__(self, peer: PeerSocket) -> None:
        self.peer = peer
        self.remote_of: dict[int, int] = {}
        self.opened: queue.Queue[int] = queue.Queue()

    def wrte(self, local_id: int, data: bytes) -> bytes:
        return P.Packet(P.A_WRTE, self.remote_of[local_id], local_id, data).encode(
            with_checksum=False
        )

    def clse(self, local_id: int) -> bytes:
        return P.Packet(P.A_CLSE, self.remote_of[local_id], local_id).encode(with_checksum=False)


@contextmanager
def scripted_client() -> Iterator[tuple[AdbClient, Device]]:
    ready: queue.Queue[Device] = queue.Queue()
    stop = threading.Event()

    def script(peer: PeerSocket) -> None:
        peer.accept_cnxn()
        device = Device(peer)
        ready.put(device)
        peer.sock.settimeout(0.05)
        next_id = 100
        while not stop.is_set():
            try:
                packet = peer.recv_packet()
            except TimeoutError:
                continue
            if packet.command == P.A_OPEN:
                device.remote_of[packet.arg0] = next_id
                peer.send(P.Packet(P.A_OKAY, next_id, packet.arg0))
                device.opened.put(packet.arg0)
                next_id += 1

    try:
        with (
            fake_device(script) as (address, _),
            AdbClient.connect_tcp(address, [], timeouts=FAST) as client,
        ):
            yield client, ready.get(timeout=5)
    finally:
        stop.set()


def packet_threads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str]]:
    """Record, for every packet the connection applies, its command and the thread."""
    seen: list[tuple[int, str]] = []
    original = Connection._on_packet

    def noting(self: Connection, header: P.Header, payload: bytes, waiter: object) -> bool:
        seen.append((header.command, threading.current_thread().name))
        return original(self, header, payload, waiter)  # type: ignore[arg-type]

    monkeypatch.setattr(Connection, "_on_packet", noting)
    return seen


def in_thread(call: Callable[[], object]) -> tuple[threading.Thread, list[BaseException]]:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, errors


def test_a_waiting_caller_reads_the_link_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "READER_GRACE", 60.0)  # once out, the reader thread stays out
    seen = packet_threads(monkeypatch)
    caller = threading.current_thread().name
    checked = 0
    with scripted_client() as (client, device):
        for _ in range(20):
            seen.clear()
            with client.open_stream("shell:x") as stream:
                local_id = device.opened.get(timeout=5)
                device.peer.send_raw(device.wrte(local_id, b"out") + device.clse(local_id))
                assert stream.read_all(Deadline(5, "read")) == b"out"
            if checked == 0 and any(thread != caller for _, thread in seen):
                # The reader thread led when this round began: it hands over only once a
                # caller waits, which a slow caller (a loaded machine) may not do in time.
                continue
            assert [command for command, _ in seen] == [P.A_OKAY, P.A_WRTE, P.A_CLSE]
            assert {thread for _, thread in seen} == {caller}
            checked += 1
            if checked == 4:
                break
        else:
            pytest.fail("the reader thread never handed the link over")


def test_the_reader_thread_reads_again_once_callers_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "READER_GRACE", 0.3)
    seen = packet_threads(monkeypatch)
    closed = threading.Event()
    caller = threading.current_thread().name
    with scripted_client() as (client, device):
        client.connection.state_listener = lambda state: (
            closed.set() if state is ConnectionState.CLOSED else None
        )
        for _ in range(20):  # until a caller has read (the reader thread hands over at once)
            with client.open_stream("shell:x") as stream:
                local_id = device.opened.get(timeout=5)
                device.peer.send_raw(device.wrte(local_id, b"out") + device.clse(local_id))
                assert stream.read_all(Deadline(5, "read")) == b"out"
            if any(thread == caller for _, thread in seen):
                break
        else:
            pytest.fail("no caller ever read the link")
        device.peer.sock.shutdown(socket.SHUT_RDWR)  # while no caller waits for anything
        assert closed.wait(PROMPT + reading.READER_GRACE), "nobody noticed the link go down"


@pytest.mark.parametrize("cut", [10, P.HEADER_SIZE + 3], ids=["in the header", "in the payload"])
def test_a_packet_cut_off_by_a_deadline_is_finished_by_the_next_read(cut: int) -> None:
    with scripted_client() as (client, device), client.open_stream("shell:x") as stream:
        local_id = device.opened.get(timeout=5)
        packet = device.wrte(local_id, b"0123456789")
        device.peer.send_raw(packet[:cut])
        started = time.monotonic()
        with pytest.raises(AdbTimeoutError):
            stream.read(None, Deadline(0.2, "first read"))
        assert time.monotonic() - started < 0.2 + PROMPT
        device.peer.send_raw(packet[cut:] + device.wrte(local_id, b"next"))
        assert stream.read(None, Deadline(5, "second read")) == b"0123456789"
        assert stream.read(None, Deadline(5, "third read")) == b"next"


def test_a_follower_gets_its_packet_while_the_leader_waits_on() -> None:
    with scripted_client() as (client, device):
        quiet = client.open_stream("shell:quiet")
        device.opened.get(timeout=5)
        busy = client.open_stream("shell:busy")
        busy_id = device.opened.get(timeout=5)
        leader, errors = in_thread(lambda: quiet.read(None, Deadline(30, "quiet read")))
        time.sleep(0.05)  # most often the quiet read leads by now; either way must work
        for text in (b"one", b"two", b"three"):
            device.peer.send_raw(device.wrte(busy_id, text))
            assert busy.read(None, Deadline(PROMPT, "busy read")) == text
        assert leader.is_alive()
        quiet.close()  # interrupts the quiet read, wherever it waits
        leader.join(PROMPT)
        assert not leader.is_alive(), "closing the stream did not stop its read"
        assert len(errors) == 1 and isinstance(errors[0], OperationCancelledError), errors
        device.peer.send_raw(device.wrte(busy_id, b"after"))
        assert busy.read(None, Deadline(PROMPT, "read after")) == b"after"
        busy.close()


def test_after_a_bulk_payload_the_reader_thread_reads_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "READER_GRACE", 60.0)  # only the bulk rule brings it back
    by_reader = threading.Event()
    original = Connection._on_packet

    def noting(self: Connection, header: P.Header, payload: bytes, waiter: object) -> bool:
        if header.command == P.A_WRTE and threading.current_thread() is self._reading.thread:
            by_reader.set()
        return original(self, header, payload, waiter)  # type: ignore[arg-type]

    monkeypatch.setattr(Connection, "_on_packet", noting)
    bulk = bytes(reading.BULK_PAYLOAD)
    with scripted_client() as (client, device), client.open_stream("shell:x") as stream:
        local_id = device.opened.get(timeout=5)
        for _ in range(20):  # until a caller, not the reader thread, read the bulk payload
            # A caller waiting for a small packet the reader thread reads gets the lead.
            small, errors = in_thread(lambda: stream.read(None, Deadline(5, "small read")))
            time.sleep(0.02)  # most often it waits by now; if not, the next round tries again
            device.peer.send_raw(device.wrte(local_id, b"s"))
            small.join(5)
            assert not errors
            by_reader.clear()
            device.peer.send_raw(device.wrte(local_id, bulk))
            assert stream.read(None, Deadline(5, "bulk read")) == bulk
            if not by_reader.is_set():
                break
        else:
            pytest.fail("the reader thread read every bulk payload")
        device.peer.send_raw(device.wrte(local_id, b"next"))  # while no caller waits
        assert by_reader.wait(PROMPT), "nobody read ahead while the caller was busy"
        assert stream.read(None, Deadline(5, "next read")) == b"next"
