"""A minimal writer of Android binary XML (AXML) manifests and APK zips, for tests.

It lays out what aapt2 emits: an XML chunk holding a string pool (UTF-16 or UTF-8), a
resource map for android: attribute names, a namespace, and start/end element chunks.
Written from the format's description, so the reader is tested on real binary XML.
"""

from __future__ import annotations

import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path

ANDROID_NS = "http://schemas.android.com/apk/res/android"
NO_INDEX = 0xFFFFFFFF
TYPE_REFERENCE = 0x01
TYPE_STRING = 0x03
TYPE_INT_DEC = 0x10
TYPE_INT_HEX = 0x11

ANDROID_IDS = {
    "versionCode": 0x0101021B,
    "versionName": 0x0101021C,
    "versionCodeMajor": 0x01010576,
    "minSdkVersion": 0x0101020C,
    "label": 0x01010001,
}


@dataclass(frozen=True)
class Attr:
    name: str
    value: str | int
    android: bool = True
    value_type: int | None = None
    """Force a type: TYPE_REFERENCE for '@string/…', TYPE_INT_HEX for hex ints."""


@dataclass(frozen=True)
class Element:
    name: str
    attrs: tuple[Attr, ...] = ()
    children: tuple[Element, ...] = ()


class _Strings:
    def __init__(self, first: list[str]) -> None:
        self.items: list[str] = []
        for text in first:
            self.index(text)

    def index(self, text: str) -> int:
        if text not in self.items:
            self.items.append(text)
        return self.items.index(text)


def _chunk(kind: int, header: bytes, body: bytes) -> bytes:
    header_size = 8 + len(header)
    return struct.pack("<HHI", kind, header_size, header_size + len(body)) + header + body


def _pad4(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % 4)


def _encode_utf16(text: str) -> bytes:
    units = len(text.encode("utf-16-le")) // 2
    if units > 0x7FFF:
        length = struct.pack("<HH", 0x8000 | (units >> 16), units & 0xFFFF)
    else:
        length = struct.pack("<H", units)
    return length + text.encode("utf-16-le") + b"\0\0"


def _utf8_length(value: int) -> bytes:
    if value > 0x7F:
        return bytes([0x80 | (value >> 8), value & 0xFF])
    return bytes([value])


def _encode_utf8(text: str) -> bytes:
    raw = text.encode("utf-8")
    units = len(text.encode("utf-16-le")) // 2
    return _utf8_length(units) + _utf8_length(len(raw)) + raw + b"\0"


def _string_pool(items: list[str], utf8: bool) -> bytes:
    encoded = [(_encode_utf8 if utf8 else _encode_utf16)(text) for text in items]
    offsets, position = [], 0
    for data in encoded:
        offsets.append(position)
        position += len(data)
    strings_start = 8 + 20 + 4 * len(items)
    header = struct.pack("<IIIII", len(items), 0, 0x100 if utf8 else 0, strings_start, 0)
    body = struct.pack(f"<{len(items)}I", *offsets) + _pad4(b"".join(encoded))
    return _chunk(0x0001, header, body)


def _node_header(line: int) -> bytes:
    return struct.pack("<II", line, NO_INDEX)


def _attribute(attr: Attr, strings: _Strings, ns_index: int) -> bytes:
    ns = ns_index if attr.android else NO_INDEX
    name = strings.index(attr.name)
    kind = attr.value_type
    if isinstance(attr.value, int):
        kind = kind or TYPE_INT_DEC
        raw, data = NO_INDEX, attr.value & 0xFFFFFFFF
    elif kind == TYPE_REFERENCE:
        raw, data = NO_INDEX, int(attr.value, 16)
    else:
        kind = TYPE_STRING
        raw = data = strings.index(attr.value)
    return struct.pack("<IIIHBBI", ns, name, raw, 8, 0, kind, data)


def build_manifest(root: Element, *, utf8: bool = False, resource_map: bool = True) -> bytes:
    """The binary XML of `root` (usually <manifest …>)."""
    android_names = sorted({a.name for a in _all_attrs(root) if a.android})
    strings = _Strings(android_names if resource_map else [])
    prefix, uri = strings.index("android"), strings.index(ANDROID_NS)
    body: list[bytes] = [
        _chunk(0x0100, _node_header(1), struct.pack("<II", prefix, uri)),
    ]
    _emit(root, strings, uri, body, line=2)
    body.append(_chunk(0x0101, _node_header(99), struct.pack("<II", prefix, uri)))
    pool = _string_pool(strings.items, utf8)
    ids = [ANDROID_IDS.get(name, 0x01010000) for name in android_names] if resource_map else []
    resource_chunk = _chunk(0x0180, b"", struct.pack(f"<{len(ids)}I", *ids)) if ids else b""
    return _chunk(0x0003, b"", pool + resource_chunk + b"".join(body))


def _all_attrs(element: Element) -> list[Attr]:
    found = list(element.attrs)
    for child in element.children:
        found += _all_attrs(child)
    return found


def _emit(element: Element, strings: _Strings, ns: int, out: list[bytes], line: int) -> None:
    name = strings.index(element.name)
    attrs = b"".join(_attribute(a, strings, ns) for a in element.attrs)
    ext = struct.pack("<IIHHHHHH", NO_INDEX, name, 20, 20, len(element.attrs), 0, 0, 0)
    out.append(_chunk(0x0102, _node_header(line), ext + attrs))
    for child in element.children:
        _emit(child, strings, ns, out, line + 1)
    out.append(_chunk(0x0103, _node_header(line), struct.pack("<II", NO_INDEX, name)))


def manifest(
    package: str,
    version_code: int | None = 1,
    version_name: str | None = "1.0",
    *,
    extra: tuple[Attr, ...] = (),
) -> Element:
    attrs: list[Attr] = []
    if version_code is not None:
        attrs.append(Attr("versionCode", version_code))
    if version_name is not None:
        attrs.append(Attr("versionName", version_name))
    attrs.append(Attr("package", package, android=False))
    children = (
        Element("uses-sdk", (Attr("minSdkVersion", 21),)),
        Element("application", (Attr("label", "Test app"),)),
    )
    return Element("manifest", (*attrs, *extra), children)


def write_apk(
    path: Path, manifest_bytes: bytes | None, *, payload: bytes = b"", name: str | None = None
) -> Path:
    """A zip with the manifest (if any) and a classes.dex of `payload`."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        if manifest_bytes is not None:
            archive.writestr(name or "AndroidManifest.xml", manifest_bytes)
        archive.writestr(zipfile.ZipInfo("classes.dex"), payload)
    return path


def make_apk(
    directory: Path,
    package: str = "com.example.app",
    version_code: int | None = 7,
    version_name: str | None = "1.7",
    *,
    payload: bytes = b"dex\n035\0",
    filename: str = "app.apk",
) -> Path:
    data = build_manifest(manifest(package, version_code, version_name))
    return write_apk(directory / filename, data, payload=payload)
