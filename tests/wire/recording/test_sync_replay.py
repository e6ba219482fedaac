"""`sync:` replay by request: requests parsed whatever their packetisation, matched by
meaning, answered with the client's id."""

from __future__ import annotations

import struct

from adbwire.wire.recording.sync_replay import Exchange, RequestParser, SyncPool, SyncServe


def message(request_id: bytes, body: bytes = b"", length: int | None = None) -> bytes:
    return struct.pack("<4sI", request_id, len(body) if length is None else length) + body


PUSH = (
    message(b"SEND", b"/data/local/tmp/x,33188")
    + b"".join(message(b"DATA", bytes([n]) * 65536) for n in range(40))
    + message(b"DONE", length=1700000000)
)
SESSION = message(b"LST2", b"/sdcard/a") + message(b"RCV2", b"/sdcard/a") + bytes(8) + PUSH


def test_requests_are_the_same_whatever_the_chunking() -> None:
    whole = RequestParser().feed(SESSION)
    parser = RequestParser()
    pieces = [request for start in range(0, len(SESSION), 7777)
              for request in parser.feed(SESSION[start : start + 7777])]  # fmt: skip
    assert pieces == whole
    assert [request.key[0] for request in whole] == ["stat2", "recv", "send"]
    assert whole[2].key[1:3] == ("/data/local/tmp/x", 33188)
    content = whole[2].key[4]  # the content's size and digest, not its bytes
    assert isinstance(content, tuple) and content[0] == 40 * 65536


def test_a_recorded_sta2_answers_an_lst2_with_the_clients_id_and_recv_answers_rcv2() -> None:
    recorded = RequestParser().feed(message(b"STA2", b"/sdcard/a") + message(b"RECV", b"/sdcard/a"))
    stat_answer = b"STA2" + bytes(68)
    data_answer = message(b"DATA", b"hi") + message(b"DONE")
    pool = SyncPool(
        [Exchange(1, 2, recorded[0], stat_answer), Exchange(1, 2, recorded[1], data_answer)], {1}
    )
    serve = SyncServe(pool)
    answers, problem = serve.feed(SESSION[: -len(PUSH)])
    assert problem is None
    assert answers == [b"LST2" + bytes(68), data_answer]
    answers, problem = serve.feed(PUSH)
    assert answers == [] and problem is not None and "SEND '/data/local/tmp/x'" in problem


def test_garbage_is_no_request_and_nothing_after_it_is_kept() -> None:
    parser = RequestParser()
    assert parser.feed(message(b"WHAT", b"x")) == []
    assert parser.broken == message(b"WHAT", b"x")
    for _ in range(100):
        assert parser.feed(b"y" * 65536) == []
    assert len(parser._pending) <= len(message(b"WHAT", b"x"))


def test_a_recorded_close_after_an_answer_closes_the_replayed_stream_there() -> None:
    """adbd closes a sync stream after a failed push; so does the replay, at the same point."""
    (push,) = RequestParser().feed(PUSH)
    fail = message(b"FAIL", b"Read-only file system")
    serve = SyncServe(SyncPool([Exchange(1, 2, push, fail, closes=True)], {1}))
    answers, problem = serve.feed(PUSH + message(b"STA2", b"/sdcard/a"))
    assert (answers, problem, serve.quit) == ([fail], None, True)
