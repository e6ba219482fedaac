"""The anyio facade: every blocking call runs in a worker thread, cancellable.

Nothing here re-implements protocol logic; each method hands one blocking `AdbClient` call
to `run`. When the awaiting task is cancelled, the call's device streams are closed at
once, so the worker thread unwinds promptly instead of finishing unseen.

Isolation between devices: each device's calls go through its own `DeviceLane`, which
lets `concurrency` of them run in worker threads and `queue` more wait (without a thread);
past that a call fails at once with `DeviceQueueFullError` (retryable). Lanes never borrow
from anyio's shared default pool of 40 threads, so worker capacity grows with the number
of devices, and a device that hangs, with every call to it blocked, can only delay calls
to itself.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Final, ParamSpec, TypeVar

import anyio
import anyio.to_thread

from adbwire.errors import AdbwireError, DeviceQueueFullError
from adbwire.wire.client import AdbClient, connect_tcp_many
from adbwire.wire.connection import Signer
from adbwire.wire.offloaded import offloaded
from adbwire.wire.operation import Operation
from adbwire.wire.timeouts import Timeouts

T = TypeVar("T")
Params = ParamSpec("Params")

DEVICE_CONCURRENCY: Final = 8
"""Calls to one device that may run at once, each in its own worker thread."""
DEVICE_QUEUE: Final = 64
"""Calls to one device that may wait for a turn; one more fails with DeviceQueueFullError."""

# Connecting, closing and the cleanup after a cancellation must never wait for a turn (a
# lane may be full of calls to a hung device, anyio's default pool full of other work):
# they get a limiter without a limit. It never makes a task wait, so it holds no event
# loop's state and may be shared by every loop.
_UNLIMITED: Final = anyio.CapacityLimiter(math.inf)


async def run_blocking(func: Callable[Params, T], *args: Params.args, **kwargs: Params.kwargs) -> T:
    """Run `func` in a worker thread; cancelling the caller closes the streams it opened.

    A result that arrives after the caller was cancelled (a connection that finished its
    handshake too late) is closed, since nobody will ever see it. The thread comes from
    anyio's default pool (shared by everything in the process): calls to a device should go
    through its `DeviceLane` instead.
    """
    return await _run_in_thread(None, func, *args, **kwargs)


async def _run_in_thread(
    limiter: anyio.CapacityLimiter | None,
    func: Callable[Params, T],
    *args: Params.args,
    **kwargs: Params.kwargs,
) -> T:
    operation = Operation()

    def work() -> T:
        with operation.bound():
            result = func(*args, **kwargs)
        if not operation.deliver(result):
            _close_orphan(result)
        return result

    try:
        return await anyio.to_thread.run_sync(work, abandon_on_cancel=True, limiter=limiter)
    except anyio.get_cancelled_exc_class():
        # Closing streams may wait for the connection's write lock: never on the event loop.
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(
                lambda: _close_orphan(operation.cancel()), limiter=_UNLIMITED
            )
        raise


def _close_orphan(result: object) -> None:
    close = getattr(result, "close", None)
    if callable(close):
        close()


class _Connected(dict[str, AdbClient | AdbwireError]):
    """connect_tcp_many's results, closable as one: if the caller was cancelled meanwhile,
    `_close_orphan` closes every connection made."""

    def close(self) -> None:
        for result in self.values():
            if isinstance(result, AdbClient):
                result.close()


class DeviceLane:
    """The calls of one device: `concurrency` run in worker threads, `queue` more wait.

    A call beyond both fails at once with `DeviceQueueFullError`, before touching the
    device. Waiting calls hold no thread, and a cancelled call leaves the queue at once.
    A lane may serve several event loops one after another, not at the same time.
    """

    def __init__(
        self, name: str, *, concurrency: int = DEVICE_CONCURRENCY, queue: int = DEVICE_QUEUE
    ) -> None:
        if concurrency < 1 or queue < 0:
            raise ValueError("a lane needs concurrency >= 1 and queue >= 0")
        self.name = name
        self.concurrency = concurrency
        self.queue = queue
        self._limiter = anyio.CapacityLimiter(concurrency)

    @property
    def running(self) -> int:
        return int(self._limiter.borrowed_tokens)

    @property
    def waiting(self) -> int:
        return self._limiter.statistics().tasks_waiting

    async def run(
        self, func: Callable[Params, T], *args: Params.args, **kwargs: Params.kwargs
    ) -> T:
        """`run_blocking` within this lane's limits."""
        if self._limiter.available_tokens < 1 and self.waiting >= self.queue:
            raise DeviceQueueFullError(
                f"{self.name}: {self.running} calls are running and {self.waiting} waiting "
                "(the most this device takes); retry when some have finished"
            )
        return await _run_in_thread(self._limiter, func, *args, **kwargs)


