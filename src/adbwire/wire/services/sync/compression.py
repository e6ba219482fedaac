"""Sync compression (adb 31+: `sendrecv_v2_brotli`, `sendrecv_v2_lz4`, `sendrecv_v2_zstd`),
sans-IO, shared by the host and the simulated device.

A compressed SND2/RCV2 carries one compressed stream (one brotli stream, one LZ4 frame,
one zstd frame) cut into DATA messages of at most 64 KiB, then DONE; the flags of the
setup message name the algorithm. The encoders use the settings of AOSP's
compression_utils.h (brotli quality 1, LZ4 frame defaults, zstd level 1).

Decoding never holds more than `piece` bytes of output at once, whatever the ratio, and
stops with `RemoteProtocolError` once the output passes the caller's `limit`: a small
frame from a hostile device cannot inflate into gigabytes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any, Final, Protocol

from adbwire.errors import RemoteProtocolError, UsageError
from adbwire.wire.services.sync.options import COMPRESSION_FLAGS, Compression

if TYPE_CHECKING:  # the libraries load with the first encoder or decoder that needs them
    import brotli  # type: ignore[import-untyped]
    import lz4.frame  # type: ignore[import-untyped]

    if sys.version_info >= (3, 14):
        from compression import zstd
    else:
        from backports import zstd

__all__ = [
    "Compression",
    "Decoder",
    "Encoder",
    "compression_from_flags",
    "parse_compression",
    "resolve_compression",
]

PIECE: Final = 256 * 1024
"""The most decompressed output held at once."""
Emit = Callable[[bytes], None]


PREFERENCE: Final = (Compression.ZSTD, Compression.LZ4, Compression.BROTLI)
"""adb's order for `any` (file_sync_client.cpp ResolveCompressionType)."""
FLAGS_MASK: Final = 1 | 2 | 4


def parse_compression(text: str, *, allow_numbers: bool = False) -> Compression:
    """`-z ALGO` (any, none, brotli, lz4, zstd); ADB_COMPRESSION also takes 0 and 1."""
    if allow_numbers and text in ("0", "1"):
        return Compression.NONE if text == "0" else Compression.ANY
    try:
        return Compression(text)
    except ValueError:
        names = ", ".join(kind.value for kind in Compression)
        raise UsageError(f"unknown compression '{text}' (one of {names})") from None


def resolve_compression(requested: Compression, features: Collection[str]) -> Compression:
    """The algorithm to use with a device offering `features`: ANY picks as adb does; a
    named one the device lacks is the caller's mistake."""
    if requested is Compression.NONE:
        return requested
    if "sendrecv_v2" not in features:
        if requested is Compression.ANY:
            return Compression.NONE
        raise UsageError(f"the device does not offer {requested.value} compression (adb < 11)")
    if requested is Compression.ANY:
        return next((kind for kind in PREFERENCE if kind.feature in features), Compression.NONE)
    if requested.feature not in features:
        raise UsageError(
            f"the device does not offer {requested.value} compression ({requested.feature})"
        )
    return requested


def compression_from_flags(flags: int) -> Compression | str:
    """The algorithm named by setup flags (the dry-run bit removed first), or adbd's FAIL text."""
    named = [kind for kind, bit in COMPRESSION_FLAGS.items() if flags & bit]
    if len(named) > 1:
        return f"multiple compression flags received: {_int32(flags)}"
    rest = flags & ~FLAGS_MASK
    if rest:
        return f"unknown flags: {_int32(rest)}"
    return named[0] if named else Compression.NONE


def _int32(value: int) -> int:
    return value - (1 << 32) if value & 0x80000000 else value


# ------------------------------------------------------------------ encoding


class _Compressor(Protocol):
    def compress(self, data: bytes | memoryview) -> bytes: ...
    def finish(self) -> bytes: ...


class Encoder:
    """One file's compressed stream: feed input with `compress`, end with `finish`."""

    def __init__(self, kind: Compression) -> None:
        self.kind = kind
        self._compressor = _compressor(kind)

    def compress(self, data: bytes | memoryview) -> bytes:
        return self._compressor.compress(data)

    def finish(self) -> bytes:
        return self._compressor.finish()


def _zstd() -> Any:
    if sys.version_info >= (3, 14):
        from compression import zstd  # noqa: PLC0415
    else:
        from backports import zstd  # noqa: PLC0415
    return zstd


def _lz4_frame() -> Any:
    import lz4.frame  # noqa: PLC0415

    return lz4.frame


def _brotli() -> Any:
    import brotli  # noqa: PLC0415

    # Brotli < 1.2 cannot bound a decompression's output (no output_buffer_limit): a small
    # stream could inflate into gigabytes in one call, so such a binding is not used.
    if not hasattr(brotli.Decompressor, "can_accept_more_data"):
        version = getattr(brotli, "__version__", "?")
        raise UsageError(
            f"brotli compression needs the brotli package 1.2 or newer (found {version})"
        )
    return brotli


