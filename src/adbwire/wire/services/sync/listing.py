"""LIST / LIS2: the entries of a device directory.

adbd answers a directory it cannot open with an empty listing (no error), so an empty
answer is checked with a stat: a missing path or a file raises SyncFailError instead of
looking like an empty directory.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator
from typing import TYPE_CHECKING

from adbwire.errors import OutputTooLargeError, SyncFailError, UsageError
from adbwire.wire.services.sync import codec
from adbwire.wire.services.sync.codec import (
    DirEntry,
    EntryReply,
    Expect,
    Fail,
    ListDone,
    encode_path,
)
from adbwire.wire.services.sync.parser import record_size
from adbwire.wire.services.sync.session import SyncSession, session_for
from adbwire.wire.services.sync.stat import stat_reply

if TYPE_CHECKING:
    from adbwire.wire.connection import Connection

DOT_ENTRIES = frozenset({".", ".."})


def list_dir(
    target: Connection | SyncSession,
    path: str,
    *,
    dot_entries: bool = False,
    timeout: float | None = None,
    max_output: int | None = None,
) -> list[DirEntry]:
    """Entries of a device directory in the device's order (lstat data: links not followed).

    `max_output` caps the listing's bytes on the wire (each entry's record and name; None:
    no cap). Past it the sync stream is closed, the rest is never read, and
    OutputTooLargeError is raised.
    """
    if max_output is not None and max_output <= 0:
        raise UsageError("max_output must be a positive number of bytes")
    with session_for(target, timeout) as session:
        entries = _bounded(session, path, max_output)
        if not entries:
            _check_is_directory(session, path)
    if dot_entries:
        return entries
    return [entry for entry in entries if entry.name not in DOT_ENTRIES]


def _bounded(session: SyncSession, path: str, max_output: int | None) -> list[DirEntry]:
    entries = iter_dir(session, path)
    if max_output is None:
        return list(entries)
    record = record_size(Expect.DENT_V2 if session.ls_v2 else Expect.DENT_V1)
    kept: list[DirEntry] = []
    received = 0
    with contextlib.closing(entries):
        for entry in entries:
            received += record + len(encode_path(entry.name))
            if received > max_output:
                raise OutputTooLargeError(f"list {path!r}", max_output)
            kept.append(entry)
    return kept


def iter_dir(session: SyncSession, path: str) -> Generator[DirEntry, None, None]:
    """Entries as they arrive (with "." and ".." if the device sends them).

    Consume it to the end before the next request on the same session.
    """
    what = f"list {path!r}"
    request_id, expect = (
        (codec.LIS2, Expect.DENT_V2) if session.ls_v2 else (codec.LIST, Expect.DENT_V1)
    )
    session.send(codec.encode_request(request_id, path), what)
    finished = False
    try:
        while True:
            event = session.next_event(expect, what)
            if isinstance(event, EntryReply):
                yield event.entry
            elif isinstance(event, ListDone):
                finished = True
                return
            elif isinstance(event, Fail):
                raise SyncFailError(path, event.message)
            else:
                raise session.unexpected(event, what)
    finally:
        if not finished:
            session.discard()  # the rest of the listing would confuse the next request


def _check_is_directory(session: SyncSession, path: str) -> None:
    reply = stat_reply(session, path, follow=True)
    if reply.error:
        raise SyncFailError(path, codec.errno_text(reply.error))
    if not reply.stat.is_dir:
        raise SyncFailError(path, codec.errno_text(codec.ENOTDIR))
