"""The APK manifest reader on real binary XML written by tests/wire/services/axml_writer."""

from __future__ import annotations

import contextlib
import os
import random
import zipfile
from pathlib import Path

import pytest

from adbwire.errors import UsageError
from adbwire.wire.services.apk_manifest import (
    ApkInfo,
    BinaryXmlError,
    parse_manifest,
    read_apk_info,
)
from tests.wire.services.axml_writer import (
    TYPE_INT_HEX,
    TYPE_REFERENCE,
    Attr,
    Element,
    build_manifest,
    make_apk,
    manifest,
    write_apk,
)


@pytest.mark.parametrize("utf8", [False, True], ids=["utf16-pool", "utf8-pool"])
def test_reads_package_and_version(tmp_path: Path, utf8: bool) -> None:
    data = build_manifest(manifest("org.example.notes", 42, "4.2-beta"), utf8=utf8)
    apk = write_apk(tmp_path / "notes.apk", data)
    assert read_apk_info(apk) == ApkInfo("org.example.notes", 42, "4.2-beta")


def test_version_code_major_fills_the_high_bits() -> None:
    element = manifest("com.big.app", 5, "9", extra=(Attr("versionCodeMajor", 3),))
    assert parse_manifest(build_manifest(element)).version_code == (3 << 32) | 5


def test_hex_version_code() -> None:
    element = Element(
        "manifest",
        (Attr("versionCode", 0x1F, value_type=TYPE_INT_HEX), Attr("package", "a.b", android=False)),
    )
    assert parse_manifest(build_manifest(element)).version_code == 31


def test_version_name_from_a_resource_is_not_guessed() -> None:
    element = Element(
        "manifest",
        (
            Attr("versionName", "7f0e0001", value_type=TYPE_REFERENCE),
            Attr("package", "com.example.ref", android=False),
        ),
    )
    info = parse_manifest(build_manifest(element))
    assert info == ApkInfo("com.example.ref", None, None)


def test_without_resource_map_names_are_matched_in_the_android_namespace() -> None:
    info = parse_manifest(build_manifest(manifest("x.y.z", 3, "three"), resource_map=False))
    assert info == ApkInfo("x.y.z", 3, "three")


def test_attribute_without_namespace_is_not_taken_for_android_one() -> None:
    element = Element(
        "manifest",
        (Attr("package", "p.q", android=False), Attr("versionCode", 9, android=False)),
    )
    assert parse_manifest(build_manifest(element, resource_map=False)).version_code is None


@pytest.mark.parametrize("utf8", [False, True], ids=["utf16-pool", "utf8-pool"])
def test_long_and_non_ascii_strings(utf8: bool) -> None:
    long_name = "ü" * 40_000 if not utf8 else "é" * 150  # two-unit / two-byte lengths
    element = manifest("com.example.unicode", 1, long_name)
    assert parse_manifest(build_manifest(element, utf8=utf8)).version_name == long_name


def test_first_element_is_the_manifest_even_with_children() -> None:
    element = manifest("com.example.kids", 2, "2")
    info = parse_manifest(build_manifest(element))
    assert info.package == "com.example.kids"


def test_describe_names_package_and_versions() -> None:
    assert ApkInfo("a.b", 3, "1.0").describe() == "a.b 1.0 (versionCode 3)"


# ----------------------------------------------------------------- bad files


def test_not_a_zip_names_the_file(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.apk"
    bogus.write_bytes(b"this is not a zip archive")
    with pytest.raises(UsageError, match=r"notes\.apk.*not a zip"):
        read_apk_info(bogus)


def test_zip_without_manifest_names_the_file(tmp_path: Path) -> None:
    apk = write_apk(tmp_path / "empty.apk", None)
    with pytest.raises(UsageError, match=r"empty\.apk.*no AndroidManifest\.xml"):
        read_apk_info(apk)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such file"):
        read_apk_info(tmp_path / "gone.apk")
    with pytest.raises(UsageError, match="directory"):
        read_apk_info(tmp_path)


def test_plain_text_manifest_is_explained(tmp_path: Path) -> None:
    text = b'<?xml version="1.0"?><manifest package="a.b"/>'
    apk = write_apk(tmp_path / "source.apk", text)
    with pytest.raises(UsageError, match="plain text XML"):
        read_apk_info(apk)


def test_manifest_without_package_is_refused(tmp_path: Path) -> None:
    data = build_manifest(Element("manifest", (Attr("versionCode", 1),)))
    with pytest.raises(UsageError, match="no package"):
        read_apk_info(write_apk(tmp_path / "nopkg.apk", data))


def test_oversized_manifest_is_refused(tmp_path: Path) -> None:
    apk = tmp_path / "bomb.apk"
    with zipfile.ZipFile(apk, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("AndroidManifest.xml", b"\0" * (17 * 1024 * 1024))
    with pytest.raises(UsageError, match="implausibly large"):
        read_apk_info(apk)


def test_every_truncation_is_a_clean_error() -> None:
    data = build_manifest(manifest("com.example.cut", 1, "1"))
    for end in range(len(data)):
        try:
            parse_manifest(data[:end])
        except BinaryXmlError:
            continue


def test_corrupted_bytes_never_raise_anything_but_a_format_error() -> None:
    data = bytearray(build_manifest(manifest("com.example.noise", 1, "1")))
    rng = random.Random(1234)
    for _ in range(2000):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 6)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        with contextlib.suppress(BinaryXmlError):
            parse_manifest(bytes(mutated))


def test_made_apk_round_trips(tmp_path: Path) -> None:
    apk = make_apk(tmp_path, "com.example.made", 12, "1.2")
    assert read_apk_info(apk) == ApkInfo("com.example.made", 12, "1.2")


REAL_APKS = [p for p in os.environ.get("ADBWIRE_REAL_APKS", "").split(os.pathsep) if p]


@pytest.mark.skipif(not REAL_APKS, reason="set ADBWIRE_REAL_APKS=a.apk:b.apk to check real APKs")
@pytest.mark.parametrize("path", REAL_APKS)
def test_real_apks_have_a_package_and_version(path: str) -> None:
    # Expected values come from `aapt dump badging` when the caller gives them as
    # path=package,versionCode,versionName; else only plausibility is checked.
    apk, _, expected = path.partition("=")
    info = read_apk_info(apk)
    if expected:
        package, code, name = expected.split(",")
        assert info == ApkInfo(package, int(code), name)
    else:
        assert "." in info.package
