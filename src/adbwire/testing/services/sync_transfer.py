"""SEND/SND2 (push) and RECV/RCV2 (pull) of the sync service.

Push: SEND "path,mode" (SND2: path, then {SND2, mode, flags}) → DATA(len)+bytes … →
DONE(mtime) → OKAY or FAIL. The SND2/RCV2 flags may name one compression (brotli, lz4,
zstd): the DATA bytes are then one compressed stream (sync_compressed.py). adbd unlinks a
regular file first, copies the user permission bits to group and other, creates missing
parent directories, sets the mtime, and on failure keeps reading until DONE before
answering FAIL. Pull: RECV path (RCV2: path, then {RCV2, flags}) → DATA… DONE, or FAIL
"open failed: …". Failure messages are adbd's.
"""

from __future__ import annotations

import contextlib
import stat as stat_module
import struct
from typing import BinaryIO, Final

from adbwire.errors import RemoteProtocolError
from adbwire.testing.device_files import DeviceFiles, FsError, ParentDirError
from adbwire.testing.services.sync_compressed import send_compressed
from adbwire.testing.stream import DeviceStream
from adbwire.wire.services.sync.compression import Compression, Decoder, compression_from_flags

__all__ = ["do_recv_v1", "do_recv_v2", "do_send_v1", "do_send_v2", "send_fail"]

SYNC_DATA_MAX: Final = 64 * 1024
FLAG_DRY_RUN: Final = 0x80000000
MESSAGE = struct.Struct("<4sI")
SEND_V2_SETUP = struct.Struct("<4sII")
RECV_V2_SETUP = struct.Struct("<4sI")


def send_fail(stream: DeviceStream, reason: str) -> None:
    encoded = reason.encode("utf-8", errors="replace")
    stream.write(MESSAGE.pack(b"FAIL", len(encoded)) + encoded)


def _strtoul(text: str) -> int:
    """C strtoul(text, nullptr, 0): 0x… hex, 0… octal, else decimal; stops at junk."""
    text = text.strip()
    base, digits = 10, "0123456789"
    if text[:2].lower() == "0x":
        base, digits, text = 16, "0123456789abcdefABCDEF", text[2:]
    elif text.startswith("0"):
        base, digits = 8, "01234567"
    end = 0
    while end < len(text) and text[end] in digits:
        end += 1
    return int(text[:end], base) if end else 0


def do_send_v1(stream: DeviceStream, files: DeviceFiles, spec: str) -> bool:
    path, comma, mode_text = spec.rpartition(",")
    if not comma:
        send_fail(stream, "missing , in ID_SEND_V1")
        return False
    return _send(stream, files, path, _strtoul(mode_text), dry_run=False)


def do_send_v2(stream: DeviceStream, files: DeviceFiles, path: str) -> bool:
    _id, mode, flags = SEND_V2_SETUP.unpack(stream.read_exact(SEND_V2_SETUP.size))
    dry_run = bool(flags & FLAG_DRY_RUN)
    compression = compression_from_flags(flags & ~FLAG_DRY_RUN)
    if isinstance(compression, str):
        send_fail(stream, compression)
        return False
    return _send(stream, files, path, mode, dry_run=dry_run, compression=compression)


def _send(
    stream: DeviceStream,
    files: DeviceFiles,
    path: str,
    mode: int,
    *,
    dry_run: bool,
    compression: Compression = Compression.NONE,
) -> bool:
    do_unlink = False
    if not dry_run:
        try:
            existing = files.stat(path, follow=False)
            do_unlink = existing.is_file or (existing.is_symlink and not stat_module.S_ISLNK(mode))
        except FsError:
            do_unlink = True
    if do_unlink:
        with contextlib.suppress(FsError):
            files.remove(path)
    if stat_module.S_ISLNK(mode):
        timestamp = _receive_link(stream, files, path, dry_run=dry_run)
    else:
        permissions = mode & 0o777
        permissions |= (permissions >> 3) & 0o070
        permissions |= (permissions >> 3) & 0o007
        timestamp = _receive_file(
            stream,
            files,
            path,
            permissions,
            dry_run=dry_run,
            do_unlink=do_unlink,
            decoder=Decoder(compression) if compression.flag else None,
        )
    if timestamp is None:
        return False
    if not dry_run:
        with contextlib.suppress(FsError):  # lutimes failures are ignored by adbd too
            files.set_mtime(path, timestamp)
    stream.write(MESSAGE.pack(b"OKAY", 0))
    return True


class _FileSink:
    """Writes DATA into the file until the first error, then only swallows what follows."""

    def __init__(self, file: BinaryIO | None) -> None:
        self.file = file
        self.error: FsError | None = None

    def __call__(self, piece: memoryview | bytes) -> None:
        if self.file is not None and self.error is None:
            try:
                self.file.write(piece)
            except FsError as error:
                self.error = error


