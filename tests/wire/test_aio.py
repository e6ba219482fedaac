"""The anyio facade: results come back, and cancelling a call closes its device streams."""

from __future__ import annotations

import queue
import threading

import anyio
import pytest

from adbwire.errors import OperationCancelledError
from adbwire.wire import packets as P
from adbwire.wire.aio import AsyncAdbClient, run_blocking
from adbwire.wire.services.shell_protocol import ShellPacketId, encode

from .fake_peer import PeerSocket, fake_device

pytestmark = pytest.mark.anyio

WAIT = 10.0
"""Bound on each wait for the fake device; the blocked call's own timeout is 60 s."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def shell_device(events: queue.Queue[str], hang: threading.Event) -> object:
    """Answers `shell,v2` opens: 'echo' gets output and exit 0; anything else hangs."""

    def script(peer: PeerSocket) -> None:
        peer.accept_cnxn()
        while True:
            packet = peer.recv_packet()
            if packet.command == P.A_OPEN:
                service = bytes(packet.payload).rstrip(b"\0").decode()
                events.put(f"open {service}")
                peer.send(P.Packet(P.A_OKAY, 100 + packet.arg0, packet.arg0))
                if "echo" in service:
                    body = encode(ShellPacketId.STDOUT, b"hi\n") + encode(ShellPacketId.EXIT, b"\0")
                    peer.send(P.Packet(P.A_WRTE, 100 + packet.arg0, packet.arg0, body))
                    peer.send(P.Packet(P.A_CLSE, 100 + packet.arg0, packet.arg0))
            elif packet.command == P.A_CLSE:
                events.put(f"close {packet.arg0}")
                if not hang.is_set():
                    return
            elif packet.command == P.A_WRTE:
                peer.send(P.Packet(P.A_OKAY, 100 + packet.arg0, packet.arg0))

    return script


async def test_shell_through_the_facade() -> None:
    events: queue.Queue[str] = queue.Queue()
    hang = threading.Event()
    hang.set()
    with fake_device(shell_device(events, hang)) as (address, _):  # type: ignore[arg-type]
        with anyio.fail_after(10):
            async with await AsyncAdbClient.connect_tcp(address, []) as client:
                result = await client.shell("echo hi")
        assert (result.stdout, result.exit_code) == (b"hi\n", 0)
        hang.clear()


async def test_cancelling_a_call_closes_its_stream_at_once() -> None:
    events: queue.Queue[str] = queue.Queue()
    hang = threading.Event()
    hang.set()
    finished = threading.Event()
    outcome: list[BaseException] = []
    with fake_device(shell_device(events, hang)) as (address, _):  # type: ignore[arg-type]
        async with await AsyncAdbClient.connect_tcp(address, []) as client:

            def blocking_call() -> None:
                try:
                    client.client.shell("sleep 1000", timeout=60)
                except BaseException as exc:
                    outcome.append(exc)
                    raise
                finally:
                    finished.set()

            async with anyio.create_task_group() as group:
                group.start_soon(run_blocking, blocking_call)
                # Cancelled once the device has the stream open (a worker thread may be
                # slow to start on a loaded machine), not after a fixed time.
                opened = await anyio.to_thread.run_sync(events.get, True, WAIT)
                group.cancel_scope.cancel()
            assert opened == "open shell,v2,raw:sleep 1000"
            assert (await anyio.to_thread.run_sync(events.get, True, WAIT)).startswith("close ")
            assert await anyio.to_thread.run_sync(finished.wait, WAIT)
            assert isinstance(outcome[0], OperationCancelledError)
            hang.clear()


async def test_a_connect_cancelled_mid_handshake_is_closed_when_it_completes() -> None:
    closed_by_host = threading.Event()
    hello_seen = threading.Event()
    release = threading.Event()

    def script(peer: PeerSocket) -> None:
        hello = peer.recv_packet()
        assert hello.command == P.A_CNXN
        hello_seen.set()
        release.wait(WAIT)  # the handshake finishes after the caller gave up
        peer.send(P.Packet(P.A_CNXN, 0x01000001, 4096, b"device::features=shell_v2"))
        try:
            peer.recv_exactly(1)
        except EOFError:
            closed_by_host.set()

    with fake_device(script) as (address, _):
        async with anyio.create_task_group() as group:
            group.start_soon(AsyncAdbClient.connect_tcp, address, [])
            assert await anyio.to_thread.run_sync(hello_seen.wait, WAIT)  # mid-handshake
            group.cancel_scope.cancel()
        release.set()
        assert await anyio.to_thread.run_sync(closed_by_host.wait, WAIT)
