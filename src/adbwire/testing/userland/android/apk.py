"""APK manifests: read the binary XML (AXML) inside an APK, and build minimal test APKs.

Only what installing needs is read: package, versionCode, versionName, uses-permission and
activities with their MAIN/LAUNCHER and VIEW filters. `build_apk` writes a real (unsigned)
zip with a binary manifest, so tests can install an APK without the Android SDK.
"""

from __future__ import annotations

import io
import struct
import zipfile
from dataclasses import dataclass, field

ANDROID_NS = "http://schemas.android.com/apk/res/android"
_RES_IDS = {0x01010003: "name", 0x0101021B: "versionCode", 0x0101021C: "versionName"}
_TYPE_STRING, _TYPE_INT_DEC, _TYPE_INT_HEX, _TYPE_BOOL = 0x03, 0x10, 0x11, 0x12


class ApkError(ValueError):
    """Not an APK, or its manifest cannot be read."""


@dataclass
class Manifest:
    package: str
    version_code: int = 1
    version_name: str = ""
    permissions: list[str] = field(default_factory=list)
    activities: list[str] = field(default_factory=list)
    launcher: str | None = None
    split: str = ""
    """A split APK's name (`<manifest split="config.xxhdpi">`); empty for a base APK."""


def read_manifest(apk: bytes) -> Manifest:
    try:
        with zipfile.ZipFile(io.BytesIO(apk)) as archive:
            data = archive.read("AndroidManifest.xml")
    except zipfile.BadZipFile as exc:
        raise ApkError("NOT_APK") from exc
    except KeyError as exc:
        raise ApkError("BAD_MANIFEST") from exc
    try:
        return _parse(data)
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise ApkError("BAD_MANIFEST") from exc


def _strings(chunk: bytes) -> list[str]:
    count, _, flags, start, _ = struct.unpack_from("<IIIII", chunk, 8)
    utf8 = bool(flags & 0x100)
    out = []
    for index in range(count):
        (offset,) = struct.unpack_from("<I", chunk, 28 + 4 * index)
        pos = start + offset
        if utf8:
            pos += 2 if chunk[pos] & 0x80 else 1  # length in characters
            length = chunk[pos]
            if length & 0x80:
                length = ((length & 0x7F) << 8) | chunk[pos + 1]
                pos += 1
            out.append(chunk[pos + 1 : pos + 1 + length].decode("utf-8"))
        else:
            (length,) = struct.unpack_from("<H", chunk, pos)
            if length & 0x8000:
                (low,) = struct.unpack_from("<H", chunk, pos + 2)
                length = ((length & 0x7FFF) << 16) | low
                pos += 2
            out.append(chunk[pos + 2 : pos + 2 + 2 * length].decode("utf-16-le"))
    return out


class _ManifestReader:
    """Collects what installing needs while walking the manifest's start tags."""

    def __init__(self) -> None:
        self.manifest = Manifest(package="")
        self._activity: str | None = None
        self._filter: set[str] = set()

    def start(self, tag: str, attrs: dict[str, str | int]) -> None:
        manifest = self.manifest
        name = str(attrs.get("name", ""))
        if tag == "manifest":
            manifest.package = str(attrs.get("package", ""))
            manifest.version_code = int(attrs.get("versionCode", 1))
            manifest.version_name = str(attrs.get("versionName", ""))
            manifest.split = str(attrs.get("split", ""))
        elif tag == "uses-permission" and name:
            manifest.permissions.append(name)
        elif tag in ("activity", "activity-alias") and name:
            self._activity = manifest.package + name if name.startswith(".") else name
            manifest.activities.append(self._activity)
        elif tag == "intent-filter":
            self._filter = set()
        elif tag in ("action", "category") and name:
            self._filter.add(name)
            if {"android.intent.action.MAIN", "android.intent.category.LAUNCHER"} <= self._filter:
                manifest.launcher = manifest.launcher or self._activity


def _attributes(
    chunk: bytes, strings: list[str], res_ids: list[int]
) -> tuple[str, dict[str, str | int]]:
    name_index, attr_start, attr_size, attr_count = struct.unpack_from("<xxxxIHHH", chunk, 16)
    attrs: dict[str, str | int] = {}
    for i in range(attr_count):
        base = 16 + attr_start + i * attr_size
        _, a_name, raw, _, _, a_type, a_data = struct.unpack_from("<IIIHBBI", chunk, base)
        res_id = res_ids[a_name] if a_name < len(res_ids) else 0
        key = strings[a_name] or _RES_IDS.get(res_id, "")
        if a_type == _TYPE_STRING:
            attrs[key] = strings[a_data]
        elif a_type in (_TYPE_INT_DEC, _TYPE_INT_HEX, _TYPE_BOOL):
            attrs[key] = a_data
        elif raw != 0xFFFFFFFF:
            attrs[key] = strings[raw]
    return strings[name_index], attrs


