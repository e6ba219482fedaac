"""Bytes in a fixture: text where they are text, base64 otherwise, zlib for large blobs.

One of these keys carries the bytes of a `host`/`device` event:

- ``"text"``: the bytes are UTF-8 and mostly printable (JSON escapes the rest);
- ``"shell"``: shell-protocol v2 packets, one ``[channel, value]`` pair each, e.g.
  ``[["stdout", "hi\\n"], ["exit", 0]]`` (value: text, ``{"b64": ...}``, or the exit code);
- ``"b64"``: base64, with ``"size"`` (decoded length) beside it;
- ``"zb64"``: base64 of zlib-compressed bytes, with ``"size"``, for blobs over 4 KiB that
  compress (a 10 MB pull of compressible files stays small; of random bytes, ~13 MB).
"""

from __future__ import annotations

import base64
import binascii
import struct
import zlib
from typing import Any, Final

COMPRESS_BINARY_OVER: Final = 4 * 1024
COMPRESS_TEXT_OVER: Final = 64 * 1024
ZLIB_LEVEL: Final = 6
PAYLOAD_KEYS: Final = ("text", "shell", "b64", "zb64")

SHELL_CHANNELS: Final = ("stdin", "stdout", "stderr", "exit", "close-stdin", "window-size")
_SHELL_HEADER = struct.Struct("<BI")
_EXIT = 3


class PayloadError(ValueError):
    """The bytes of an event cannot be decoded (the reader adds the file and line)."""


def is_shell_v2_service(service: str) -> bool:
    """`shell,v2,raw:…`, `shell,v2,pty:…`, `shell,v2,TERM=xterm,pty:…` and the like."""
    options, colon, _ = service.partition(":")
    parts = options.split(",")
    return bool(colon) and parts[0] == "shell" and "v2" in parts[1:]


_CONTROL_BYTES: Final = bytes(range(0x09)) + b"\x0b\x0c" + bytes(range(0x0E, 0x20)) + b"\x7f"
_NOT_CONTROL: Final = bytes(b for b in range(256) if b not in _CONTROL_BYTES)


def _as_text(data: bytes) -> str | None:
    """`data` as a string if it is UTF-8 and at most half control characters."""
    controls = len(data.translate(None, _NOT_CONTROL))
    if controls * 2 > len(data):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _shell_packets(data: bytes) -> list[list[Any]] | None:
    packets: list[list[Any]] = []
    offset = 0
    while offset < len(data):
        if offset + _SHELL_HEADER.size > len(data):
            return None
        channel, length = _SHELL_HEADER.unpack_from(data, offset)
        offset += _SHELL_HEADER.size
        if channel >= len(SHELL_CHANNELS) or offset + length > len(data):
            return None
        body = data[offset : offset + length]
        offset += length
        value: Any
        if channel == _EXIT and length == 1:
            value = body[0]
        else:
            text = _as_text(body) if body else ""
            value = text if text is not None else {"b64": base64.b64encode(body).decode("ascii")}
        packets.append([SHELL_CHANNELS[channel], value])
    return packets


def encode_payload(data: bytes, *, service: str = "") -> dict[str, Any]:
    """The JSON fields that carry `data` (the most readable form that stays compact)."""
    text = _as_text(data)
    shell = _shell_packets(data) if is_shell_v2_service(service) else None
    readable = shell is not None or text is not None
    if len(data) > (COMPRESS_TEXT_OVER if readable else COMPRESS_BINARY_OVER):
        packed = zlib.compress(data, ZLIB_LEVEL)
        if len(packed) < len(data) * 9 // 10:
            return {"zb64": base64.b64encode(packed).decode("ascii"), "size": len(data)}
    if shell is not None:
        return {"shell": shell}
    if text is not None:
        return {"text": text}
    return {"b64": base64.b64encode(data).decode("ascii"), "size": len(data)}


def _b64(value: object, what: str) -> bytes:
    if not isinstance(value, str):
        raise PayloadError(f"{what} must be a base64 string")
    try:
        return base64.b64decode(value.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError) as exc:
        raise PayloadError(f"{what} is not valid base64 ({exc})") from exc


def _shell_bytes(packets: object) -> bytes:
    if not isinstance(packets, list):
        raise PayloadError('"shell" must be a list of [channel, value] pairs')
    out = bytearray()
    for item in packets:
        if not (isinstance(item, list) and len(item) == 2 and item[0] in SHELL_CHANNELS):
            raise PayloadError(f'bad "shell" packet {item!r}: expected [channel, value]')
        channel, value = SHELL_CHANNELS.index(item[0]), item[1]
        if isinstance(value, bool):
            raise PayloadError(f"bad shell packet value {value!r}")
        if isinstance(value, int):
            if not 0 <= value <= 255:
                raise PayloadError(f"exit code {value} is not a byte")
            body = bytes([value])
        elif isinstance(value, str):
            body = value.encode("utf-8")
        elif isinstance(value, dict) and set(value) == {"b64"}:
            body = _b64(value["b64"], "shell packet b64")
        else:
            raise PayloadError(f"bad shell packet value {value!r}")
        out += _SHELL_HEADER.pack(channel, len(body)) + body
    return bytes(out)


def _sized(data: bytes, fields: dict[str, Any]) -> bytes:
    size = fields.get("size")
    if size is not None and size != len(data):
        raise PayloadError(f"decoded {len(data)} bytes but the line says size {size}")
    return data


def decode_payload(fields: dict[str, Any]) -> bytes:
    """The bytes an event carries; PayloadError when the fields are malformed."""
    present = [key for key in PAYLOAD_KEYS if key in fields]
    if len(present) != 1:
        raise PayloadError(f"expected exactly one of {', '.join(PAYLOAD_KEYS)}; got {present}")
    key = present[0]
    value = fields[key]
    if key == "text":
        if not isinstance(value, str):
            raise PayloadError('"text" must be a string')
        return value.encode("utf-8")
    if key == "shell":
        return _shell_bytes(value)
    if key == "b64":
        return _sized(_b64(value, '"b64"'), fields)
    packed = _b64(value, '"zb64"')
    size = fields.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise PayloadError('"zb64" needs a non-negative integer "size"')
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(packed, size + 1)
    except zlib.error as exc:
        raise PayloadError(f'"zb64" is not valid zlib data ({exc})') from exc
    if not inflater.eof:
        raise PayloadError('"zb64" data is truncated or longer than its "size"')
    return _sized(data, fields)