def _receive_file(
    stream: DeviceStream,
    files: DeviceFiles,
    path: str,
    permissions: int,
    *,
    dry_run: bool,
    do_unlink: bool,
    decoder: Decoder | None = None,
) -> int | None:
    sink = _FileSink(None)
    if not dry_run:
        try:
            sink.file = files.open_write(path, stat_module.S_IFREG | permissions)
        except FsError as error:
            parents = isinstance(error, ParentDirError)
            what = "secure_mkdirs() failed" if parents else "couldn't create file"
            send_fail(stream, f"{what}: {error.message}")
            _fail_drain(stream, files, path, do_unlink=False)
            return None
    try:
        while True:
            message_id, size = MESSAGE.unpack(stream.read_exact(MESSAGE.size))
            if message_id == b"DONE":
                if decoder is not None and not _finish(stream, decoder):
                    _fail_drain(stream, files, path, do_unlink=do_unlink, file=sink.file, done=True)
                    return None
                break
            if message_id != b"DATA":
                send_fail(stream, "invalid data message")
                _fail_drain(stream, files, path, do_unlink=do_unlink, file=sink.file)
                return None
            if size > SYNC_DATA_MAX:  # adbd's buffer is that size: it reads no further
                send_fail(stream, "oversize data message")
                _fail_drain(stream, files, path, do_unlink=do_unlink, file=sink.file, done=True)
                return None
            if decoder is None:
                stream.read_into(size, sink)
            elif not _decode(stream, decoder, size, sink):
                _fail_drain(stream, files, path, do_unlink=do_unlink, file=sink.file)
                return None
            if sink.error is not None:
                send_fail(stream, f"write failed: {sink.error.message}")
                _fail_drain(stream, files, path, do_unlink=do_unlink, file=sink.file)
                return None
    except BaseException:
        if sink.file is not None:
            sink.file.close()
            if do_unlink:
                _remove_quietly(files, path)
        raise
    if sink.file is not None:
        sink.file.close()
    return int(size)


def _decode(stream: DeviceStream, decoder: Decoder, size: int, sink: _FileSink) -> bool:
    """One DATA message of a compressed push into the file, piece by piece as it arrives
    (no joined copy); the whole message is read even when it does not decode, then FAIL."""
    broken = False

    def feed(piece: memoryview) -> None:
        nonlocal broken
        if not broken:
            try:
                decoder.feed(piece, sink)
            except RemoteProtocolError:
                broken = True

    stream.read_into(size, feed)
    if broken:
        send_fail(stream, "decompress failed")
    return not broken


def _finish(stream: DeviceStream, decoder: Decoder) -> bool:
    try:
        decoder.finish()
    except RemoteProtocolError:
        send_fail(stream, "decompress failed")
        return False
    return True


def _fail_drain(
    stream: DeviceStream,
    files: DeviceFiles,
    path: str,
    *,
    do_unlink: bool,
    file: BinaryIO | None = None,
    done: bool = False,
) -> None:
    """adbd keeps reading DATA until DONE after a failure, then drops the partial file."""
    if file is not None:
        file.close()
    while not done:
        message_id, size = MESSAGE.unpack(stream.read_exact(MESSAGE.size))
        if message_id != b"DATA" or size > SYNC_DATA_MAX:
            break
        stream.read_exact(size)
    if do_unlink:
        _remove_quietly(files, path)


def _remove_quietly(files: DeviceFiles, path: str) -> None:
    with contextlib.suppress(FsError):
        files.remove(path)


def _receive_link(
    stream: DeviceStream, files: DeviceFiles, path: str, *, dry_run: bool
) -> int | None:
    message_id, size = MESSAGE.unpack(stream.read_exact(MESSAGE.size))
    if message_id != b"DATA":
        send_fail(stream, "invalid data message: expected ID_DATA")
        return None
    if size > SYNC_DATA_MAX:
        send_fail(stream, "oversize data message")
        return None
    target = stream.read_exact(size).split(b"\0", 1)[0].decode("utf-8", errors="surrogateescape")
    if not dry_run and _readlink(files, path) != target:
        _remove_quietly(files, path)
        try:
            files.symlink(path, target)
        except FsError as error:
            what = "secure_mkdirs failed" if isinstance(error, ParentDirError) else "symlink failed"
            send_fail(stream, f"{what}: {error.message}")
            return None
    message_id, timestamp = MESSAGE.unpack(stream.read_exact(MESSAGE.size))
    if message_id != b"DONE":
        send_fail(stream, "invalid data message: expected ID_DONE")
        return None
    return int(timestamp)


def _readlink(files: DeviceFiles, path: str) -> str | None:
    try:
        return files.readlink(path)
    except FsError:
        return None


def do_recv_v1(stream: DeviceStream, files: DeviceFiles, path: str) -> bool:
    return _send_file(stream, files, path)


def do_recv_v2(stream: DeviceStream, files: DeviceFiles, path: str) -> bool:
    _id, flags = RECV_V2_SETUP.unpack(stream.read_exact(RECV_V2_SETUP.size))
    compression = compression_from_flags(flags)
    if isinstance(compression, str):
        send_fail(stream, compression)
        return False
    return _send_file(stream, files, path, compression)


def _send_file(
    stream: DeviceStream,
    files: DeviceFiles,
    path: str,
    compression: Compression = Compression.NONE,
) -> bool:
    try:
        source: BinaryIO = files.open_read(path)
    except FsError as error:
        what = "read failed" if error.errno_name == "EISDIR" else "open failed"
        send_fail(stream, f"{what}: {error.message}")
        return False
    if compression.flag:
        with source:
            return send_compressed(stream, source, compression)
    # Fill whole WRTE-sized buffers with DATA messages, read straight into place.
    block = max(stream.max_payload, SYNC_DATA_MAX + MESSAGE.size)
    with source:
        while True:
            buffer = bytearray(block)
            view = memoryview(buffer)
            used = 0
            at_end = False
            while block - used > MESSAGE.size:
                room = min(SYNC_DATA_MAX, block - used - MESSAGE.size)
                try:
                    start = used + MESSAGE.size
                    count = source.readinto(view[start : start + room])  # type: ignore[attr-defined]
                except OSError as error:
                    send_fail(stream, f"read failed: {error.strerror}")
                    return False
                if not count:
                    at_end = True
                    break
                MESSAGE.pack_into(buffer, used, b"DATA", count)
                used += MESSAGE.size + count
            if used:
                stream.write(view[:used])
            if at_end:
                break
    stream.write(MESSAGE.pack(b"DONE", 0))
    return True
