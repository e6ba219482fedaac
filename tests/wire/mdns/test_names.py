"""The sans-IO half of discovery: QR payloads, instance names, TXT records (no network)."""

from __future__ import annotations

import pytest

from adbwire.errors import TransportError, UsageError
from adbwire.wire.mdns import browser
from adbwire.wire.mdns.names import (
    CONNECT_SERVICE,
    MAX_TXT_ENTRIES,
    PAIRING_SERVICE,
    QrPairing,
    decode_txt,
    instance_from_full_name,
    parse_qr_payload,
    random_qr_pairing,
    split_service_suffix,
)


def test_qr_payload_has_adbs_format() -> None:
    assert QrPairing("studio-abc", "pw1").payload == "WIFI:T:ADB;S:studio-abc;P:pw1;;"


def test_random_qr_pairing_looks_like_studios_and_is_fresh() -> None:
    first, second = random_qr_pairing(), random_qr_pairing()
    assert first.name.startswith("studio-") and len(first.name) == len("studio-") + 10
    assert len(first.password) == 12 and first.password.isalnum()
    assert first != second
    assert parse_qr_payload(first.payload) == first


def test_parse_qr_payload_reads_escapes_and_any_field_order() -> None:
    parsed = parse_qr_payload(r"WIFI:P:a\;b;S:studio-x;T:ADB;;")
    assert parsed == QrPairing("studio-x", "a;b")


@pytest.mark.parametrize(
    "payload",
    [
        "WIFI:T:WPA;S:net;P:pw;;",
        "WIFI:T:ADB;S:studio-x;;",
        "WIFI:T:ADB;P:pw;;",
        "T:ADB;S:a;P:b;;",
        "WIFI:T:ADB;S:" + "n" * 64 + ";P:pw;;",
    ],
)
def test_parse_qr_payload_refuses_what_a_phone_would_not_pair_with(payload: str) -> None:
    with pytest.raises(UsageError):
        parse_qr_payload(payload)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("adb-X-abc", ("adb-X-abc", None)),
        ("adb-X-abc._adb-tls-connect._tcp", ("adb-X-abc", CONNECT_SERVICE)),
        ("adb-X-abc._adb-tls-pairing._tcp.local.", ("adb-X-abc", PAIRING_SERVICE)),
        ("adb-X._adb._tcp.local", ("adb-X", "_adb._tcp")),
    ],
)
def test_split_service_suffix(text: str, expected: tuple[str, str | None]) -> None:
    assert split_service_suffix(text) == expected


def test_instance_names_over_63_bytes_or_of_another_service_are_refused() -> None:
    suffix = "._adb-tls-connect._tcp.local."
    assert instance_from_full_name("a" * 63 + suffix, CONNECT_SERVICE) == "a" * 63
    assert instance_from_full_name("a" * 64 + suffix, CONNECT_SERVICE) is None
    assert instance_from_full_name("é" * 32 + suffix, CONNECT_SERVICE) is None  # 64 bytes
    assert instance_from_full_name(suffix[1:], CONNECT_SERVICE) is None
    assert instance_from_full_name("a" + suffix, PAIRING_SERVICE) is None


def test_txt_records_are_capped_and_decoded() -> None:
    properties: dict[bytes, bytes | None] = {f"k{i}".encode(): b"v" for i in range(40)}
    properties[b"k0"] = b"\xff" + b"x" * 400
    properties[b"k1"] = None
    decoded = decode_txt(properties)
    assert len(decoded) == MAX_TXT_ENTRIES
    assert decoded["k0"] == "\ufffd" + "x" * 254
    assert decoded["k1"] == ""


def test_adbwire_mdns_0_turns_every_browse_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """The switch the suite and the demo rely on: nothing is sent, every path says why."""
    monkeypatch.setenv("ADBWIRE_MDNS", "0")
    created: list[object] = []

    def spy(*args: object, **kwargs: object) -> None:
        created.append(args)

    monkeypatch.setattr(browser, "Zeroconf", spy)
    with pytest.raises(TransportError, match="ADBWIRE_MDNS=0"):
        browser.browse(duration=0.1)
    with pytest.raises(TransportError, match="ADBWIRE_MDNS=0"):
        browser.resolve_instance("adb-x", [CONNECT_SERVICE], timeout=0.1)
    assert created == []
