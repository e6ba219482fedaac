"""Sync compression's sans-IO part: algorithm choice as adb makes it, setup flags, and
streams that round-trip, in bounded pieces, with a cap on what a device may inflate."""

from __future__ import annotations

import os

import pytest

from adbwire.errors import RemoteProtocolError, UsageError
from adbwire.wire.services.sync.compression import (
    Compression,
    Decoder,
    Encoder,
    compression_from_flags,
    parse_compression,
    resolve_compression,
)

KINDS = [Compression.BROTLI, Compression.LZ4, Compression.ZSTD]
ALL = {"sendrecv_v2", "sendrecv_v2_brotli", "sendrecv_v2_lz4", "sendrecv_v2_zstd"}


def encode(kind: Compression, data: bytes, block: int = 64 * 1024) -> bytes:
    encoder = Encoder(kind)
    parts = [encoder.compress(data[start : start + block]) for start in range(0, len(data), block)]
    return b"".join(parts) + encoder.finish()


def decode(kind: Compression, stream: bytes, **options: int) -> tuple[bytes, int]:
    """The decoded bytes and the largest piece emitted, fed in 64 KiB DATA-sized slices."""
    decoder = Decoder(kind, **options)
    pieces: list[bytes] = []
    for start in range(0, len(stream), 64 * 1024):
        decoder.feed(stream[start : start + 64 * 1024], pieces.append)
    decoder.finish()
    return b"".join(pieces), max(map(len, pieces), default=0)


@pytest.mark.parametrize(
    ("offered", "chosen"),
    [
        (ALL, Compression.ZSTD),
        (ALL - {"sendrecv_v2_zstd"}, Compression.LZ4),
        ({"sendrecv_v2", "sendrecv_v2_brotli"}, Compression.BROTLI),
        ({"sendrecv_v2"}, Compression.NONE),
        (ALL - {"sendrecv_v2"}, Compression.NONE),
    ],
)
def test_any_picks_as_adb_does(offered: set[str], chosen: Compression) -> None:
    assert resolve_compression(Compression.ANY, offered) is chosen


def test_a_named_algorithm_the_device_lacks_is_a_usage_error() -> None:
    assert resolve_compression(Compression.LZ4, ALL) is Compression.LZ4
    assert resolve_compression(Compression.NONE, set()) is Compression.NONE
    with pytest.raises(UsageError, match="sendrecv_v2_brotli"):
        resolve_compression(Compression.BROTLI, ALL - {"sendrecv_v2_brotli"})
    with pytest.raises(UsageError, match="zstd"):
        resolve_compression(Compression.ZSTD, {"sendrecv_v2_zstd"})


def test_names_and_adb_compression_numbers() -> None:
    assert parse_compression("zstd") is Compression.ZSTD
    assert parse_compression("1", allow_numbers=True) is Compression.ANY
    assert parse_compression("0", allow_numbers=True) is Compression.NONE
    with pytest.raises(UsageError, match="unknown compression '1'"):
        parse_compression("1")
    with pytest.raises(UsageError, match="gzip"):
        parse_compression("gzip")


def test_setup_flags_as_file_sync_protocol_h() -> None:
    assert [kind.flag for kind in KINDS] == [1, 2, 4]
    assert compression_from_flags(0) is Compression.NONE
    assert compression_from_flags(4) is Compression.ZSTD
    assert compression_from_flags(1 | 4) == "multiple compression flags received: 5"
    assert compression_from_flags(0x80000000) == "unknown flags: -2147483648"
    assert compression_from_flags(8 | 2) == "unknown flags: 8"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("nature", ["text", "random", "empty"])
def test_streams_round_trip(kind: Compression, nature: str) -> None:
    if nature == "text":
        data = b"".join(b"%d I/ActivityManager: line %d\n" % (n, n * 7) for n in range(40_000))
    elif nature == "random":
        data = os.urandom(300_000)
    else:
        data = b""
    stream = encode(kind, data)
    if nature == "text":
        assert len(stream) < len(data) // 3
    assert decode(kind, stream)[0] == data


@pytest.mark.parametrize("kind", KINDS)
def test_output_comes_in_bounded_pieces_and_stops_at_the_limit(kind: Compression) -> None:
    bomb = encode(kind, bytes(64 * 1024 * 1024))  # 64 MiB of zeros in a few KiB or less
    assert len(bomb) < 512 * 1024
    data, largest = decode(kind, bomb, piece=64 * 1024)
    assert len(data) == 64 * 1024 * 1024
    assert largest <= 64 * 1024 + 64 * 1024  # brotli may overshoot its limit by a block
    produced: list[int] = []
    decoder = Decoder(kind, limit=1024 * 1024)
    with pytest.raises(RemoteProtocolError, match="more than 1048576 bytes"):
        decoder.feed(bomb, lambda piece: produced.append(len(piece)))
    assert sum(produced) <= 1024 * 1024


@pytest.mark.parametrize("kind", KINDS)
def test_a_stream_cut_short_or_followed_by_junk_or_broken_is_refused(kind: Compression) -> None:
    stream = encode(kind, os.urandom(100_000) + bytes(100_000))
    cut = Decoder(kind)
    cut.feed(stream[: len(stream) // 2], lambda piece: None)
    with pytest.raises(RemoteProtocolError, match="ended before its end mark"):
        cut.finish()
    with pytest.raises(RemoteProtocolError, match=r"after the end|broken"):
        Decoder(kind).feed(stream + b"junk", lambda piece: None)
    with pytest.raises(RemoteProtocolError, match=kind.value):
        broken = Decoder(kind)
        broken.feed(b"\xff" * 64 + stream, lambda piece: None)
        broken.finish()


def test_a_brotli_binding_that_cannot_bound_its_output_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """brotli < 1.2 has no output_buffer_limit: one call could inflate a bomb in full."""
    import brotli  # type: ignore[import-untyped]  # noqa: PLC0415

    class OldDecompressor:
        def process(self, data: bytes) -> bytes:
            return data

    monkeypatch.setattr(brotli, "Decompressor", OldDecompressor)
    with pytest.raises(UsageError, match=r"brotli package 1\.2 or newer"):
        Decoder(Compression.BROTLI)
