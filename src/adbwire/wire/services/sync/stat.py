"""STAT / STA2 / LST2: a device file's metadata.

With `stat_v2` the device answers with 64-bit sizes and times and an errno; STA2 follows
symbolic links, LST2 does not. v1 has only STAT, which is an lstat with 32-bit fields and
no errno (a failed lstat is all zeros). Like adb, a following stat on a v1 device is
emulated: lstat, and for a link, lstat of "path/" tells a directory from a file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from adbwire.errors import SyncFailError
from adbwire.wire.services.sync import codec
from adbwire.wire.services.sync.codec import Expect, Fail, RemoteStat, StatReply
from adbwire.wire.services.sync.session import SyncSession, session_for

if TYPE_CHECKING:
    from adbwire.wire.connection import Connection

STAT_BATCH = 128


def stat(
    target: Connection | SyncSession,
    path: str,
    *,
    follow: bool = True,
    timeout: float | None = None,
) -> RemoteStat:
    """Metadata of a device path (`follow=False`: of a link itself). SyncFailError if absent."""
    with session_for(target, timeout) as session:
        reply = stat_reply(session, path, follow=follow)
    if reply.error:
        raise SyncFailError(path, codec.errno_text(reply.error))
    return reply.stat


def lstat(
    target: Connection | SyncSession, path: str, *, timeout: float | None = None
) -> RemoteStat:
    return stat(target, path, follow=False, timeout=timeout)


def exists(target: Connection | SyncSession, path: str, *, timeout: float | None = None) -> bool:
    """Whether the device path exists (a dangling link counts: it is there)."""
    with session_for(target, timeout) as session:
        return not stat_reply(session, path, follow=False).error


def stat_reply(session: SyncSession, path: str, *, follow: bool) -> StatReply:
    """One stat, with the error as an errno instead of an exception (ENOENT on v1)."""
    if session.stat_v2:
        return _ask(session, codec.STA2 if follow else codec.LST2, path, Expect.STAT_V2)
    reply = _v1_errno(_ask(session, codec.STAT, path, Expect.STAT_V1))
    if follow and not reply.error and reply.stat.is_symlink:
        target_reply = _ask(session, codec.STAT, path.rstrip("/") + "/", Expect.STAT_V1)
        kind = 0o040000 if target_reply.stat.is_dir else 0o100000
        return StatReply(RemoteStat(kind | reply.stat.permissions, 0, reply.stat.mtime))
    return reply


def stat_many(session: SyncSession, paths: Sequence[str], *, follow: bool) -> list[StatReply]:
    """Many stats with the requests pipelined (one round trip per batch, not per path)."""
    if session.stat_v2:
        request_id, expect = (codec.STA2 if follow else codec.LST2), Expect.STAT_V2
    elif not follow:
        request_id, expect = codec.STAT, Expect.STAT_V1
    else:
        return [stat_reply(session, path, follow=True) for path in paths]
    replies: list[StatReply] = []
    for start in range(0, len(paths), STAT_BATCH):
        batch = paths[start : start + STAT_BATCH]
        session.send(b"".join(codec.encode_request(request_id, path) for path in batch), "stat")
        for path in batch:
            reply = _answer(session, path, expect)
            replies.append(reply if session.stat_v2 else _v1_errno(reply))
    return replies


def _v1_errno(reply: StatReply) -> StatReply:
    """v1 has no errno: adbd answers a failed lstat with zeros."""
    found = reply.stat
    if found.mode == 0 and found.size == 0 and found.mtime == 0:
        return StatReply(found, error=codec.ENOENT)
    return reply


def _ask(session: SyncSession, request_id: bytes, path: str, expect: Expect) -> StatReply:
    session.send(codec.encode_request(request_id, path), f"stat {path!r}")
    return _answer(session, path, expect)


def _answer(session: SyncSession, path: str, expect: Expect) -> StatReply:
    what = f"stat {path!r}"
    event = session.next_event(expect, what)
    if isinstance(event, Fail):
        session.discard()
        raise SyncFailError(path, event.message)
    if not isinstance(event, StatReply):
        raise session.unexpected(event, what)
    return event
