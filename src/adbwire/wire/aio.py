"""The anyio facade: every blocking call runs in a worker thread, cancellable.

Nothing here re-implements protocol logic; each method hands one blocking `AdbClient` call
to `run`. When the awaiting task is cancelled, the call's device streams are closed at
once, so the worker thread unwinds promptly instead of finishing unseen.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import ParamSpec, TypeVar

import anyio
import anyio.to_thread

from adbwire.wire.client import AdbClient
from adbwire.wire.connection import Signer
from adbwire.wire.operation import Operation
from adbwire.wire.services.shell import ShellResult
from adbwire.wire.timeouts import Timeouts

T = TypeVar("T")
Params = ParamSpec("Params")


async def run_blocking(func: Callable[Params, T], *args: Params.args, **kwargs: Params.kwargs) -> T:
    """Run `func` in a worker thread; cancelling the caller closes the streams it opened.

    A result that arrives after the caller was cancelled (a connection that finished its
    handshake too late) is closed, since nobody will ever see it.
    """
    operation = Operation()

    def work() -> T:
        with operation.bound():
            result = func(*args, **kwargs)
        if not operation.deliver(result):
            _close_orphan(result)
        return result

    try:
        return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        # Closing streams may wait for the connection's write lock: never on the event loop.
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(lambda: _close_orphan(operation.cancel()))
        raise


def _close_orphan(result: object) -> None:
    close = getattr(result, "close", None)
    if callable(close):
        close()


class AsyncAdbClient:
    """Async access to one device; wraps an `AdbClient`."""

    def __init__(self, client: AdbClient) -> None:
        self.client = client

    @classmethod
    async def connect_tcp(
        cls,
        address: str,
        keys: Sequence[Signer] | None = None,
        *,
        timeouts: Timeouts | None = None,
    ) -> AsyncAdbClient:
        connect = functools.partial(AdbClient.connect_tcp, address, keys, timeouts=timeouts)
        return cls(await run_blocking(connect))

    @property
    def serial(self) -> str:
        return self.client.serial

    async def run(
        self, func: Callable[Params, T], *args: Params.args, **kwargs: Params.kwargs
    ) -> T:
        """Any blocking call on this device (e.g. a `device/` helper taking the AdbClient)."""
        return await run_blocking(func, *args, **kwargs)

    async def shell(
        self,
        command: str,
        *,
        stdin: bytes | None = None,
        timeout: float | None = None,
        max_output: int | None = None,
    ) -> ShellResult:
        return await run_blocking(
            self.client.shell, command, stdin=stdin, timeout=timeout, max_output=max_output
        )

    async def shell_argv(
        self,
        argv: Sequence[str],
        *,
        stdin: bytes | None = None,
        timeout: float | None = None,
        max_output: int | None = None,
    ) -> ShellResult:
        return await run_blocking(
            self.client.shell_argv, argv, stdin=stdin, timeout=timeout, max_output=max_output
        )

    async def exec_out(
        self, command: str, *, timeout: float | None = None, max_output: int | None = None
    ) -> bytes:
        return await run_blocking(
            self.client.exec_out, command, timeout=timeout, max_output=max_output
        )

    async def aclose(self) -> None:
        await anyio.to_thread.run_sync(self.client.close)

    async def __aenter__(self) -> AsyncAdbClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
