"""What an APK says it is: package name, versionCode and versionName from its manifest.

An APK is a zip; its `AndroidManifest.xml` is compiled to Android's binary XML (AXML): a
chain of chunks, each starting with (type u16, header size u16, total size u32). We read
the string pool, the resource-id map (attribute names are matched by resource id, which
survives name obfuscation) and the first start element, which is always <manifest>.
Everything is little-endian and every offset is bounds-checked: a malformed file is an
error naming the file, never an IndexError.
"""

from __future__ import annotations

import os
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path

from adbwire.errors import UsageError

MANIFEST_NAME = "AndroidManifest.xml"
MAX_MANIFEST_BYTES = 16 * 1024 * 1024
"""Refuse larger manifests: real ones are kilobytes; a bigger one is a zip bomb or junk."""

ANDROID_NAMESPACE = "http://schemas.android.com/apk/res/android"
ATTR_VERSION_CODE = 0x0101021B
ATTR_VERSION_NAME = 0x0101021C
ATTR_VERSION_CODE_MAJOR = 0x01010576

CHUNK_STRING_POOL = 0x0001
CHUNK_XML = 0x0003
CHUNK_RESOURCE_MAP = 0x0180
CHUNK_START_ELEMENT = 0x0102

VALUE_REFERENCE = 0x01
VALUE_STRING = 0x03
VALUE_INT_DEC = 0x10
VALUE_INT_HEX = 0x11

UTF8_FLAG = 0x100
NO_INDEX = 0xFFFFFFFF

_BY_RESOURCE_ID = {
    ATTR_VERSION_CODE: "versionCode",
    ATTR_VERSION_NAME: "versionName",
    ATTR_VERSION_CODE_MAJOR: "versionCodeMajor",
}

_CHUNK = struct.Struct("<HHI")
_POOL = struct.Struct("<IIIII")
_ELEMENT = struct.Struct("<IIHHHHHH")
_ATTRIBUTE = struct.Struct("<IIIHBBI")


class BinaryXmlError(ValueError):
    """The bytes are not a well-formed binary XML manifest."""


@dataclass(frozen=True)
class ApkInfo:
    """Identity of an APK as its manifest declares it."""

    package: str
    version_code: int | None
    """`android:versionCode` (with versionCodeMajor in the high 32 bits), None if absent."""
    version_name: str | None
    """`android:versionName`; None if absent or set from a resource (not resolved here)."""

    def describe(self) -> str:
        parts = [self.package]
        if self.version_name is not None:
            parts.append(self.version_name)
        if self.version_code is not None:
            parts.append(f"(versionCode {self.version_code})")
        return " ".join(parts)


@dataclass(frozen=True)
class _Attribute:
    namespace: str | None
    name: str
    resource_id: int | None
    raw: str | None
    value_type: int
    data: int


def read_apk_info(path: str | os.PathLike[str]) -> ApkInfo:
    """Read an APK's package name and version; a bad file is a UsageError naming it."""
    apk = Path(path)
    try:
        with zipfile.ZipFile(apk) as archive:
            try:
                entry = archive.getinfo(MANIFEST_NAME)
            except KeyError:
                raise UsageError(f"{apk}: not an APK (the zip has no {MANIFEST_NAME})") from None
            if entry.file_size > MAX_MANIFEST_BYTES:
                raise UsageError(f"{apk}: {MANIFEST_NAME} is implausibly large")
            with archive.open(entry) as member:
                data = member.read(MAX_MANIFEST_BYTES + 1)
    except FileNotFoundError:
        raise UsageError(f"{apk}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{apk}: is a directory, not an APK file") from None
    except zipfile.BadZipFile as exc:
        raise UsageError(f"{apk}: not an APK (not a zip archive: {exc})") from None
    except OSError as exc:
        raise UsageError(f"{apk}: cannot read ({exc.strerror or exc})") from None
    try:
        return parse_manifest(data)
    except BinaryXmlError as exc:
        raise UsageError(f"{apk}: unreadable {MANIFEST_NAME}: {exc}") from None


def parse_manifest(data: bytes) -> ApkInfo:
    """Package and version from the bytes of a compiled (binary) AndroidManifest.xml."""
    attributes = _root_attributes(data)
    package: str | None = None
    version_code: int | None = None
    code_major = 0
    version_name: str | None = None
    for attribute in attributes:
        key = _key(attribute)
        if key == "package":
            package = _string_value(attribute)
        elif key == "versionCode":
            version_code = _int_value(attribute)
        elif key == "versionCodeMajor":
            code_major = _int_value(attribute) or 0
        elif key == "versionName":
            version_name = _string_value(attribute)
    if not package:
        raise BinaryXmlError("<manifest> has no package attribute")
    if version_code is not None and code_major:
        version_code |= code_major << 32
    return ApkInfo(package, version_code, version_name)


def _key(attribute: _Attribute) -> str | None:
    """Which manifest attribute this is: by resource id when known, else by name."""
    if attribute.namespace is None and attribute.name == "package":
        return "package"
    if attribute.resource_id:
        return _BY_RESOURCE_ID.get(attribute.resource_id)
    if attribute.namespace == ANDROID_NAMESPACE and attribute.name in _BY_RESOURCE_ID.values():
        return attribute.name
    return None


