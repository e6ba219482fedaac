"""The device's heavy-job lock (`adbwire.device.heavy_jobs`) for a tool on the event loop.

Taking the lock canonicalises the serial, which may look a host name up (up to
`heavy_jobs.RESOLVE_SECONDS`), and creates, locks and writes a file: all of it runs in a
worker thread, so other calls keep being served meanwhile. The lock is the same one, with
the same semantics: refused at once while another job holds the device, released when the
block ends, however it ends.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

import anyio
import anyio.lowlevel
import anyio.to_thread

from adbwire.device.heavy_jobs import Holder, heavy_job

_RELEASE: Final = anyio.CapacityLimiter(math.inf)
"""Releasing never waits for a turn in a pool full of other work (it never makes a task
wait, so one limiter serves every event loop)."""


@asynccontextmanager
async def holding_heavy_job(serial: str, job: str) -> AsyncIterator[Holder]:
    """Hold `serial`'s heavy-job lock for the block, or raise HeavyJobBusyError at once."""
    lock = heavy_job(serial, job)
    # Not abandoned on cancel: a lock taken by a thread nobody waits for would never be let go.
    holder = await anyio.to_thread.run_sync(lock.__enter__)
    try:
        await anyio.lowlevel.checkpoint_if_cancelled()  # cancelled meanwhile: no job starts
        yield holder
    except BaseException as exc:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(
                lock.__exit__, type(exc), exc, exc.__traceback__, limiter=_RELEASE
            )
        raise
    with anyio.CancelScope(shield=True):
        await anyio.to_thread.run_sync(lock.__exit__, None, None, None, limiter=_RELEASE)
