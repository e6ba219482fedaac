"""sync: — the device side of the file sync protocol (daemon/file_sync_service.cpp).

Requests are id (4 ASCII bytes) + le32 path length (≤ 1024) + path. STAT is lstat with 32-bit
fields and all zeros on error; STA2 (stat) and LST2 (lstat) are 64-bit and carry the Linux
errno; LIST/LIS2 send one DENT/DNT2 per entry (".", ".." included, lstat'ed) and then DONE;
SEND/SND2/RECV/RCV2 are in sync_transfer.py. A failed SEND or RECV answers FAIL and ends the
service, as adbd does; QUIT ends it quietly.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Final

from adbwire.testing.device_files import DeviceFiles, FileStat, FsError
from adbwire.testing.services.base import ServiceContext, ServiceHandler
from adbwire.testing.services.sync_transfer import (
    do_recv_v1,
    do_recv_v2,
    do_send_v1,
    do_send_v2,
    send_fail,
)
from adbwire.testing.stream import DeviceStream, StreamClosed

__all__ = ["open_sync"]

MAX_PATH: Final = 1024
LIST_BATCH: Final = 64 * 1024
REQUEST = struct.Struct("<4sI")
STAT_V1 = struct.Struct("<4sIII")
STAT_V2 = struct.Struct("<4sIQQIIIIQqqq")
DENT_V1 = struct.Struct("<4sIIII")
DENT_V2 = struct.Struct("<4sIQQIIIIQqqqI")
_U32 = 0xFFFFFFFF


def open_sync(context: ServiceContext) -> ServiceHandler:
    files = context.state.files

    def serve(stream: DeviceStream) -> None:
        while _handle_request(stream, files):
            pass

    return serve


def _device_path(raw: bytes) -> str:
    # adbd reads the path as a C string: a NUL ends it.
    path = raw.split(b"\0", 1)[0].decode("utf-8", errors="surrogateescape")
    return path if path.startswith("/") or not path else "/" + path  # adbd's cwd is /


def _handle_request(stream: DeviceStream, files: DeviceFiles) -> bool:
    try:
        request_id, length = REQUEST.unpack(stream.read_exact(REQUEST.size))
    except StreamClosed:
        return False
    if length > MAX_PATH:
        send_fail(stream, "path too long")
        return False
    path = _device_path(stream.read_exact(length))
    if request_id == b"STAT":
        stream.write(_stat_v1(files, path))
    elif request_id in (b"STA2", b"LST2"):
        stream.write(_stat_v2(files, path, request_id))
    elif request_id in (b"LIST", b"LIS2"):
        _list(stream, files, path, v2=request_id == b"LIS2")
    elif request_id == b"SEND":
        return do_send_v1(stream, files, path)
    elif request_id == b"SND2":
        return do_send_v2(stream, files, path)
    elif request_id == b"RECV":
        return do_recv_v1(stream, files, path)
    elif request_id == b"RCV2":
        return do_recv_v2(stream, files, path)
    elif request_id == b"QUIT":
        return False
    else:
        code = int.from_bytes(request_id, "little")
        send_fail(stream, f"unknown command {code:08x}")
        return False
    return True


def _lookup(files: DeviceFiles, path: str, *, follow: bool) -> FileStat | FsError:
    try:
        return files.stat(path, follow=follow)
    except FsError as error:
        return error


def _stat_v1(files: DeviceFiles, path: str) -> bytes:
    found = _lookup(files, path, follow=False)
    if isinstance(found, FsError):
        return STAT_V1.pack(b"STAT", 0, 0, 0)
    return STAT_V1.pack(b"STAT", found.mode, found.size & _U32, found.mtime & _U32)


def _v2_fields(st: FileStat) -> tuple[int, ...]:
    return (
        st.dev,
        st.ino,
        st.mode,
        st.nlink,
        st.uid,
        st.gid,
        st.size,
        st.atime,
        st.mtime,
        st.ctime,
    )


def _stat_v2(files: DeviceFiles, path: str, request_id: bytes) -> bytes:
    found = _lookup(files, path, follow=request_id == b"STA2")
    if isinstance(found, FsError):
        return STAT_V2.pack(request_id, found.errno, *([0] * 10))
    return STAT_V2.pack(request_id, 0, *_v2_fields(found))


def _entries(files: DeviceFiles, path: str) -> Iterator[tuple[str, FileStat]]:
    try:
        if not files.stat(path).is_dir:
            return
        listing = files.iter_dir(path)
    except FsError:
        return
    for name in (".", ".."):
        found = _lookup(files, f"{path.rstrip('/')}/{name}", follow=True)
        if isinstance(found, FileStat):
            yield name, found
    try:
        yield from listing
    except FsError:
        return


def _list(stream: DeviceStream, files: DeviceFiles, path: str, *, v2: bool) -> None:
    """One DENT/DNT2 per entry, then DONE; written in batches, so a listing that never ends
    (a hostile DeviceFiles) costs the device no memory."""
    out: list[bytes] = []
    pending = 0
    for name, st in _entries(files, path):
        encoded = name.encode("utf-8", errors="surrogateescape")
        if v2:
            out.append(DENT_V2.pack(b"DNT2", 0, *_v2_fields(st), len(encoded)))
        else:
            out.append(
                DENT_V1.pack(b"DENT", st.mode, st.size & _U32, st.mtime & _U32, len(encoded))
            )
        out.append(encoded)
        pending += len(encoded) + DENT_V2.size
        if pending >= LIST_BATCH:
            stream.write(b"".join(out))
            out.clear()
            pending = 0
    if v2:
        out.append(DENT_V2.pack(b"DONE", *([0] * 12)))
    else:
        out.append(DENT_V1.pack(b"DONE", 0, 0, 0, 0))
    stream.write(b"".join(out))