def _string_value(attribute: _Attribute) -> str | None:
    """The attribute's literal text; None for a reference to a resource."""
    return attribute.raw


def _int_value(attribute: _Attribute) -> int | None:
    if attribute.value_type in (VALUE_INT_DEC, VALUE_INT_HEX):
        return attribute.data
    if attribute.raw is not None and attribute.raw.strip().isdigit():
        return int(attribute.raw.strip())
    return None


# ----------------------------------------------------------------- chunk walking


def _root_attributes(data: bytes) -> list[_Attribute]:
    if len(data) < _CHUNK.size:
        raise BinaryXmlError("file too short")
    kind, header_size, total = _CHUNK.unpack_from(data, 0)
    if kind != CHUNK_XML:
        hint = " (it is plain text XML, not compiled)" if data.lstrip()[:1] == b"<" else ""
        raise BinaryXmlError(f"not binary XML{hint}")
    end = min(total, len(data))
    offset = header_size
    strings: list[str] = []
    resource_ids: list[int] = []
    while offset + _CHUNK.size <= end:
        kind, header_size, size = _CHUNK.unpack_from(data, offset)
        if size < _CHUNK.size or header_size > size or offset + size > end:
            raise BinaryXmlError(f"chunk at offset {offset} has a bad size")
        chunk = data[offset : offset + size]
        if kind == CHUNK_STRING_POOL:
            strings = _string_pool(chunk, header_size)
        elif kind == CHUNK_RESOURCE_MAP:
            count = (size - header_size) // 4
            resource_ids = list(struct.unpack_from(f"<{count}I", chunk, header_size))
        elif kind == CHUNK_START_ELEMENT:
            return _element_attributes(chunk, header_size, strings, resource_ids)
        offset += size
    raise BinaryXmlError("no <manifest> element")


def _string_pool(chunk: bytes, header_size: int) -> list[str]:
    if header_size < _CHUNK.size + _POOL.size:
        raise BinaryXmlError("string pool header too short")
    count, _styles, flags, strings_start, _ = _POOL.unpack_from(chunk, _CHUNK.size)
    offsets_end = header_size + 4 * count
    if offsets_end > len(chunk) or strings_start > len(chunk):
        raise BinaryXmlError("string pool is truncated")
    offsets = struct.unpack_from(f"<{count}I", chunk, header_size)
    decode = _utf8_string if flags & UTF8_FLAG else _utf16_string
    return [decode(chunk, strings_start + offset) for offset in offsets]


def _utf8_string(chunk: bytes, at: int) -> str:
    _chars, at = _utf8_length(chunk, at)
    size, at = _utf8_length(chunk, at)
    if at + size > len(chunk):
        raise BinaryXmlError("a string runs past its pool")
    return chunk[at : at + size].decode("utf-8", errors="replace")


def _utf8_length(chunk: bytes, at: int) -> tuple[int, int]:
    if at >= len(chunk):
        raise BinaryXmlError("a string offset is past its pool")
    first = chunk[at]
    if first & 0x80:
        if at + 1 >= len(chunk):
            raise BinaryXmlError("a string length is truncated")
        return ((first & 0x7F) << 8) | chunk[at + 1], at + 2
    return first, at + 1


def _utf16_string(chunk: bytes, at: int) -> str:
    if at + 2 > len(chunk):
        raise BinaryXmlError("a string offset is past its pool")
    (units,) = struct.unpack_from("<H", chunk, at)
    at += 2
    if units & 0x8000:
        if at + 2 > len(chunk):
            raise BinaryXmlError("a string length is truncated")
        (low,) = struct.unpack_from("<H", chunk, at)
        units = ((units & 0x7FFF) << 16) | low
        at += 2
    if at + 2 * units > len(chunk):
        raise BinaryXmlError("a string runs past its pool")
    return chunk[at : at + 2 * units].decode("utf-16-le", errors="replace")


def _element_attributes(
    chunk: bytes, header_size: int, strings: list[str], resource_ids: list[int]
) -> list[_Attribute]:
    if header_size + _ELEMENT.size > len(chunk):
        raise BinaryXmlError("start element is truncated")
    _ns, _name, start, size, count, *_ = _ELEMENT.unpack_from(chunk, header_size)
    first = header_size + start
    if size < _ATTRIBUTE.size or first + count * size > len(chunk):
        raise BinaryXmlError("element attributes run past their chunk")

    def string(index: int) -> str | None:
        if index == NO_INDEX:
            return None
        if index >= len(strings):
            raise BinaryXmlError(f"string index {index} is outside the pool")
        return strings[index]

    attributes = []
    for number in range(count):
        ns, name, raw, _size, _res0, value_type, data = _ATTRIBUTE.unpack_from(
            chunk, first + number * size
        )
        raw_text = string(raw)
        if raw_text is None and value_type == VALUE_STRING:
            raw_text = string(data)
        attributes.append(
            _Attribute(
                namespace=string(ns),
                name=string(name) or "",
                resource_id=resource_ids[name] if name < len(resource_ids) else None,
                raw=raw_text,
                value_type=value_type,
                data=data,
            )
        )
    return attributes