def _parse(data: bytes) -> Manifest:
    if struct.unpack_from("<H", data, 0)[0] != 0x0003:
        raise ApkError("BAD_MANIFEST")
    strings: list[str] = []
    res_ids: list[int] = []
    reader = _ManifestReader()
    pos = 8
    while pos < len(data):
        kind, header, size = struct.unpack_from("<HHI", data, pos)
        chunk = data[pos : pos + size]
        if kind == 0x0001:
            strings = _strings(chunk)
        elif kind == 0x0180:
            res_ids = list(struct.unpack_from(f"<{(size - header) // 4}I", chunk, header))
        elif kind == 0x0102:
            reader.start(*_attributes(chunk, strings, res_ids))
        if size <= 0:
            raise ApkError("BAD_MANIFEST")
        pos += size
    if not reader.manifest.package:
        raise ApkError("BAD_MANIFEST")
    return reader.manifest


# -- building ----------------------------------------------------------------------------------
def _string_pool(strings: list[str]) -> bytes:
    offsets, body = [], b""
    for text in strings:
        offsets.append(len(body))
        body += struct.pack("<H", len(text)) + text.encode("utf-16-le") + b"\x00\x00"
    body += b"\x00" * (-len(body) % 4)
    start = 28 + 4 * len(strings)
    header = struct.pack("<HHIIIIII", 0x0001, 28, start + len(body), len(strings), 0, 0, start, 0)
    return header + b"".join(struct.pack("<I", o) for o in offsets) + body


def build_manifest(manifest: Manifest) -> bytes:
    """A binary AndroidManifest.xml describing `manifest`."""
    strings = [
        "name",
        "versionCode",
        "versionName",
        "android",
        ANDROID_NS,
        "package",
        "manifest",
        "uses-permission",
        "application",
        "activity",
        "intent-filter",
        "action",
        "category",
    ]

    def index(text: str) -> int:
        if text not in strings:
            strings.append(text)
        return strings.index(text)

    elements: list[bytes] = []

    def start(tag: str, attrs: list[tuple[str, str | int, bool]]) -> None:
        body = b""
        for name, value, android in attrs:
            ns = index(ANDROID_NS) if android else 0xFFFFFFFF
            if isinstance(value, int):
                body += struct.pack(
                    "<IIIHBBI", ns, index(name), 0xFFFFFFFF, 8, 0, _TYPE_INT_DEC, value
                )
            else:
                body += struct.pack(
                    "<IIIHBBI", ns, index(name), index(value), 8, 0, _TYPE_STRING, index(value)
                )
        ext = struct.pack("<IIHHHHHH", 0xFFFFFFFF, index(tag), 20, 20, len(attrs), 0, 0, 0)
        elements.append(
            struct.pack("<HHIII", 0x0102, 16, 16 + len(ext) + len(body), 1, 0xFFFFFFFF) + ext + body
        )

    def end(tag: str) -> None:
        elements.append(
            struct.pack("<HHIIIII", 0x0103, 16, 24, 1, 0xFFFFFFFF, 0xFFFFFFFF, index(tag))
        )

    start(
        "manifest",
        [
            ("versionCode", manifest.version_code, True),
            ("versionName", manifest.version_name, True),
            ("package", manifest.package, False),
            *([("split", manifest.split, False)] if manifest.split else []),
        ],
    )
    for permission in manifest.permissions:
        start("uses-permission", [("name", permission, True)])
        end("uses-permission")
    start("application", [])
    for activity in manifest.activities:
        start("activity", [("name", activity, True)])
        if activity == manifest.launcher:
            start("intent-filter", [])
            for tag, value in (
                ("action", "android.intent.action.MAIN"),
                ("category", "android.intent.category.LAUNCHER"),
            ):
                start(tag, [("name", value, True)])
                end(tag)
            end("intent-filter")
        end("activity")
    end("application")
    end("manifest")
    res_map = struct.pack("<HHI", 0x0180, 8, 20) + struct.pack(
        "<III", 0x01010003, 0x0101021B, 0x0101021C
    )
    body = _string_pool(strings) + res_map + b"".join(elements)
    return struct.pack("<HHI", 0x0003, 8, 8 + len(body)) + body


def build_apk(
    package: str,
    *,
    version_code: int = 1,
    version_name: str = "1.0",
    permissions: tuple[str, ...] = (),
    activities: tuple[str, ...] = (".MainActivity",),
    launcher: str | None = ".MainActivity",
    split: str = "",
) -> bytes:
    """A minimal, unsigned APK (zip) whose manifest says the given things (`split`: a split
    APK of `package` by that name)."""

    def full(name: str) -> str:
        return package + name if name.startswith(".") else name

    manifest = Manifest(
        package,
        version_code,
        version_name,
        list(permissions),
        [full(a) for a in activities],
        full(launcher) if launcher else None,
        split,
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("AndroidManifest.xml", build_manifest(manifest))
        archive.writestr("classes.dex", b"dex\n035\x00" + bytes(104))
    return buffer.getvalue()