class AsyncAdbClient:
    """Async access to one device; wraps an `AdbClient`. Its calls share one `DeviceLane`."""

    def __init__(self, client: AdbClient, lane: DeviceLane | None = None) -> None:
        self.client = client
        self.lane = lane or DeviceLane(client.serial)

    @classmethod
    async def connect_tcp(
        cls,
        address: str,
        keys: Sequence[Signer] | None = None,
        *,
        timeouts: Timeouts | None = None,
    ) -> AsyncAdbClient:
        connect = functools.partial(AdbClient.connect_tcp, address, keys, timeouts=timeouts)
        return cls(await _run_in_thread(_UNLIMITED, connect))

    @classmethod
    async def connect_usb(
        cls,
        serial: str | None = None,
        keys: Sequence[Signer] | None = None,
        *,
        timeouts: Timeouts | None = None,
    ) -> AsyncAdbClient:
        """The USB device with this serial (or the only one), off the loop."""
        connect = functools.partial(AdbClient.connect_usb, serial, keys, timeouts=timeouts)
        return cls(await _run_in_thread(_UNLIMITED, connect))

    @classmethod
    async def connect_tcp_many(
        cls,
        addresses: Sequence[str],
        keys: Sequence[Signer] | None = None,
        *,
        timeouts: Timeouts | None = None,
        parallel: int = 32,
    ) -> Mapping[str, AsyncAdbClient | AdbwireError]:
        """Connect to many devices at once (`AdbClient.connect_tcp_many`), off the loop."""

        def connect() -> _Connected:
            return _Connected(
                connect_tcp_many(addresses, keys, timeouts=timeouts, parallel=parallel)
            )

        results = await _run_in_thread(_UNLIMITED, connect)
        return {
            address: result if isinstance(result, AdbwireError) else cls(result)
            for address, result in results.items()
        }

    @property
    def serial(self) -> str:
        return self.client.serial

    async def run(
        self, func: Callable[Params, T], *args: Params.args, **kwargs: Params.kwargs
    ) -> T:
        """Any blocking call on this device (e.g. a `device/` helper taking the AdbClient)."""
        return await self.lane.run(func, *args, **kwargs)

    # Each is the AdbClient method of the same name, run in this device's lane.
    shell = offloaded(AdbClient.shell)
    shell_argv = offloaded(AdbClient.shell_argv)
    exec_out = offloaded(AdbClient.exec_out)
    stat = offloaded(AdbClient.stat)
    lstat = offloaded(AdbClient.lstat)
    exists = offloaded(AdbClient.exists)
    list_dir = offloaded(AdbClient.list_dir)
    push = offloaded(AdbClient.push)
    pull = offloaded(AdbClient.pull)
    push_stream = offloaded(AdbClient.push_stream)
    pull_stream = offloaded(AdbClient.pull_stream)
    install = offloaded(AdbClient.install)
    install_multiple = offloaded(AdbClient.install_multiple)
    uninstall = offloaded(AdbClient.uninstall)
    forward = offloaded(AdbClient.forward)
    reverse = offloaded(AdbClient.reverse)
    remove_reverse = offloaded(AdbClient.remove_reverse)
    reboot = offloaded(AdbClient.reboot)
    root = offloaded(AdbClient.root)
    unroot = offloaded(AdbClient.unroot)
    tcpip = offloaded(AdbClient.tcpip)
    usb = offloaded(AdbClient.usb)
    remount = offloaded(AdbClient.remount)

    async def aclose(self) -> None:
        await anyio.to_thread.run_sync(self.client.close, limiter=_UNLIMITED)

    async def __aenter__(self) -> AsyncAdbClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
