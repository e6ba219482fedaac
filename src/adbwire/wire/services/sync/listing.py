"""LIST / LIS2: the entries of a device directory.

adbd answers a directory it cannot open with an empty listing (no error), so an empty
answer is checked with a stat: a missing path or a file raises SyncFailError instead of
looking like an empty directory.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from adbwire.errors import SyncFailError
from adbwire.wire.services.sync import codec
from adbwire.wire.services.sync.codec import DirEntry, EntryReply, Expect, Fail, ListDone
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
) -> list[DirEntry]:
    """Entries of a device directory in the device's order (lstat data: links not followed)."""
    with session_for(target, timeout) as session:
        entries = list(iter_dir(session, path))
        if not entries:
            _check_is_directory(session, path)
    if dot_entries:
        return entries
    return [entry for entry in entries if entry.name not in DOT_ENTRIES]


def iter_dir(session: SyncSession, path: str) -> Iterator[DirEntry]:
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