class _Zstd:
    def __init__(self) -> None:
        self._zstd = _zstd()
        self._inner = self._zstd.ZstdCompressor(level=1)

    def compress(self, data: bytes | memoryview) -> bytes:
        return bytes(self._inner.compress(data))

    def finish(self) -> bytes:
        return bytes(self._inner.flush(self._zstd.ZstdCompressor.FLUSH_FRAME))


class _Lz4:
    def __init__(self) -> None:
        self._inner = _lz4_frame().LZ4FrameCompressor()
        self._header: bytes = self._inner.begin()

    def compress(self, data: bytes | memoryview) -> bytes:
        header, self._header = self._header, b""
        return header + bytes(self._inner.compress(data))

    def finish(self) -> bytes:
        header, self._header = self._header, b""
        return header + bytes(self._inner.flush())


class _Brotli:
    def __init__(self) -> None:
        self._inner = _brotli().Compressor(quality=1)

    def compress(self, data: bytes | memoryview) -> bytes:
        return bytes(self._inner.process(bytes(data)))

    def finish(self) -> bytes:
        return bytes(self._inner.finish())


def _compressor(kind: Compression) -> _Compressor:
    if kind is Compression.ZSTD:
        return _Zstd()
    if kind is Compression.LZ4:
        return _Lz4()
    if kind is Compression.BROTLI:
        return _Brotli()
    raise ValueError(f"no encoder for {kind}")


# ------------------------------------------------------------------ decoding


class Decoder:
    """One file's compressed stream back to bytes, handed to `emit` a piece at a time."""

    def __init__(self, kind: Compression, *, limit: int | None = None, piece: int = PIECE) -> None:
        self.kind = kind
        self.limit = limit
        self.piece = piece
        self.produced = 0
        self._finished = False
        self._zstd: zstd.ZstdDecompressor | None = None
        self._lz4: lz4.frame.LZ4FrameDecompressor | None = None
        self._brotli: brotli.Decompressor | None = None
        self._broken: tuple[type[Exception], ...] = (RuntimeError, OSError)
        if kind is Compression.ZSTD:
            module = _zstd()
            self._zstd = module.ZstdDecompressor()
            self._broken += (module.ZstdError,)
        elif kind is Compression.LZ4:
            self._lz4 = _lz4_frame().LZ4FrameDecompressor()
        elif kind is Compression.BROTLI:
            module = _brotli()
            self._brotli = module.Decompressor()
            self._broken += (module.error,)
        else:
            raise ValueError(f"no decoder for {kind}")

    def feed(self, data: bytes | memoryview, emit: Emit) -> None:
        """Decompress `data` (any slice of the stream) and emit all the output it yields."""
        if not data:
            return
        if self._finished:
            raise self._error("data after the end of the compressed stream")
        try:
            self._feed(data, emit)
        except self._broken as exc:
            raise self._error(f"the compressed data is broken ({exc})") from exc

    def finish(self) -> None:
        """The device said DONE: the compressed stream must be complete."""
        if not self._finished:
            raise self._error("the compressed data ended before its end mark")

    def _feed(self, data: bytes | memoryview, emit: Emit) -> None:
        if self._zstd is not None:
            self._feed_zstd(self._zstd, data, emit)
        elif self._lz4 is not None:
            self._feed_lz4(self._lz4, data, emit)
        else:
            assert self._brotli is not None
            self._feed_brotli(self._brotli, data, emit)

    def _feed_zstd(
        self, inner: zstd.ZstdDecompressor, data: bytes | memoryview, emit: Emit
    ) -> None:
        while True:
            self._emit(inner.decompress(data, max_length=self.piece), emit)
            data = b""
            if inner.eof:
                self._end(inner.unused_data)
                return
            if inner.needs_input:
                return

    def _feed_lz4(
        self, inner: lz4.frame.LZ4FrameDecompressor, data: bytes | memoryview, emit: Emit
    ) -> None:
        while True:
            self._emit(bytes(inner.decompress(data, max_length=self.piece)), emit)
            data = b""
            if inner.eof:
                self._end(bytes(inner.unused_data or b""))
                return
            if inner.needs_input:
                return

    def _feed_brotli(
        self, inner: brotli.Decompressor, data: bytes | memoryview, emit: Emit
    ) -> None:
        data = bytes(data)  # the binding wants bytes
        while True:
            output = bytes(inner.process(data, output_buffer_limit=self.piece))
            data = b""
            self._emit(output, emit)
            if inner.is_finished():
                self._end(b"")
                return
            if inner.can_accept_more_data() and not output:
                return

    def _end(self, unused: bytes) -> None:
        self._finished = True
        if unused:
            raise self._error("data after the end of the compressed stream")

    def _emit(self, output: bytes, emit: Emit) -> None:
        if not output:
            return
        self.produced += len(output)
        if self.limit is not None and self.produced > self.limit:
            raise self._error(f"it decompresses to more than {self.limit} bytes")
        emit(output)

    def _error(self, why: str) -> RemoteProtocolError:
        return RemoteProtocolError(f"sync: {self.kind.value} stream from the device: {why}")
