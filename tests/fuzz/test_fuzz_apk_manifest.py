"""Fuzz the binary XML (AXML) manifest reader: BinaryXmlError or a result, nothing else."""

from __future__ import annotations

from hypothesis import given

from adbwire.testing.userland.android.apk import Manifest, build_manifest
from adbwire.wire.services.apk_manifest import BinaryXmlError, parse_manifest
from tests.fuzz.strategies import FUZZ, mutated, small_bytes

SEEDS = [
    build_manifest(Manifest("com.example.notes", 231, "2.3.1", ["android.permission.CAMERA"])),
    build_manifest(Manifest("a", 0, "", [], [".Main"], ".Main")),
    build_manifest(
        Manifest("org.example.long_name" * 4, 2**31 - 1, "9" * 40, [f"p.{n}" for n in range(9)])
    ),
]


@FUZZ
@given(mutated(SEEDS, max_edits=6) | small_bytes())
def test_parse_manifest_returns_a_bounded_result_or_binary_xml_error(data: bytes) -> None:
    try:
        info = parse_manifest(data)
    except BinaryXmlError:
        return
    assert info.package
    # Every string comes out of the input: UTF-16 doubles nothing, a replacement character
    # stands for at least one input byte.
    assert len(info.package) <= len(data)
    assert len(info.version_name or "") <= len(data)
    assert info.version_code is None or 0 <= info.version_code < 2**64


def test_the_seeds_are_real_manifests() -> None:
    assert parse_manifest(SEEDS[0]).describe() == "com.example.notes 2.3.1 (versionCode 231)"
