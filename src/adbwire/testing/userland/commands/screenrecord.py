"""`screenrecord [--size WxH] [--bit-rate N] [--time-limit S] FILE`.

Records until the time limit or SIGINT (whose handler, as in the real tool, ends the
recording normally, exit status 0), then writes a small but well-formed MP4: ``ftyp``, a
``moov`` whose ``mvhd``/``tkhd`` carry the duration and the (rotated) screen size, and an
empty ``mdat``. It holds no frames. Usage errors print screenrecord's own messages.
"""

from __future__ import annotations

import re
import struct
import time

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.android.display_modes import rotated, rotation
from adbwire.testing.userland.shell.interp import CommandFn, Invocation

MAX_TIME_LIMIT = 180
TIMESCALE = 1000
POLL_SECONDS = 0.02
_SIZE = re.compile(r"^(\d+)x(\d+)$")
_MATRIX = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)


def _box(kind: bytes, *parts: bytes) -> bytes:
    body = b"".join(parts)
    return struct.pack(">I", 8 + len(body)) + kind + body


def _full(kind: bytes, version_flags: int, *parts: bytes) -> bytes:
    return _box(kind, struct.pack(">I", version_flags), *parts)


def mp4(width: int, height: int, duration_ms: int) -> bytes:
    """A minimal ISO BMFF file with one (empty) video track of the given size and length."""
    mvhd = _full(
        b"mvhd", 0, struct.pack(">IIII", 0, 0, TIMESCALE, duration_ms),
        struct.pack(">IH", 0x10000, 0x100), bytes(10), _MATRIX, bytes(24), struct.pack(">I", 2),
    )  # fmt: skip
    tkhd = _full(
        b"tkhd", 0x3, struct.pack(">IIIII", 0, 0, 1, 0, duration_ms), bytes(8),
        struct.pack(">HHHH", 0, 0, 0, 0), _MATRIX, struct.pack(">II", width << 16, height << 16),
    )  # fmt: skip
    mdhd = _full(b"mdhd", 0, struct.pack(">IIIIHH", 0, 0, TIMESCALE, duration_ms, 0x55C4, 0))
    hdlr = _full(b"hdlr", 0, bytes(4), b"vide", bytes(12), b"VideoHandle\x00")
    url = _full(b"url ", 1)
    stbl = _box(
        b"stbl",
        _full(b"stsd", 0, struct.pack(">I", 0)),
        _full(b"stts", 0, struct.pack(">I", 0)),
        _full(b"stsc", 0, struct.pack(">I", 0)),
        _full(b"stsz", 0, struct.pack(">II", 0, 0)),
        _full(b"stco", 0, struct.pack(">I", 0)),
    )
    minf = _box(
        b"minf",
        _full(b"vmhd", 1, bytes(8)),
        _box(b"dinf", _full(b"dref", 0, struct.pack(">I", 1), url)),
        stbl,
    )
    trak = _box(b"trak", tkhd, _box(b"mdia", mdhd, hdlr, minf))
    ftyp = _box(b"ftyp", b"mp42", struct.pack(">I", 0), b"isommp42")
    return ftyp + _box(b"moov", mvhd, trak) + _box(b"mdat")


def _usage(inv: Invocation, message: str) -> int:
    inv.err(message + "\n")
    return 2


def screenrecord(inv: Invocation) -> int:
    args = list(inv.args)
    limit = MAX_TIME_LIMIT
    size: tuple[int, int] | None = None
    operands: list[str] = []
    while args:
        arg = args.pop(0)
        if arg in ("--size", "--bit-rate", "--time-limit", "--bugreport", "--verbose"):
            if arg in ("--bugreport", "--verbose"):
                continue
            if not args:
                return _usage(inv, f"screenrecord: option '{arg}' requires an argument")
            value = args.pop(0)
            if arg == "--size":
                match = _SIZE.match(value)
                if match is None:
                    return _usage(inv, f"Invalid size '{value}', must be width x height")
                size = (int(match.group(1)), int(match.group(2)))
            elif arg == "--time-limit":
                if not value.isdigit() or not 1 <= int(value) <= MAX_TIME_LIMIT:
                    return _usage(
                        inv,
                        f"Time limit {value}s outside acceptable range [1,{MAX_TIME_LIMIT}]",
                    )
                limit = int(value)
            elif not value.rstrip("MmKk").isdigit():
                return _usage(inv, f"Invalid bit rate '{value}'")
        elif arg.startswith("-"):
            return _usage(inv, f"screenrecord: unrecognized option '{arg}'")
        else:
            operands.append(arg)
    if len(operands) != 1:
        return _usage(inv, "Must specify output file (see --help).")
    path = inv.path(operands[0])
    device = inv.device
    if not device.files.exists(path.rsplit("/", 1)[0] or "/"):
        inv.err(f"Unable to open '{operands[0]}': No such file or directory\n")
        return 1
    started = time.monotonic()
    while not inv.cancelled and time.monotonic() - started < limit:
        time.sleep(POLL_SECONDS)
    child = inv.shell.child
    if child is not None and child.pending_signal == 2:
        child.pending_signal = 0  # screenrecord's SIGINT handler: stop and finish the file
    with device.state.lock:
        turns = rotation(device.state)
    width, height = size or rotated(device.screen_size(), turns)
    elapsed_ms = min(int((time.monotonic() - started) * 1000), limit * 1000)
    try:
        device.files.write_file(path, mp4(width, height, elapsed_ms), 0o100660)
    except FsError as exc:
        inv.err(f"Unable to open '{operands[0]}': {exc.message}\n")
        return 1
    return 0


COMMANDS: dict[str, CommandFn] = {"screenrecord": screenrecord}
